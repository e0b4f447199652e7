package org.smartstack;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The conformance scenarios (Conformance/scenarios.jsonl) through the Java door: {@link SmartStack}
 * as a Java host calls it (Conformance/README.md). In package org.smartstack only to read the
 * scenarios with the binding's own JSON reader.
 *
 * <pre>
 * javac -d classes bindings/java/src/org/smartstack/*.java Conformance/java/org/smartstack/ConformanceRunner.java
 * java -Dsmartstack.jni=libsmartstack_jni.so -cp classes org.smartstack.ConformanceRunner Conformance/scenarios.jsonl
 * </pre>
 *
 * A step whose input Java cannot express (a value of another type, which javac refuses; bytes no
 * String holds; an offset beyond the +-18:00 of ZoneOffset) is skipped and named.
 */
public final class ConformanceRunner {
    private static final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    private static int stepsRun, stepsSkipped;

    /** The step's input cannot be written in Java; the message says why. */
    private static final class Inexpressible extends Exception {
        private static final long serialVersionUID = 1L;

        Inexpressible(String why) {
            super(why);
        }
    }

    private final Map<String, Object> scenario;
    private final String path;
    private final String policy, rotation;
    private final long seed;
    private SmartStack engine;

    @SuppressWarnings("unchecked")
    private ConformanceRunner(Map<String, Object> scenario, Path directory) throws SmartStackException {
        this.scenario = scenario;
        Map<String, Object> open = (Map<String, Object>) scenario.getOrDefault("open", Map.of());
        path = Boolean.TRUE.equals(open.get("file")) ? directory.resolve(scenario.get("name") + ".sqlite").toString() : ":memory:";
        policy = (String) open.get("policy");
        rotation = (String) open.get("rotation");
        seed = open.get("seed") == null ? 0 : ((Double) open.get("seed")).longValue();
        engine = new SmartStack(path, policy, rotation, seed);
    }

    // ---- Values as a Java host holds them ------------------------------------------------------

    private static String substitute(String text, long index) {
        return text != null && index >= 0 ? text.replace("{i}", Long.toString(index)) : text;
    }

    @SuppressWarnings("unchecked")
    private static byte[] bytes(Object value, long index) throws Inexpressible {
        if (value instanceof String) return substitute((String) value, index).getBytes(StandardCharsets.UTF_8);
        Map<String, Object> v = (Map<String, Object>) value;
        if (v.containsKey("wrong_type")) throw new Inexpressible("a value of another type: javac refuses it");
        if (v.containsKey("hex")) {
            String hex = (String) v.get("hex");
            byte[] out = new byte[hex.length() / 2];
            for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
            return out;
        }
        if (v.containsKey("repeat")) {
            return ((String) v.get("repeat")).repeat(((Double) v.get("count")).intValue()).getBytes(StandardCharsets.UTF_8);
        }
        if (v.containsKey("concat")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (Object part : (List<Object>) v.get("concat")) out.writeBytes(bytes(part, index));
            return out.toByteArray();
        }
        throw new IllegalArgumentException("unknown value " + value);
    }

    /**
     * A text as a String: raw bytes only when they are UTF-8 in which a lone surrogate stands as
     * its three bytes (what the binding sends for one); other invalid UTF-8 no String holds.
     */
    private static String text(Object value, long index) throws Inexpressible {
        if (value == null) return null;
        if (value instanceof String) return substitute((String) value, index);
        byte[] b = bytes(value, index);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < b.length; ) {
            int c = b[i] & 0xFF, n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
            if (n == 0 || i + n > b.length) throw new Inexpressible("bytes that no String holds (only C can pass them)");
            int code = n == 1 ? c : c & (0xFF >> (n + 1));
            for (int k = 1; k < n; k++) {
                if ((b[i + k] & 0xC0) != 0x80) throw new Inexpressible("bytes that no String holds (only C can pass them)");
                code = code << 6 | (b[i + k] & 0x3F);
            }
            out.appendCodePoint(code);
            i += n;
        }
        return out.toString();
    }

    @SuppressWarnings("unchecked")
    private static OffsetDateTime instant(Object value) throws Inexpressible {
        if (value instanceof String) return OffsetDateTime.parse((String) value);
        Map<String, Object> v = (Map<String, Object>) value;
        if (v.containsKey("wrong_type")) throw new Inexpressible("a value of another type: javac refuses it");
        long ns = Long.parseLong((String) v.get("unix_ns"));
        int offset = ((Double) v.get("offset")).intValue();
        try {
            return OffsetDateTime.ofInstant(Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L), Math.floorMod(ns, 1_000_000_000L)),
                                            ZoneOffset.ofTotalSeconds(offset));
        } catch (DateTimeException e) {
            throw new Inexpressible("offset " + offset + " s: a ZoneOffset holds -18:00...+18:00");
        }
    }

    /** An event value as JSON text; {"float": "nan"} is written as the token JSON lacks. */
    @SuppressWarnings("unchecked")
    private static void json(StringBuilder out, Object value, long index) throws Inexpressible {
        if (value == null) out.append("null");
        else if (value instanceof Boolean) out.append(value);
        else if (value instanceof Double) {
            double d = (Double) value;
            out.append(d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d));
        } else if (value instanceof String) {
            out.append('"');
            for (char c : substitute((String) value, index).toCharArray()) {
                if (c == '"' || c == '\\') out.append('\\').append(c);
                else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                else out.append(c);
            }
            out.append('"');
        } else if (value instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object item : (List<Object>) value) {
                if (!first) out.append(',');
                first = false;
                json(out, item, index);
            }
            out.append(']');
        } else {
            Map<String, Object> map = (Map<String, Object>) value;
            if (map.containsKey("wrong_type")) throw new Inexpressible("a value of another type: javac refuses it");
            if (map.containsKey("float")) {
                String f = (String) map.get("float");
                out.append(f.equals("nan") ? "NaN" : f.equals("-inf") ? "-Infinity" : "Infinity");
                return;
            }
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : map.entrySet()) {
                if (!first) out.append(',');
                first = false;
                json(out, e.getKey(), -1);
                out.append(':');
                json(out, e.getValue(), index);
            }
            out.append('}');
        }
    }

    @SuppressWarnings("unchecked")
    private static String events(Object value, long index) throws Inexpressible {
        if (!(value instanceof List)) throw new Inexpressible("a value of another type: javac refuses it");
        StringBuilder out = new StringBuilder();
        for (Object event : (List<Object>) value) {
            json(out, event, index);
            out.append('\n');
        }
        return out.toString();
    }

    // ---- Steps ---------------------------------------------------------------------------------

    private static void fail(String where, String what) {
        failures.add(where + ": " + what);
        System.err.println("FAIL " + where + ": " + what);
    }

    private static String shorten(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }

    /** Runs a step and checks it; adds what it recorded to `totals` (inserted, duplicates). */
    @SuppressWarnings("unchecked")
    private void step(Map<String, Object> s, String where, long index, AtomicLong[] totals) throws Inexpressible {
        String call = (String) s.get("call");
        Map<String, Object> expect = (Map<String, Object>) s.getOrDefault("expect", Map.of());
        String kind = (String) expect.get("error");
        Object result = null;
        try {
            switch (call) {
                case "configure": {
                    String user = text(s.get("user"), -1), stack = text(s.get("stack"), -1);
                    Object raw = s.get("widgets");
                    if (!(raw instanceof List)) throw new Inexpressible("a value of another type: javac refuses it");
                    List<Object> widgets = (List<Object>) raw;
                    String[] ids = new String[widgets.size()], apps = new String[widgets.size()];
                    for (int i = 0; i < ids.length; i++) {
                        Map<String, Object> w = (Map<String, Object>) widgets.get(i);
                        ids[i] = text(w.get("id"), -1);
                        apps[i] = text(w.get("app"), -1);
                    }
                    engine.configure(user, stack, ids, apps, instant(s.get("at")));
                    break;
                }
                case "record": {
                    String jsonl = s.containsKey("jsonl") ? text(s.get("jsonl"), index) : events(s.get("events"), index);
                    result = engine.record(jsonl);
                    break;
                }
                case "pin":
                case "unpin":
                    result = engine.record("{\"time\":\"" + s.get("at") + "\",\"type\":\"widget_" + call + "\",\"user\":\"" + s.get("user")
                                           + "\",\"stack\":\"" + s.get("stack") + "\",\"widget\":\"" + s.get("widget") + "\"}\n");
                    break;
                case "decide":
                    result = Json.parse(engine.decideJson(text(s.get("stack"), -1), text(s.get("user"), -1), instant(s.get("at")),
                                                          !Boolean.FALSE.equals(s.get("explain"))));
                    break;
                case "rank":
                    result = Json.parse(engine.rankJson(text(s.get("stack"), -1), text(s.get("user"), -1), instant(s.get("at")),
                                                        !Boolean.FALSE.equals(s.get("explain"))));
                    break;
                case "forget":
                    result = engine.eraseUser(text(s.get("user"), -1));
                    break;
                case "erase":
                    result = engine.eraseApp(text(s.get("app"), -1));
                    break;
                case "flush":
                    engine.flush();
                    break;
                case "close":
                    engine.close();
                    break;
                case "reopen":
                    engine.close();
                    engine = new SmartStack(path, policy, rotation, seed);
                    break;
                case "open":
                    new SmartStack(":memory:", (String) s.get("policy"), (String) s.get("rotation"), 0).close();
                    break;
                default:
                    fail(where, "unknown call " + call);
                    return;
            }
        } catch (SmartStackException e) {
            String message = e.getMessage();
            if (kind == null) fail(where, "expected success, got " + e.status() + ": " + shorten(message));
            else if (!kind.equals(e.status().name())) fail(where, "expected " + kind + ", got " + e.status() + ": " + shorten(message));
            else for (Object fragment : (List<Object>) expect.getOrDefault("message", List.of())) {
                if (!message.contains((String) fragment)) fail(where, "the message lacks '" + fragment + "': " + shorten(message));
            }
            synchronized (ConformanceRunner.class) { stepsRun++; }
            return;
        }
        synchronized (ConformanceRunner.class) { stepsRun++; }
        if (kind != null) {
            fail(where, "expected " + kind + ", but the call succeeded");
            return;
        }
        if (result instanceof Map) {
            Map<String, Object> answer = (Map<String, Object>) result;
            List<String> order = new ArrayList<>();
            for (Object w : (List<Object>) answer.get("ranking")) order.add((String) ((Map<String, Object>) w).get("widget"));
            Object top = call.equals("decide") ? answer.get("top") : order.isEmpty() ? null : order.get(0);
            if (expect.containsKey("top") && !java.util.Objects.equals(top, expect.get("top"))) {
                fail(where, "top " + top + ", expected " + expect.get("top") + " (order " + order + ")");
            }
            if (expect.containsKey("order") && !order.equals(expect.get("order"))) fail(where, "order " + order + ", expected " + expect.get("order"));
            if (expect.containsKey("count") && order.size() != ((Double) expect.get("count")).intValue()) {
                fail(where, order.size() + " widgets, expected " + expect.get("count"));
            }
            if (expect.containsKey("rotated") && !expect.get("rotated").equals(answer.get("rotated"))) {
                fail(where, "rotated " + answer.get("rotated") + ", expected " + expect.get("rotated"));
            }
        } else if (result instanceof SmartStack.RecordResult) {
            SmartStack.RecordResult r = (SmartStack.RecordResult) result;
            totals[0].addAndGet(r.inserted);
            totals[1].addAndGet(r.duplicates);
            if (index < 0 && expect.containsKey("inserted")
                && (r.inserted != ((Double) expect.get("inserted")).longValue() || r.duplicates != ((Double) expect.get("duplicates")).longValue())) {
                fail(where, "recorded " + r.inserted + " and " + r.duplicates + " duplicates, expected " + expect);
            }
        } else if (result instanceof Long && expect.containsKey("deleted") && (Long) result != ((Double) expect.get("deleted")).longValue()) {
            fail(where, "deleted " + result + ", expected " + expect.get("deleted"));
        }
    }

    @SuppressWarnings("unchecked")
    private void threads(Map<String, Object> s, String where) throws InterruptedException {
        AtomicLong[] totals = {new AtomicLong(), new AtomicLong()};
        List<Thread> threads = new ArrayList<>();
        int repeat = ((Double) s.get("repeat")).intValue();
        for (int t = 0; t < ((Double) s.get("count")).intValue(); t++) {
            Thread thread = new Thread(() -> {
                for (long i = 0; i < repeat; i++) {
                    int k = 0;
                    for (Object inner : (List<Object>) s.get("steps")) {
                        try {
                            step((Map<String, Object>) inner, where + " thread step " + ++k + " #" + i, i, totals);
                        } catch (Inexpressible e) {
                            fail(where, "a thread step is not expressible: " + e.getMessage());
                        }
                    }
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) thread.join();
        Map<String, Object> expect = (Map<String, Object>) s.getOrDefault("expect", Map.of());
        if (expect.containsKey("inserted") && (totals[0].get() != ((Double) expect.get("inserted")).longValue()
                                               || totals[1].get() != ((Double) expect.get("duplicates")).longValue())) {
            fail(where, "the threads recorded " + totals[0] + " and " + totals[1] + " duplicates, expected " + expect);
        }
        stepsRun++;
    }

    @SuppressWarnings("unchecked")
    private void run() throws Exception {
        String name = (String) scenario.get("name");
        int number = 0;
        try {
            for (Object raw : (List<Object>) scenario.get("steps")) {
                Map<String, Object> s = (Map<String, Object>) raw;
                String where = name + " step " + ++number + " (" + s.get("call") + ")";
                if (s.get("call").equals("threads")) {
                    threads(s, where);
                    continue;
                }
                try {
                    step(s, where, -1, new AtomicLong[] {new AtomicLong(), new AtomicLong()});
                } catch (Inexpressible e) {
                    stepsSkipped++;
                    System.out.println("skipped " + where + ": " + e.getMessage());
                    if (!((Map<String, Object>) s.getOrDefault("expect", Map.of())).containsKey("error")) {
                        System.out.println("skipped " + name + ": the rest of the scenario (it builds on this step)");
                        break;
                    }
                }
            }
        } finally {
            engine.close();
        }
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        Path directory = Files.createTempDirectory("smartstack-conformance");
        int scenarios = 0;
        for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            Map<String, Object> scenario = (Map<String, Object>) Json.parse(line);
            int before = failures.size();
            new ConformanceRunner(scenario, directory).run();
            scenarios++;
            System.out.println((failures.size() == before ? "ok   " : "FAIL ") + scenario.get("name"));
        }
        try (var files = Files.list(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) Files.delete(file);
        }
        Files.delete(directory);
        System.out.println("conformance (Java door): " + scenarios + " scenarios, " + stepsRun + " steps run, " + stepsSkipped
                           + " steps not expressible in Java, " + failures.size() + " failed checks");
        System.exit(failures.isEmpty() ? 0 : 1);
    }
}
