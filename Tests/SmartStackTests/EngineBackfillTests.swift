import Foundation
import Testing
@testable import SmartStack

/// `Engine.backfill`: a person's app launches from before the stacks, recorded once at install.
@Suite struct EngineBackfillTests {
    /// 2026-01-05T00:00:00-05:00, a Monday: the stacks are configured then.
    static let installed: Int64 = 1_767_589_200
    static let offset: Int32 = -18_000

    static func time(day: Int, hour: Double) -> EventTime {
        EventTime(nanosecondsSinceEpoch: (installed + Int64(day) * 86_400 + Int64(hour * 3600)) * 1_000_000_000,
                  utcOffsetSeconds: offset)
    }

    static let widgets = [WidgetConfig(id: "calendar", app: "com.cal"), WidgetConfig(id: "weather", app: "com.wx"),
                          WidgetConfig(id: "notes", app: "com.notes")]

    /// A week before installation: the calendar's app opened at 8:00, the weather's at 18:00 and
    /// another app between, every day; `weatherMornings` of the last days open the weather app
    /// at 8:00 instead of the calendar's.
    static func history(user: String = "me", weatherMornings: Int = 0) -> [Event] {
        var out: [Event] = []
        func launch(_ day: Int, _ hour: Double, _ app: String) {
            let t = time(day: day, hour: hour)
            out.append(Event(time: t, user: user, id: "usage-\(t.nanosecondsSinceEpoch / 1_000_000)-\(app)", payload: .appLaunch(app: app)))
        }
        for day in -7 ..< 0 {
            launch(day, 8, day >= -weatherMornings ? "com.wx" : "com.cal")
            launch(day, 12, "com.browser")
            launch(day, 18, "com.wx")
        }
        return out
    }

    static func engine() throws -> Engine {
        let engine = try Engine(path: ":memory:")
        try engine.configure(stack: "home", widgets: widgets, user: "me", at: time(day: 0, hour: 0))
        return engine
    }

    @Test func aBackfilledWeekTeachesEachWidgetTheHoursOfItsApp() throws {
        let engine = try Self.engine()
        let plain = try Self.engine()
        let result = try engine.backfill(Self.history(), user: "me")
        #expect(result == AppendResult(inserted: 21, duplicates: 0))
        // Without history the configured order decides; with it, the evening goes to the weather.
        #expect(try plain.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: 18.1)).widgets.first?.widget == "calendar")
        #expect(try engine.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: 8.1)).widgets.first?.widget == "calendar")
        #expect(try engine.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: 18.1)).widgets.first?.widget == "weather")
        // The same whether the stacks come before or after the history.
        let later = try Engine(path: ":memory:")
        try later.backfill(Self.history(), user: "me")
        try later.configure(stack: "home", widgets: Self.widgets, user: "me", at: Self.time(day: 0, hour: 0))
        #expect(try later.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: 18.1)).widgets.first?.widget == "weather")
    }

    /// Nothing after the decision instant: a ranking as of a moment inside the history uses only
    /// the launches before it.
    @Test func aRankingAsOfAnInstantOfTheHistoryUsesOnlyWhatCameBefore() throws {
        // The stacks configured as of the history's start, so that there is a stack to rank then.
        let engine = try Engine(path: ":memory:")
        try engine.configure(stack: "home", widgets: Self.widgets, user: "me", at: Self.time(day: -8, hour: 0))
        try engine.backfill(Self.history(weatherMornings: 3), user: "me")
        // The last three mornings went to the weather: the live ranking follows them...
        #expect(try engine.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: 8.1)).widgets.first?.widget == "weather")
        // ... but as of the fourth-last morning, only calendar mornings had been seen.
        let before = try engine.ranking(stack: "home", user: "me", before: Self.time(day: -3, hour: 8.1))
        #expect(before.ranking.widgets.first?.widget == "calendar")
    }

    @Test func aHistoryImportedAgainStoresNothingTwice() throws {
        let engine = try Self.engine()
        try engine.backfill(Self.history(), user: "me")
        let before = try engine.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: 18.1))
        #expect(try engine.backfill(Self.history(), user: "me") == AppendResult(inserted: 0, duplicates: 21))
        // An overlapping, longer export: only the new launches are stored.
        let partial = try Self.engine()
        try partial.backfill(Array(Self.history().dropLast(3)), user: "me")
        #expect(try partial.backfill(Self.history(), user: "me") == AppendResult(inserted: 3, duplicates: 18))
        #expect(try partial.store.count(EventQuery(user: "me")) == 22)
        // One reaching further back would be learnt after later launches: refused.
        let earlier = Event(time: Self.time(day: -8, hour: 9), user: "me", id: "usage-x-com.cal", payload: .appLaunch(app: "com.cal"))
        #expect(throws: EngineError.self) { try engine.backfill([earlier] + Self.history(), user: "me") }
        #expect(try engine.store.count(EventQuery(user: "me")) == 22)
        #expect(try engine.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: 18.1)).widgets.first?.widget
            == before.widgets.first?.widget)
    }

    @Test func launchesInAnyOrderAreLearntInTimeOrder() throws {
        let sorted = try Self.engine(), shuffled = try Self.engine()
        try sorted.backfill(Self.history(), user: "me")
        var rng = SeededGenerator(seed: 7)
        try shuffled.backfill(Self.history().shuffled(using: &rng), user: "me")
        for hour in [7.5, 8.1, 12.5, 18.1, 22.0] {
            let a = try sorted.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: hour))
            let b = try shuffled.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: hour))
            #expect(a.widgets.map(\.widget) == b.widgets.map(\.widget))
            #expect(a.widgets.map(\.score) == b.widgets.map(\.score))
        }
        #expect(try shuffled.store.events(EventQuery(user: "me", types: [.appLaunch])).map(\.time) == Self.history().map(\.time))
    }

    /// A history that comes after live events would be learnt out of order: refused, nothing
    /// stored, the engine answering as before; the launches already stored stay idempotent.
    @Test func aHistoryAfterLiveEventsIsRefusedAndTheStoreIsUnchanged() throws {
        let engine = try Self.engine()
        try engine.backfill(Array(Self.history().suffix(6)), user: "me")
        try engine.record(Event(time: Self.time(day: 0, hour: 9), user: "me", id: "live-1", payload: .appLaunch(app: "com.notes")))
        let count = try engine.store.count(EventQuery())
        let ranking = try engine.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: 18.1))
        do {
            try engine.backfill(Self.history(), user: "me")
            Issue.record("a history older than live events was stored")
        } catch let error as EngineError {
            #expect(error.kind == .invalidHistory)
            #expect(error.message.hasPrefix("history launch 'usage-"))
            #expect(error.message.contains("is older than the app_launch event 'live-1' of user 'me' already recorded at 2026-01-05T09:00:00-05:00"))
        }
        #expect(try engine.store.count(EventQuery()) == count)
        #expect(try engine.ranking(stack: "home", user: "me", at: Self.time(day: 0, hour: 18.1)) == ranking)
        // The part already stored is only duplicates: nothing to reorder, nothing stored.
        #expect(try engine.backfill(Array(Self.history().suffix(6)), user: "me") == AppendResult(inserted: 0, duplicates: 6))
        // A stack configured later does not make a history late.
        try engine.configure(stack: "work", widgets: Self.widgets, user: "other", at: Self.time(day: 5, hour: 0))
        #expect(try engine.backfill(Self.history(user: "other"), user: "other").inserted == 21)
    }

    @Test func whatIsNotAnAppLaunchOfThePersonWithAnIdIsRefused() throws {
        let engine = try Self.engine()
        let good = Self.history()
        let t = Self.time(day: -1, hour: 10)
        let cases: [(Event, String)] = [
            (Event(time: t, user: "me", id: "s1", payload: .screenOn), "history event 22 (id 's1') is a screen_on event: a history holds app_launch events only"),
            (Event(time: t, user: "you", id: "y1", payload: .appLaunch(app: "com.cal")), "history event 22 (id 'y1') is of user 'you', not 'me'"),
            (Event(time: t, user: "me", payload: .appLaunch(app: "com.cal")), "history event 22 has no id: a history needs ids, so that importing it again stores nothing twice"),
        ]
        for (bad, message) in cases {
            do {
                try engine.backfill(good + [bad], user: "me")
                Issue.record("stored \(bad)")
            } catch let error as EngineError {
                #expect(error.kind == .invalidHistory)
                #expect(error.message == message)
            }
            #expect(try engine.store.count(EventQuery(types: [.appLaunch])) == 0)
        }
    }
}
