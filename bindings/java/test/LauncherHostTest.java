import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.smartstack.Decision;
import org.smartstack.SmartStack;
import org.smartstack.SmartStackException;
import org.smartstack.Status;

/**
 * Plays an Android launcher host through the Java binding: configures the home-screen stack,
 * records a week of app launches, decides at screen-on and prints the explanation; then the
 * errors a host meets. A plain program (no JUnit): prints each failed check, exits 1 if any.
 *
 *   java -Dsmartstack.jni=.../libsmartstack_jni.so -cp classes LauncherHostTest include/smartstack.h
 */
public final class LauncherHostTest {
    private static int checks;
    private static int failures;

    private static void check(boolean condition, String what) {
        checks++;
        if (!condition) {
            failures++;
            System.err.println("FAIL: " + what);
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    /** `call` throws a SmartStackException with `status` and a message containing `words`. */
    private static void expectFailure(Status status, String words, Call call) {
        try {
            call.run();
            check(false, "expected " + status + " (" + words + "), but the call succeeded");
        } catch (SmartStackException e) {
            check(e.status() == status && e.getMessage().contains(words),
                  "expected " + status + " containing '" + words + "', got " + e.status() + ": " + e.getMessage());
        } catch (Exception e) {
            check(false, "expected " + status + ", got " + e);
        }
    }

    /** Each widget's id, score and eligibility, in the order of a ranking's JSON. */
    private static List<String> widgetFields(String json) {
        List<String> fields = new ArrayList<>();
        Matcher m = Pattern.compile("\\{\"widget\":(\"[^\"]*\",\"score\":[^,]+,\"eligible\":(true|false))").matcher(json);
        while (m.find()) fields.add(m.group(1));
        return fields;
    }

    private static String launch(OffsetDateTime at, String app, String id) {
        return "{\"time\":\"" + SmartStack.time(at) + "\",\"type\":\"app_launch\",\"user\":\"me\",\"id\":\"" + id + "\",\"app\":\"" + app + "\"}\n";
    }

    private static void print(String moment, Decision decision) {
        System.out.println(moment + ": top = " + decision.top + (decision.rotated ? " (rotated)" : ""));
        for (Decision.Widget w : decision.ranking) {
            StringBuilder why = new StringBuilder();
            for (Decision.Reason r : w.reasons) {
                why.append(why.length() == 0 ? "" : "; ").append(r.text).append(String.format(" (%+.2f)", r.contribution));
            }
            System.out.printf("  %-9s %7.3f %-10s %s%n", w.widget, w.score, w.eligible ? "eligible" : "ineligible", why);
        }
    }

    public static void main(String[] args) throws Exception {
        String header = new String(Files.readAllBytes(Path.of(args[0])), "UTF-8");
        Path directory = Files.createTempDirectory("smartstack-java-");
        Path database = directory.resolve("launcher.sqlite");
        ZoneOffset boston = ZoneOffset.ofHours(-5);
        OffsetDateTime monday = OffsetDateTime.of(2026, 3, 2, 7, 0, 0, 0, boston);

        SmartStack engine = new SmartStack(database.toString());
        try (engine) {
            // The launcher's home-screen stack, as the person arranged it.
            engine.configure("me", "home", new String[] {"calendar", "weather", "music"},
                             new String[] {"com.google.android.calendar", "com.weather", "com.spotify.music"}, monday);
            // A week: the calendar at 08:05 on weekdays, music at 18:30 every day.
            StringBuilder week = new StringBuilder();
            int launches = 0;
            for (int day = 0; day < 7; day++) {
                if (day < 5) { week.append(launch(monday.plusDays(day).withHour(8).withMinute(5), "com.google.android.calendar", "c" + day)); launches++; }
                week.append(launch(monday.plusDays(day).withHour(18).withMinute(30), "com.spotify.music", "m" + day));
                launches++;
            }
            SmartStack.RecordResult recorded = engine.record(week.toString());
            check(recorded.inserted == launches && recorded.duplicates == 0, "recorded " + recorded.inserted + " of " + launches);
            check(engine.record(week.toString()).duplicates == launches, "events with ids are stored once");

            // Screen on, next Monday morning and evening.
            Decision morning = engine.decide("home", "me", monday.plusDays(7).withHour(8));
            print("screen on, Monday 08:00", morning);
            check("calendar".equals(morning.top), "Monday morning's top is " + morning.top + ", expected calendar");
            check(morning.ranking.size() == 3 && !morning.ranking.get(0).reasons.isEmpty(), "the morning decision is explained");
            Decision evening = engine.decide("home", "me", monday.plusDays(7).withHour(18).withMinute(25));
            print("screen on, Monday 18:25", evening);
            check("music".equals(evening.top) && evening.rotated, "Monday evening's top is " + evening.top + ", expected music");
            String bare = engine.decideJson("home", "me", monday.plusDays(7).withHour(18).withMinute(26), false);
            check(bare.contains("\"top\":\"music\"") && !bare.contains("reasons"), "decision without reasons: " + bare);
            String ranked = engine.rankJson("home", "me", monday.plusDays(7).withHour(8));
            check(ranked.startsWith("{\"stack\":\"home\",\"user\":\"me\",\"at\":\"2026-03-09T08:00:00-05:00\"")
                  && ranked.contains("\"reasons\""), "rank JSON");
            // Without reasons: the same widgets, scores and eligibility in the same order, no "reasons" key.
            String rankedBare = engine.rankJson("home", "me", monday.plusDays(7).withHour(8), false);
            check(!rankedBare.contains("reasons") && widgetFields(rankedBare).equals(widgetFields(ranked))
                  && widgetFields(ranked).size() == 3, "rank without reasons: " + rankedBare);

            // What a host meets when something is wrong.
            expectFailure(Status.UNKNOWN_STACK, "unknown stack 'gym'", () -> engine.decide("gym", "me", monday));
            expectFailure(Status.UNKNOWN_USER, "unknown user 'you'", () -> engine.decide("home", "you", monday));
            expectFailure(Status.INVALID_EVENT, "<events>:1:", () -> engine.record("{\"time\":\"2026-03-02T08:00:00\",\"type\":\"screen_on\"}"));
            expectFailure(Status.INVALID_ARGUMENT, "utc_offset_seconds 3630",
                          () -> engine.decide("home", "me", monday.withOffsetSameInstant(ZoneOffset.ofHoursMinutesSeconds(1, 0, 30))));
            expectFailure(Status.INVALID_ARGUMENT, "listed twice",
                          () -> engine.configure("me", "work", new String[] {"a", "a"}, null, monday));
            expectFailure(Status.NULL_ARGUMENT, "stack is NULL", () -> engine.decide(null, "me", monday));
            expectFailure(Status.INVALID_ARGUMENT, "NUL character", () -> engine.decide("home\0", "me", monday));
            expectFailure(Status.INVALID_UTF8, "stack is not valid UTF-8: byte 0xED at offset 4",
                          () -> engine.decide("home\ud800", "me", monday));
            expectFailure(Status.INVALID_ARGUMENT, "outside the years 1678...2261",
                          () -> engine.decide("home", "me", monday.withYear(2300)));
            // Characters beyond U+FFFF are fine (they would not survive JNI's modified UTF-8).
            engine.configure("me", "\ud83c\udfe0", new String[] {"calendar"}, null, monday);
            check(engine.decide("\ud83c\udfe0", "me", monday.plusMinutes(1)).stack.equals("\ud83c\udfe0"), "a stack named 🏠");

            // Several threads at once, each on its own person.
            List<Thread> threads = new ArrayList<>();
            List<String> threadFailures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < 4; t++) {
                String user = "person" + t;
                Thread thread = new Thread(() -> {
                    try {
                        engine.configure(user, "home", new String[] {"calendar", "music"}, null, monday);
                        for (int i = 1; i <= 50; i++) {
                            // At screen-on: decide, then record what happened at that instant (docs/contract.md).
                            if (engine.decide("home", user, monday.plusMinutes(i)).top == null) threadFailures.add(user + ": no top");
                            engine.record("{\"time\":\"" + SmartStack.time(monday.plusMinutes(i)) + "\",\"type\":\"screen_on\",\"user\":\"" + user + "\"}");
                        }
                    } catch (Exception e) {
                        threadFailures.add(user + ": " + e);
                    }
                });
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) thread.join();
            check(threadFailures.isEmpty(), "threads failed: " + threadFailures);

            // Privacy: the person uninstalls the music app.
            long erased = engine.eraseApp("com.spotify.music");
            check(erased == 7, "erasing the music app deleted " + erased + " events, expected its 7 launches");
            check(!engine.rankJson("home", "me", monday.plusDays(7)).contains("music"), "the erased app's widget is gone");
            engine.flush();
        }
        engine.close();  // closing twice does nothing
        expectFailure(Status.CLOSED, "is closed", engine::flush);

        // A reopened engine answers from the saved state.
        try (SmartStack reopened = new SmartStack(database.toString())) {
            check(reopened.decide("home", "me", monday.plusDays(8).withHour(8)).top.equals("calendar"), "reopened engine");
        }
        expectFailure(Status.INVALID_POLICY, "unknown policy 'nope'", () -> new SmartStack(":memory:", "nope", null, 0));

        // A population prior that says people use weather between 08:00 and 09:00 on weekdays
        // decides a cold stack, and the reason says so; a bad one is refused naming its file.
        String hours = "1,1,1,1,1,1,1,1,%s,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1";
        String flat = "[" + String.format(hours, "1") + "]";
        String priorText = "{\"format\":\"smartstack-prior\",\"version\":1,\"min_people\":5,\"people\":20,\"shrinkage\":5,"
            + "\"place_kinds\":[],\"widgets\":2,\"apps\":0}\n"
            + "{\"widget\":\"calendar\",\"app\":null,\"people\":20,\"rate\":3,\"days\":[1,1],\"parts\":[[1,1,1,1],[1,1,1,1]],"
            + "\"hours\":[" + flat + "," + flat + "],\"places\":{}}\n"
            + "{\"widget\":\"weather\",\"app\":null,\"people\":20,\"rate\":3,\"days\":[1,1],\"parts\":[[1,1,1,1],[1,1,1,1]],"
            + "\"hours\":[[" + hours + "]," + flat + "],\"places\":{}}\n"
            + "{\"end\":\"smartstack-prior\",\"widgets\":2,\"apps\":0}\n";
        Path prior = directory.resolve("prior.jsonl"), badPrior = directory.resolve("bad-prior.jsonl");
        Files.write(prior, String.format(priorText, "50").getBytes("UTF-8"));
        Files.write(badPrior, String.format(priorText, "NaN").getBytes("UTF-8"));
        try (SmartStack withPrior = new SmartStack(":memory:", null, null, 0, prior.toString())) {
            withPrior.configure("me", "home", new String[] {"calendar", "weather", "music"}, null, monday);
            Decision cold = withPrior.decide("home", "me", monday.withHour(8).withMinute(5));
            check("weather".equals(cold.top), "with the prior, the cold stack's top is " + cold.top + ", expected weather");
            check(cold.ranking.get(0).reasons.get(0).text.startsWith("people like you"), "the prior's reason comes first");
        }
        expectFailure(Status.INVALID_ARGUMENT, "bad-prior.jsonl", () -> new SmartStack(":memory:", null, null, 0, badPrior.toString()));
        Files.deleteIfExists(prior);
        Files.deleteIfExists(badPrior);
        expectFailure(Status.STORAGE, "missing-folder", () -> new SmartStack(directory.resolve("missing-folder/x.sqlite").toString()));

        // The binding mirrors the header.
        Matcher version = Pattern.compile("#define SMARTSTACK_VERSION \"([^\"]+)\"").matcher(header);
        check(version.find() && version.group(1).equals(SmartStack.version()), "version " + SmartStack.version());
        Matcher codes = Pattern.compile("SMARTSTACK_(OK|ERROR_\\w+) = (\\d+)").matcher(header);
        int declared = 0;
        while (codes.find()) {
            declared++;
            String name = codes.group(1).replaceFirst("^ERROR_", "");
            check(Status.valueOf(name).code == Integer.parseInt(codes.group(2)), "Status." + name + " differs from the header");
        }
        check(declared == Status.values().length, "the header declares " + declared + " statuses, Status has " + Status.values().length);

        for (String suffix : new String[] {"", "-wal", "-shm"}) Files.deleteIfExists(Path.of(database + suffix));
        Files.deleteIfExists(directory);
        System.out.println(checks + " checks, " + failures + " failed");
        System.exit(failures == 0 ? 0 : 1);
    }
}
