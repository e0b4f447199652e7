import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;

import org.smartstack.SmartStack;

/**
 * Decision latency through the Java binding (JNI), on the history `smartstack-bench bindings`
 * writes, at the same instants. Run by Benchmarks/bindings/run.sh; prints one RESULT line.
 *
 *   java -Dsmartstack.jni=... -cp ... DecideBenchmark HISTORY FIRST_NS STEP_NS OFFSET WARMUP DECISIONS
 */
public final class DecideBenchmark {
    public static void main(String[] args) throws Exception {
        String history = Files.readString(Path.of(args[0]));
        long first = Long.parseLong(args[1]), step = Long.parseLong(args[2]);
        ZoneOffset offset = ZoneOffset.ofTotalSeconds(Integer.parseInt(args[3]));
        int warmup = Integer.parseInt(args[4]), decisions = Integer.parseInt(args[5]);
        OffsetDateTime[] instants = new OffsetDateTime[warmup + decisions];
        for (int k = 0; k < instants.length; k++) {
            long ns = first + k * step;
            instants[k] = OffsetDateTime.ofInstant(Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L), Math.floorMod(ns, 1_000_000_000L)), offset);
        }
        Path directory = Files.createTempDirectory("smartstack-java-bench-");
        Path database = directory.resolve("bench.sqlite");
        long[] json = new long[decisions], bare = new long[decisions], parsed = new long[decisions];
        long checksum = 0;
        try (SmartStack engine = new SmartStack(database.toString(), "contextual", null, 0)) {
            engine.record(history);
            for (int k = 0; k < instants.length; k++) {
                long t0 = System.nanoTime();
                String text = engine.decideJson("home", "bench", instants[k], true);
                long t1 = System.nanoTime();
                String order = engine.decideJson("home", "bench", instants[k], false);
                long t2 = System.nanoTime();
                checksum += engine.decide("home", "bench", instants[k]).ranking.size();
                long t3 = System.nanoTime();
                checksum += text.length() + order.length();
                if (k >= warmup) {
                    json[k - warmup] = t1 - t0;
                    bare[k - warmup] = t2 - t1;
                    parsed[k - warmup] = t3 - t2;
                }
            }
        }
        for (String suffix : new String[] {"", "-wal", "-shm"}) Files.deleteIfExists(Path.of(database + suffix));
        Files.deleteIfExists(directory);
        Arrays.sort(json);
        Arrays.sort(bare);
        Arrays.sort(parsed);
        System.out.printf("Java decideJson (JNI, JSON as a String): median %.2f µs, p99 %.2f µs; without reasons: median %.2f µs; "
                          + "decide (parsed into a Decision): median %.2f µs (checksum %d)%n",
                          json[decisions / 2] / 1e3, json[decisions * 99 / 100] / 1e3, bare[decisions / 2] / 1e3,
                          parsed[decisions / 2] / 1e3, checksum);
        System.out.printf("RESULT java_decide_median_us=%.3f java_decide_bare_median_us=%.3f java_decide_parsed_median_us=%.3f%n",
                          json[decisions / 2] / 1e3, bare[decisions / 2] / 1e3, parsed[decisions / 2] / 1e3);
    }
}
