package org.smartstack;

import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The SmartStack engine for a Java or Android host, over the C API (include/smartstack.h) through
 * a small JNI library ({@code libsmartstack_jni}).
 *
 * <pre>{@code
 * try (SmartStack engine = new SmartStack(context.getFilesDir() + "/smartstack.sqlite")) {
 *     engine.configure("me", "home", new String[] {"calendar", "weather"}, null, now);
 *     engine.record("{\"time\":\"2026-03-02T08:06:00-05:00\",\"type\":\"app_launch\",\"user\":\"me\",\"app\":\"com.x\"}");
 *     Decision decision = engine.decide("home", "me", OffsetDateTime.now(clock));  // at screen-on
 * }
 * }</pre>
 *
 * Times are {@link OffsetDateTime}s: the engine never reads a clock or a time zone, the offset sets
 * local time of day. Safe to use from several threads at once. Strings go to the library as UTF-8;
 * a string with an unpaired surrogate or a NUL character is an {@link IllegalArgumentException}.
 * (JNI's own "modified UTF-8" would mangle both, so strings cross as byte arrays.)
 */
public final class SmartStack implements AutoCloseable {
    static {
        // -Dsmartstack.jni=/path/libsmartstack_jni.so on a desktop JVM; on Android the library
        // ships in the APK (jniLibs/<abi>/libsmartstack_jni.so) and loads by name.
        String path = System.getProperty("smartstack.jni");
        if (path != null) System.load(path);
        else System.loadLibrary("smartstack_jni");
    }

    /** How many events a {@link #record} stored, and how many it skipped as already stored (same id). */
    public static final class RecordResult {
        public final long inserted;
        public final long duplicates;

        RecordResult(long inserted, long duplicates) {
            this.inserted = inserted;
            this.duplicates = duplicates;
        }
    }

    private final long handle;
    private volatile boolean closed;

    /** Opens (or creates) the event log at {@code path} with the default policy and rotation. */
    public SmartStack(String path) throws SmartStackException {
        this(path, null, null, 0);
    }

    /**
     * Opens (or creates) the event log at {@code path} (":memory:" for a private in-memory log).
     *
     * @param policy e.g. "contextual:half_life=7d"; null for the default
     * @param rotation e.g. "margin=0.2,dwell=15m"; null for the defaults
     * @param seed the seed of every user's random generator
     */
    public SmartStack(String path, String policy, String rotation, long seed) throws SmartStackException {
        handle = open(utf8(path, "path"), utf8(policy, "policy"), utf8(rotation, "rotation"), seed);
    }

    /**
     * Opens the event log with a population prior: the file of {@code smartstack prior learn}
     * (Datasets/PRIOR-FORMAT.md), learnt from many people, which the policy starts each person
     * from until their own evidence takes over.
     *
     * @param prior the prior file's path; null for none (as the constructor without it)
     * @throws SmartStackException INVALID_ARGUMENT for a prior file that cannot be read or used
     */
    public SmartStack(String path, String policy, String rotation, long seed, String prior) throws SmartStackException {
        handle = openWithPrior(utf8(path, "path"), utf8(policy, "policy"), utf8(rotation, "rotation"), seed, utf8(prior, "prior"));
    }

    /** The library's version, e.g. "0.1.0". */
    public static String version() {
        return new String(nativeVersion(), StandardCharsets.UTF_8);
    }

    /**
     * {@code at} as the RFC 3339 text JSONL v1 events carry, e.g. "2026-03-02T08:05:00-05:00".
     * Use it for the "time" of event lines: {@code OffsetDateTime.toString()} leaves out zero
     * seconds ("08:05-05:00"), which the format rejects.
     */
    public static String time(OffsetDateTime at) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(at);
    }

    /** Saves every user's state and closes the engine; later calls throw (status CLOSED). Closing twice does nothing. */
    @Override
    public void close() throws SmartStackException {
        if (closed) return;
        closed = true;
        close(handle);
    }

    /** Saves every user's state that changed (close does it too). */
    public void flush() throws SmartStackException {
        flush(handle);
    }

    /**
     * Configures {@code user}'s stack from {@code at} on: widget ids in the person's order, and
     * each widget's app ({@code apps} may be null, or hold nulls).
     */
    public void configure(String user, String stack, String[] widgetIds, String[] apps, OffsetDateTime at)
            throws SmartStackException {
        if (apps != null && apps.length != widgetIds.length) {
            throw new IllegalArgumentException(apps.length + " apps for " + widgetIds.length + " widgets");
        }
        byte[][] ids = new byte[widgetIds.length][];
        byte[][] appBytes = apps == null ? null : new byte[apps.length][];
        for (int i = 0; i < widgetIds.length; i++) {
            ids[i] = utf8(widgetIds[i], "widgetIds[" + i + "]");
            if (appBytes != null) appBytes[i] = utf8(apps[i], "apps[" + i + "]");
        }
        configure(handle, utf8(user, "user"), utf8(stack, "stack"), ids, appBytes, nanos(at), offset(at));
    }

    /** Records SmartStack JSONL v1 events (one per line), all or nothing. */
    public RecordResult record(String jsonl) throws SmartStackException {
        long[] counts = record(handle, utf8(jsonl, "jsonl"));
        return new RecordResult(counts[0], counts[1]);
    }

    /** At screen-on: what goes on top of {@code stack}, and the ranking with each widget's reasons. */
    public Decision decide(String stack, String user, OffsetDateTime at) throws SmartStackException {
        return Decision.fromJson(decideJson(stack, user, at, true));
    }

    /**
     * The decision as the library's JSON (see smartstack_decide in smartstack.h); without reasons
     * when {@code explain} is false: the hot path of a launcher that only needs the order.
     */
    public String decideJson(String stack, String user, OffsetDateTime at, boolean explain) throws SmartStackException {
        return new String(decide(handle, utf8(stack, "stack"), utf8(user, "user"), nanos(at), offset(at), explain),
                          StandardCharsets.UTF_8);
    }

    /** The ranking of {@code stack} at {@code at}, with reasons, as JSON; changes nothing. */
    public String rankJson(String stack, String user, OffsetDateTime at) throws SmartStackException {
        return new String(rank(handle, utf8(stack, "stack"), utf8(user, "user"), nanos(at), offset(at)),
                          StandardCharsets.UTF_8);
    }

    /** Erases every event and all state of {@code user}; returns the number of events deleted. */
    public long eraseUser(String user) throws SmartStackException {
        return eraseUser(handle, utf8(user, "user"));
    }

    /** Erases every trace of {@code app} for every user; returns the number of events deleted. */
    public long eraseApp(String app) throws SmartStackException {
        return eraseApp(handle, utf8(app, "app"));
    }

    private static long nanos(OffsetDateTime at) {
        try {
            return Math.addExact(Math.multiplyExact(at.toEpochSecond(), 1_000_000_000L), at.getNano());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("at " + at + " is outside the years 1678-2261 the engine supports");
        }
    }

    private static int offset(OffsetDateTime at) {
        return at.getOffset().getTotalSeconds();
    }

    /** UTF-8, refusing what UTF-8 cannot carry faithfully (an unpaired surrogate would become '?'); null stays null. */
    private static byte[] utf8(String text, String name) {
        if (text == null) return null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\0') throw new IllegalArgumentException(name + " contains a NUL character");
            if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    throw new IllegalArgumentException(name + " has an unpaired surrogate at index " + i);
                }
                i++;
            }
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static native byte[] nativeVersion();
    private static native long open(byte[] path, byte[] policy, byte[] rotation, long seed) throws SmartStackException;
    private static native long openWithPrior(byte[] path, byte[] policy, byte[] rotation, long seed, byte[] prior)
        throws SmartStackException;
    private static native void close(long handle) throws SmartStackException;
    private static native void flush(long handle) throws SmartStackException;
    private static native void configure(long handle, byte[] user, byte[] stack, byte[][] ids, byte[][] apps,
                                         long atUnixNanos, int utcOffsetSeconds) throws SmartStackException;
    private static native long[] record(long handle, byte[] jsonl) throws SmartStackException;
    private static native byte[] decide(long handle, byte[] stack, byte[] user, long atUnixNanos, int utcOffsetSeconds,
                                        boolean explain) throws SmartStackException;
    private static native byte[] rank(long handle, byte[] stack, byte[] user, long atUnixNanos, int utcOffsetSeconds)
        throws SmartStackException;
    private static native long eraseUser(long handle, byte[] user) throws SmartStackException;
    private static native long eraseApp(long handle, byte[] app) throws SmartStackException;
}
