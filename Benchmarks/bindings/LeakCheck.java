import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.smartstack.SmartStack;
import org.smartstack.SmartStackException;

/**
 * Memory over 10^6 calls through the Java binding (not a test: it prints figures), as
 * Benchmarks/bindings/leak_check.py does for Python: one engine over an in-memory log, every kind
 * of call (decisions with and without reasons, rankings, recordings of stored events, refusals,
 * flushes) at instants moving forward, RSS (VmRSS) read every 100,000 calls against the RSS after
 * the first 100,000 (heap collected first). Run by Benchmarks/bindings/leaks.sh.
 */
public final class LeakCheck {
    private static long rssKiB() throws Exception {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
        throw new IllegalStateException("no VmRSS");
    }

    public static void main(String[] args) throws Exception {
        long calls = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
        final long checkpoint = 100_000L, targetKiB = 2048;
        OffsetDateTime start = OffsetDateTime.of(2026, 3, 2, 8, 0, 0, 0, ZoneOffset.ofHours(-5));
        List<long[]> rows = new ArrayList<>();
        long began = System.nanoTime();
        try (SmartStack engine = new SmartStack(":memory:")) {
            engine.configure("me", "home", new String[] {"calendar", "weather", "music"},
                             new String[] {"com.apple.mobilecal", "com.apple.weather", null}, start);
            String[] history = new String[99];
            StringBuilder all = new StringBuilder();
            for (int m = 1; m < 100; m++) {
                history[m - 1] = "{\"time\":\"" + SmartStack.time(start.plusMinutes(m)) + "\",\"type\":\"app_launch\",\"user\":\"me\",\"id\":\"e"
                    + m + "\",\"app\":\"" + (m % 2 == 0 ? "com.apple.mobilecal" : "com.apple.weather") + "\"}";
                all.append(history[m - 1]).append('\n');
            }
            engine.record(all.toString());
            OffsetDateTime later = start.plusDays(1);
            OffsetDateTime far = OffsetDateTime.of(2300, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
            for (long done = 0; done < calls; ) {
                long k = done / 8;
                OffsetDateTime at = later.plusSeconds(k);
                engine.decide("home", "me", at);
                engine.decideJson("home", "me", at, false);
                engine.rankJson("home", "me", at);
                engine.record(history[(int) (k % history.length)]);
                try { engine.decide("gym", "me", at); } catch (SmartStackException expected) { }
                try { engine.rankJson("home", "me", far); } catch (SmartStackException expected) { }
                try { engine.record("{\"time\":\"2026-03-02T08:00:00\",\"type\":\"screen_on\"}"); } catch (SmartStackException expected) { }
                if (k % 1000 == 0) engine.flush();
                else engine.rankJson("home", "me", at.minusMinutes(1));
                done += 8;
                if (done % checkpoint == 0) {
                    System.gc();
                    rows.add(new long[] {done, rssKiB(), (System.nanoTime() - began) / 1_000_000});
                }
            }
        }
        long baseline = rows.get(0)[1], growth = 0;
        System.out.printf("Java binding: %,d calls (decide with and without reasons, rank, duplicate record, three refusals, flush), one engine%n", calls);
        System.out.println("CALLS      RSS (KiB)   vs baseline   elapsed");
        for (long[] row : rows) {
            System.out.printf("%,9d  %,10d   %+,8d KiB   %6.1f s%n", row[0], row[1], row[1] - baseline, row[2] / 1000.0);
            growth = Math.max(growth, row[1] - baseline);
        }
        long[] last = rows.get(rows.size() - 1);
        double perCall = (last[1] - baseline) * 1024.0 / (last[0] - rows.get(0)[0]);
        String verdict = growth <= targetKiB ? "met" : "MISSED";
        System.out.printf("RESULT java_calls=%d baseline_kib=%d final_kib=%d growth_kib=%d bytes_per_call=%.3f ratio=%.4f%n",
                          calls, baseline, last[1], growth, perCall, (double) last[1] / baseline);
        System.out.printf("RSS growth after the first %,d calls: %+,d KiB (target <= %d KiB: %s); %.3f bytes per call from %,d to %,d%n",
                          checkpoint, growth, targetKiB, verdict, perCall, rows.get(0)[0], last[0]);
        System.exit(verdict.equals("met") ? 0 : 1);
    }
}
