package org.smartstack;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.atomic.AtomicBoolean;

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
 * local time of day. Safe to use from several threads at once. Strings go to the library as UTF-8
 * byte arrays (JNI's own "modified UTF-8" would mangle NUL and characters beyond U+FFFF).
 *
 * <p>Every refusal is a {@link SmartStackException} with the status the C API gives for the same
 * input, checked in the same order (a closed engine first, then the arguments in order), as in
 * every door of the engine: docs/contract.md. A name holding a NUL character (which a C string
 * cannot carry) is {@link Status#INVALID_ARGUMENT}; one holding an unpaired surrogate reaches the
 * library as the invalid UTF-8 it is and is {@link Status#INVALID_UTF8}; an instant outside the
 * years 1678-2261 is {@link Status#INVALID_ARGUMENT}, never a wrapped one; a null where a value is
 * required is {@link Status#NULL_ARGUMENT}. The seed is a {@code uint64_t}: a negative long gives
 * the seed of the same 64 bits ({@link Long#toUnsignedString(long)}).
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
    private final AtomicBoolean closed = new AtomicBoolean();

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
        handle = open(utf8(path, "path"), policy == null ? null : utf8(policy, "policy"),
                      rotation == null ? null : utf8(rotation, "rotation"), seed);
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
        handle = openWithPrior(utf8(path, "path"), policy == null ? null : utf8(policy, "policy"),
                               rotation == null ? null : utf8(rotation, "rotation"), seed, prior == null ? null : utf8(prior, "prior"));
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
        if (!closed.compareAndSet(false, true)) return;   // closes once, also from two threads at once
        close(handle);
    }

    /** Saves every user's state that changed (close does it too). */
    public void flush() throws SmartStackException {
        flush(handle);
    }

    /** Throws the library's own CLOSED error once closed, before any argument is looked at. */
    private void ensureOpen() throws SmartStackException {
        if (closed.get()) flush(handle);
    }

    /**
     * Configures {@code user}'s stack from {@code at} on: widget ids in the person's order, and
     * each widget's app ({@code apps} may be null, or hold nulls).
     */
    public void configure(String user, String stack, String[] widgetIds, String[] apps, OffsetDateTime at)
            throws SmartStackException {
        ensureOpen();
        byte[] userBytes = utf8(user, "user"), stackBytes = utf8(stack, "stack");
        if (widgetIds == null) throw new SmartStackException(Status.NULL_ARGUMENT, "widget_ids is NULL (null given; an array is required)");
        if (apps != null && apps.length != widgetIds.length) {
            throw new SmartStackException(Status.INVALID_ARGUMENT, apps.length + " apps for " + widgetIds.length + " widgets");
        }
        byte[][] ids = new byte[widgetIds.length][];
        byte[][] appBytes = apps == null ? null : new byte[apps.length][];
        for (int i = 0; i < widgetIds.length; i++) {
            ids[i] = utf8(widgetIds[i], "widget_ids[" + i + "]");
            if (appBytes != null && apps[i] != null) appBytes[i] = utf8(apps[i], "widget_apps[" + i + "]");   // null: no app
        }
        configure(handle, userBytes, stackBytes, ids, appBytes, nanos(at), offset(at));
    }

    /** Records SmartStack JSONL v1 events (one per line), all or nothing. */
    public RecordResult record(String jsonl) throws SmartStackException {
        ensureOpen();
        if (jsonl == null) throw new SmartStackException(Status.NULL_ARGUMENT, "jsonl is NULL (null given; a String is required)");
        long[] counts = record(handle, bytes(jsonl));   // a NUL is the library's to refuse, as a bad line
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
        ensureOpen();
        byte[] stackBytes = utf8(stack, "stack"), userBytes = utf8(user, "user");
        return new String(decide(handle, stackBytes, userBytes, nanos(at), offset(at), explain), StandardCharsets.UTF_8);
    }

    /** The ranking of {@code stack} at {@code at}, with reasons, as JSON; changes nothing. */
    public String rankJson(String stack, String user, OffsetDateTime at) throws SmartStackException {
        return rankJson(stack, user, at, true);
    }

    /**
     * The ranking as JSON (see smartstack_rank_explained in smartstack.h); without reasons when
     * {@code explain} is false: the same order and scores, for a host that only needs the order.
     */
    public String rankJson(String stack, String user, OffsetDateTime at, boolean explain) throws SmartStackException {
        ensureOpen();
        byte[] stackBytes = utf8(stack, "stack"), userBytes = utf8(user, "user");
        return new String(rank(handle, stackBytes, userBytes, nanos(at), offset(at), explain), StandardCharsets.UTF_8);
    }

    /** Erases every event and all state of {@code user}; returns the number of events deleted. */
    public long eraseUser(String user) throws SmartStackException {
        ensureOpen();
        return eraseUser(handle, utf8(user, "user"));
    }

    /** Erases every trace of {@code app} for every user; returns the number of events deleted. */
    public long eraseApp(String app) throws SmartStackException {
        ensureOpen();
        return eraseApp(handle, utf8(app, "app"));
    }

    /** The years of a local date every door accepts (docs/contract.md, "Time"). */
    private static final int FIRST_YEAR = 1678, LAST_YEAR = 2261;

    /**
     * Nanoseconds since 1970 of {@code at}, or the library's refusal: a {@code long} of nanoseconds
     * cannot hold every OffsetDateTime, and an instant outside the years the engine supports is
     * refused here with the library's words rather than wrapped.
     */
    private static long nanos(OffsetDateTime at) throws SmartStackException {
        if (at == null) throw new SmartStackException(Status.NULL_ARGUMENT, "at is NULL (null given; an OffsetDateTime is required)");
        if (at.getYear() < FIRST_YEAR || at.getYear() > LAST_YEAR) {
            throw new SmartStackException(Status.INVALID_ARGUMENT, "at " + time(at)
                + " is a local time outside the years " + FIRST_YEAR + "..." + LAST_YEAR + " of the event format");
        }
        return at.toEpochSecond() * 1_000_000_000L + at.getNano();   // within the years above: no overflow
    }

    private static int offset(OffsetDateTime at) {
        return at.getOffset().getTotalSeconds();
    }

    /**
     * The bytes of a name for the library, or its refusal, in the order of the arguments as the C
     * API checks them: null is {@link Status#NULL_ARGUMENT}, a NUL character (a C string ends there)
     * {@link Status#INVALID_ARGUMENT}, an unpaired surrogate {@link Status#INVALID_UTF8} in the
     * library's words for the three bytes it stands for ("byte 0xED at offset 4").
     */
    private static byte[] utf8(String text, String name) throws SmartStackException {
        if (text == null) throw new SmartStackException(Status.NULL_ARGUMENT, name + " is NULL (null given; a String is required)");
        int nul = text.indexOf('\0');
        if (nul >= 0) {
            throw new SmartStackException(Status.INVALID_ARGUMENT,
                name + " contains a NUL character at index " + nul + ", which a C string cannot carry");
        }
        byte[] bytes = bytes(text);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                int offset = text.substring(0, i).getBytes(StandardCharsets.UTF_8).length;
                throw new SmartStackException(Status.INVALID_UTF8, name + " is not valid UTF-8: byte 0xED at offset " + offset);
            }
        }
        return bytes;
    }

    /** UTF-8, with each unpaired surrogate as its own three bytes (never replaced by '?'). */
    private static byte[] bytes(String text) {
        boolean unpaired = false;
        for (int i = 0; i < text.length() && !unpaired; i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) i++;
            else if (Character.isSurrogate(c)) unpaired = true;
        }
        if (!unpaired) return text.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() * 3);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                byte[] pair = text.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                out.write(pair, 0, pair.length);
                i++;
            } else if (Character.isSurrogate(c)) {
                out.write(0xE0 | (c >> 12));
                out.write(0x80 | ((c >> 6) & 0x3F));
                out.write(0x80 | (c & 0x3F));
            } else {
                byte[] one = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                out.write(one, 0, one.length);
            }
        }
        return out.toByteArray();
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
    private static native byte[] rank(long handle, byte[] stack, byte[] user, long atUnixNanos, int utcOffsetSeconds,
                                      boolean explain) throws SmartStackException;
    private static native long eraseUser(long handle, byte[] user) throws SmartStackException;
    private static native long eraseApp(long handle, byte[] app) throws SmartStackException;
}
