import Foundation
import Testing
@testable import SmartStack

/// The host-facing `Engine`: round trip on a file, restart, rebuild, history, errors.
@Suite struct HostEngineTests {
    let users = ["ana", "bo", "cy"]
    let days = 8

    func allEvents() -> [Event] {
        users.enumerated().flatMap { HostRoutine.events(user: $1, days: days, seed: UInt64($0 + 1)) }
    }

    /// Every ranking at every probe, for every user and stack.
    func answers(_ engine: Engine) throws -> [Ranking] {
        var result: [Ranking] = []
        for user in users {
            for stack in ["home", "work"] {
                for time in HostRoutine.probes(days: days) {
                    result.append(try engine.ranking(stack: stack, user: user, at: time))
                }
            }
        }
        return result
    }

    @Test func roundTripOnAFileDatabase() throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database)
        let now = HostRoutine.time(day: 0, minutes: 0)
        try engine.configure(stack: "home", widgets: HostRoutine.home, user: "ana", at: now)
        for k in 1...5 {
            try engine.record(Event(time: now.adding(seconds: Double(k) * 60), user: "ana", payload: .appLaunch(app: "com.music")))
        }
        let ranking = try engine.ranking(stack: "home", user: "ana", at: now.adding(seconds: 600))
        #expect(ranking.widgets.map(\.widget).sorted() == HostRoutine.home.map(\.id).sorted())
        #expect(ranking.widgets.first?.widget == "music")
        #expect(ranking.user == "ana" && ranking.stack == "home" && ranking.policy == "contextual")
        #expect(try engine.stacks(user: "ana")["home"] == HostRoutine.home)
        try engine.close()
        #expect(throws: EngineError(.closed, "the engine is closed")) { try engine.record(Event(time: now, user: "ana", payload: .screenOn)) }

        let store = try EventStore(path: dir.database)
        #expect(try store.count(EventQuery(user: "ana")) == 6)
        let saved = try #require(try store.loadState(user: "ana", key: engine.stateKey))
        #expect(saved.sequence == (try store.lastSequence()))
    }

    @Test func withCoarseLocationsTheLiveStateIsTheOneTheLogRebuilds() throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database, storeOptions: EventStore.Options(coarsensLocations: true))
        #expect(allEvents().contains { if case .location = $0.payload { true } else { false } })
        try engine.record(allEvents())
        let live = try answers(engine)
        try engine.flush()
        func saved() throws -> [[UInt8]] {
            try users.map { try #require(try engine.store.loadState(user: $0, key: engine.stateKey)).blob }
        }
        let learned = try saved()
        // Rebuilt from the log, which holds coarsened fixes only: the same state, byte for byte
        // (fine positions never reach the saved state either).
        _ = try engine.rebuild()
        try engine.flush()
        #expect(try saved() == learned)
        #expect(try answers(engine) == live)
    }

    @Test func restartAnswersFromTheSavedStateWithEqualRankings() throws {
        let dir = try HostTemporaryDirectory()
        let first = try Engine(path: dir.database)
        try first.record(allEvents())
        let before = try answers(first)
        try first.close()

        let second = try Engine(path: dir.database)
        #expect(try answers(second) == before)
        #expect(second.notices.isEmpty)
        // Loaded from the snapshot: nothing left to replay.
        for user in users {
            let slot = try #require(second.slotForTesting(user))
            #expect(slot.state.withLock { $0.unsaved } == 0)
        }
    }

    @Test func stateIsSavedEveryIntervalWithoutClosing() throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database, saveInterval: 50)
        for event in HostRoutine.events(user: "ana", days: 6, seed: 3) { try engine.record(event) }
        let saved = try #require(try engine.store.loadState(user: "ana", key: engine.stateKey))
        let total = Int64(try engine.store.count(EventQuery(user: "ana")))
        #expect(saved.sequence >= total - 50 && saved.sequence > 0)
    }

    @Test func persistenceEqualsRebuildWithLateAndDuplicateEvents() throws {
        let dir = try HostTemporaryDirectory()
        var events = allEvents()
        // Arrival order differs from time order: a few late events, and repeated ids.
        let late = events.enumerated().filter { $0.offset % 17 == 0 }.map(\.element)
        events.removeAll { e in late.contains(e) }
        let engine = try Engine(path: dir.database, saveInterval: 40)
        var i = 0
        while i < events.count {
            let batch = Array(events[i..<min(events.count, i + 23)])
            try engine.record(batch)
            if i % 3 == 0 { try engine.record(Array(batch.prefix(2))) }   // duplicates, skipped
            i += 23
        }
        try engine.record(late)
        let incremental = try answers(engine)
        try engine.close()

        let rebuilt = try Engine(path: dir.database)
        let summary = try rebuilt.rebuild()
        #expect(summary.users == users.count && summary.events == allEvents().count)
        #expect(try answers(rebuilt) == incremental)
        try rebuilt.close()

        let restarted = try Engine(path: dir.database)
        #expect(try answers(restarted) == incremental)
        #expect(restarted.notices.isEmpty)
    }

    @Test func savedStateBeyondTheLogIsRebuiltWithANotice() throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database)
        try engine.record(allEvents())
        let expected = try answers(engine)
        try engine.close()
        let store = try EventStore(path: dir.database)
        let good = try #require(try store.loadState(user: "ana", key: engine.stateKey))
        try store.saveState(user: "ana", key: engine.stateKey, sequence: good.sequence + 1000, blob: good.blob)
        try store.saveState(user: "bo", key: engine.stateKey, sequence: 3, blob: [1, 2, 3])

        let reopened = try Engine(path: dir.database)
        #expect(try answers(reopened) == expected)
        let notices = reopened.notices
        #expect(notices.count == 2)
        #expect(notices.contains { $0.contains("user 'ana'") && $0.contains("log ends at event") && $0.contains("rebuilding") })
        #expect(notices.contains { $0.contains("user 'bo'") && $0.contains("cannot be used") })
        // Repaired in the database: the next engine gives no notice.
        try reopened.close()
        let again = try Engine(path: dir.database)
        _ = try answers(again)
        #expect(again.notices.isEmpty)
    }

    @Test func onlyEventsBeforeTheInstantCount() throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database)
        let events = allEvents()
        try engine.record(events)
        try engine.flush()   // saves every state: the starting points below
        let policy = PolicySpec(name: "contextual")
        for time in HostRoutine.probes(days: days) {
            let history = try engine.ranking(stack: "home", user: "bo", before: time)
            let reference = try HostRoutine.reference(events.filter { $0.time < time }, user: "bo", policy: policy)
            #expect(history.ranking == (try reference.ranking(stack: "home", at: time)))
            // The saved state is a starting point only when it covers no event at or after `time`.
            let coversLater = events.contains { $0.user == "bo" && !($0.time < time) }
            #expect((history.snapshotSequence == nil) == coversLater)
        }
        // After every event the saved state is a valid starting point and nothing is replayed.
        let end = HostRoutine.time(day: days + 1, minutes: 0)
        let history = try engine.ranking(stack: "work", user: "bo", before: end)
        #expect(history.snapshotSequence != nil && history.replayedEvents == 0)
        let reopened = try Engine(path: dir.database)
        #expect(history.ranking == (try reopened.ranking(stack: "work", user: "bo", at: end)))
        // An event exactly at the instant does not count.
        let at = events.first { $0.user == "bo" && $0.type == .appLaunch }!.time
        let exact = try reopened.ranking(stack: "home", user: "bo", before: at)
        let reference = try HostRoutine.reference(events.filter { $0.time < at }, user: "bo", policy: policy)
        #expect(exact.ranking == (try reference.ranking(stack: "home", at: at)))
    }

    @Test func duplicatesAreLearnedOnce() throws {
        let engine = try Engine(path: ":memory:")
        let t = HostRoutine.time(day: 0, minutes: 0)
        try engine.configure(stack: "home", widgets: HostRoutine.home, user: "ana", at: t)
        let launch = Event(time: t.adding(seconds: 60), user: "ana", id: "x1", payload: .appLaunch(app: "com.cal"))
        #expect(try engine.record(launch))
        #expect(try engine.record(launch) == false)
        let reference = try UserEngine(user: "ana", policy: PolicySpec(name: "contextual"))
        reference.record(Event(time: t, user: "ana", payload: .stackConfig(stack: "home", widgets: HostRoutine.home)))
        reference.record(launch)
        let at = t.adding(seconds: 120)
        #expect(try engine.ranking(stack: "home", user: "ana", at: at) == (try reference.ranking(stack: "home", at: at)))
    }

    @Test func unknownUserAndStackNameTheKnownOnes() throws {
        let engine = try Engine(path: ":memory:")
        try engine.record(allEvents())
        let t = HostRoutine.time(day: 1, minutes: 0)
        #expect(throws: EngineError(.unknownUser, "unknown user 'zed': no events recorded for them (known: ana, bo, cy)")) {
            try engine.ranking(stack: "home", user: "zed", at: t)
        }
        #expect(throws: EngineError(.unknownStack, "unknown stack 'gym' for user 'ana' (known: home, work)")) {
            try engine.ranking(stack: "gym", user: "ana", at: t)
        }
        #expect(throws: EngineError(.invalidConfiguration, "stack 'home': widget 'mail' is listed twice")) {
            try engine.configure(stack: "home", widgets: [WidgetConfig(id: "mail"), WidgetConfig(id: "mail")], user: "ana", at: t)
        }
        #expect(throws: EngineError.self) { try Engine(path: ":memory:", policy: PolicySpec(name: "best")) }
    }

    @Test func eraseForgetsTheUserInMemoryToo() throws {
        let engine = try Engine(path: ":memory:")
        try engine.record(allEvents())
        _ = try engine.ranking(stack: "home", user: "cy", at: HostRoutine.time(day: 2, minutes: 0))
        #expect(try engine.erase(user: "cy") > 0)
        #expect(throws: EngineError.self) { try engine.ranking(stack: "home", user: "cy", at: HostRoutine.time(day: 2, minutes: 0)) }
        #expect(try engine.store.loadState(user: "cy", key: engine.stateKey) == nil)
    }

    @Test func retentionDropsDerivedStateAndRankingsFollowTheRemainingLog() throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database)
        let events = allEvents()
        try engine.record(events)
        let cut = HostRoutine.time(day: 4, minutes: 0)
        let probe = HostRoutine.time(day: days, minutes: 100)
        _ = try engine.ranking(stack: "home", user: "ana", at: probe)
        #expect(try engine.deleteEvents(before: cut) == events.filter { $0.time < cut }.count)
        // The stack configurations were older than the cut too: the host configures again.
        #expect(throws: EngineError.self) { try engine.ranking(stack: "home", user: "ana", at: probe) }
        try engine.configure(stack: "home", widgets: HostRoutine.home, user: "ana", at: cut)
        let config = Event(time: cut, user: "ana", payload: .stackConfig(stack: "home", widgets: HostRoutine.home))
        let reference = try HostRoutine.reference(events.filter { !($0.time < cut) } + [config], user: "ana",
                                                  policy: PolicySpec(name: "contextual"))
        #expect(try engine.ranking(stack: "home", user: "ana", at: probe) == (try reference.ranking(stack: "home", at: probe)))
    }

    @Test func aReadOnlyDatabaseAnswersFromItsSavedState() throws {
        let dir = try HostTemporaryDirectory()
        let writer = try Engine(path: dir.database)
        try writer.record(allEvents())
        let expected = try answers(writer)
        try writer.close()
        let reader = try Engine(path: dir.database, storeOptions: EventStore.Options(isReadOnly: true))
        #expect(try answers(reader) == expected)
        #expect(throws: StoreError.self) { try reader.record(Event(time: HostRoutine.time(day: 9, minutes: 0), user: "ana", payload: .screenOn)) }
        try reader.close()
    }

    /// The README's Swift example ("Embedding it"), verbatim between the markers apart from the
    /// database path (checked below).
    func readmeExample(databasePath: String) throws -> RotationDecision {
        // readme: begin
        let engine = try Engine(path: databasePath, policy: PolicySpec(parsing: "contextual"))
        let now = try EventTime(rfc3339: "2026-03-02T08:05:00-05:00")   // an input, never read
        try engine.configure(stack: "home", widgets: [
            WidgetConfig(id: "calendar", app: "com.apple.mobilecal"),
            WidgetConfig(id: "weather", app: "com.apple.weather"),
        ], user: "me", at: now)
        try engine.record(Event(time: now, user: "me", payload: .appLaunch(app: "com.apple.mobilecal")))

        let decision = try engine.decide(stack: "home", user: "me", at: now.adding(seconds: 300))
        print("top:", decision.top ?? "none")              // at screen-on: what goes on top, and why
        for w in decision.ranking.widgets { print(w.widget, w.reasons.map(\.text)) }
        try engine.close()                                  // saves each person's state
        // readme: end
        return decision
    }

    @Test func readmeExampleRuns() throws {
        let dir = try HostTemporaryDirectory()
        let decision = try readmeExample(databasePath: dir.database)
        // The calendar's app was just used: it goes on top, with its reasons.
        #expect(decision.top == "calendar" && decision.ranking.widgets.count == 2)
        #expect(decision.ranking.widgets.allSatisfy { !$0.reasons.isEmpty })
    }

    @Test func readmeShowsTheSwiftExampleItsTestRuns() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Embedding it\n").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```swift\n").dropFirst().first?
            .components(separatedBy: "\n```\n").first)
        let shown = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(shown.prefix(2) == ["import SmartStack", ""])
        let run = try #require(try DocumentationCheck.markedCode(inFile: #filePath, marker: "readme"))
        #expect(shown.dropFirst(2).map { $0.replacingOccurrences(of: "\"smartstack.sqlite\"", with: "databasePath") } == run)
    }

    /// The recipe for a new person with a usage history (docs/design.md, and the Getting started
    /// article): configure the stacks as of the
    /// history's start, then record its app launches; stacks configured after the launches start
    /// from each app's hours. Each app is launched once a day at its own hour, so the totals tie
    /// and only the time of day tells them apart.
    @Test func backfilledLaunchesTeachTheTimeOfDayWhetherTheStacksAreConfiguredFirstOrLast() throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database)
        let widgets = [WidgetConfig(id: "weather", app: "com.weather"), WidgetConfig(id: "music", app: "com.music"),
                       WidgetConfig(id: "calendar", app: "com.cal")]
        // Minutes from the routine's base, 04:00 local (UTC-4): 07:50, 12:30 and 18:10 each day.
        let history = (0..<7).flatMap { day in
            [(230, "com.cal"), (510, "com.music"), (850, "com.weather")].map { minutes, app in (day, minutes, app) }
        }
        func launches(_ user: String) -> [Event] {
            history.map { Event(time: HostRoutine.time(day: $0.0, minutes: $0.1), user: user, payload: .appLaunch(app: $0.2)) }
        }
        try engine.configure(stack: "home", widgets: widgets, user: "first", at: HostRoutine.time(day: 0, minutes: -240))
        try engine.record(launches("first"))
        // Configured after the launches, each widget starts from its app's hours (`AppHours`).
        try engine.record(launches("late"))
        try engine.configure(stack: "home", widgets: widgets, user: "late", at: HostRoutine.time(day: 7, minutes: -240))
        // Day 7 at 07:45, 12:25 and 18:05.
        let probes = [(225, "calendar"), (505, "music"), (845, "weather")]
        for user in ["first", "late"] {
            for (minutes, expected) in probes {
                let ranking = try engine.ranking(stack: "home", user: user, at: HostRoutine.time(day: 7, minutes: minutes))
                #expect(ranking.widgets.first?.widget == expected, "\(user) at \(minutes) min")
            }
        }
        // The same for the `time-of-day` baseline, which ranks by the widget's launches in this hour.
        let baseline = try Engine(path: dir.path + "/baseline.sqlite", policy: PolicySpec(parsing: "time-of-day"))
        try baseline.record(launches("late"))
        try baseline.configure(stack: "home", widgets: widgets, user: "late", at: HostRoutine.time(day: 7, minutes: -240))
        for (minutes, expected) in probes {
            let ranking = try baseline.ranking(stack: "home", user: "late", at: HostRoutine.time(day: 7, minutes: minutes))
            #expect(ranking.widgets.first?.widget == expected, "time-of-day at \(minutes) min")
        }
        try baseline.close()
        try engine.close()
    }

    @Test func decisionsRotateAndAreSavedWithTheState() throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database)
        try engine.record(allEvents())
        let t = HostRoutine.time(day: days, minutes: 45)
        let decision = try engine.decide(stack: "home", user: "ana", at: t)
        #expect(decision.top == decision.ranking.widgets.first { $0.isEligible }?.widget)
        try engine.close()
        let reopened = try Engine(path: dir.database)
        let again = try reopened.decide(stack: "home", user: "ana", at: t.adding(seconds: 1))
        #expect(again.top == decision.top && again.didRotate == false)
    }
}

extension Engine {
    /// The loaded slot of `user`, if any (tests only).
    func slotForTesting(_ user: String) -> UserSlot? { slotsForTesting[user] }
}
