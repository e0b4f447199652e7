import Testing
import SmartStack
@testable import SmartStackDatasets

/// `generate --backfill-days`: days of app use before the stacks, as a phone's usage history
/// holds them, leaving the days with stacks as they were.
@Suite struct SimulationBackfillTests {
    static func backfill(_ days: Int, logger: SimulationLogger = .timeOfDay, screenOn: Bool = true) -> SimulationVariant {
        var v = VariantFixtures.variant(screenOn: screenOn)
        v.backfillDays = days
        v.logger = logger
        return v
    }

    /// The instant the user's stacks are first configured.
    static func configuredAt(_ events: [Event]) throws -> Int64 {
        try #require(events.first { if case .stackConfig = $0.payload { return true }; return false }).time.nanosecondsSinceEpoch
    }

    @Test(arguments: [Persona.commuter, .shiftworker, .traveler, .drift, .sequence])
    func theDaysWithStacksAreTheSameWithOrWithoutAHistoryBeforeThem(persona: Persona) throws {
        let plain = VariantFixtures.simulate(persona, days: 3, VariantFixtures.variant())
        let backfilled = VariantFixtures.simulate(persona, days: 3, Self.backfill(4))
        let start = try Self.configuredAt(backfilled.events)
        let history = backfilled.events.filter { $0.time.nanosecondsSinceEpoch < start }
        let after = backfilled.events.filter { $0.time.nanosecondsSinceEpoch >= start }
        // (Compared without printing both days of events on a failure: the first difference.)
        let event = zip(after, plain.events).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(after.count == plain.events.count && event == nil, "first different event: \(event.map { "\(after[$0]) vs \(plain.events[$0])" } ?? "none")")
        let line = zip(backfilled.truth, plain.truth).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(backfilled.truth.count == plain.truth.count && line == nil, "first different truth line: \(line.map(String.init) ?? "none")")
        // The history: app launches only, with ids of their own, over the four days before the
        // stacks' day, in time order.
        #expect(!history.isEmpty)
        #expect(history.allSatisfy { if case .appLaunch = $0.payload { return $0.id?.hasPrefix("h") == true }; return false })
        #expect(zip(history, history.dropFirst()).allSatisfy { $0.time <= $1.time })
        let first = try #require(history.first).time.nanosecondsSinceEpoch
        #expect(start - first > 3 * 86_400_000_000_000 && start - first <= 4 * 86_400_000_000_000)
        // The stacks are configured at the start of their first day, as without history.
        #expect(try Self.configuredAt(plain.events) == start)
    }

    /// The history is the person's own habits: the widgets' apps are launched at the hours the
    /// person needs them (a commuter opens maps on the commute, not at 3 a.m.), and each day of
    /// it has launches of the apps of the widgets they will stack.
    @Test func theHistoryFollowsThePersonsHabits() throws {
        let run = VariantFixtures.simulate(.commuter, days: 1, Self.backfill(7))
        let start = try Self.configuredAt(run.events)
        var apps = Set<String>()
        guard case .stackConfig(_, let widgets) = try #require(run.events.first { $0.time.nanosecondsSinceEpoch == start }).payload
        else { Issue.record("no stack_config"); return }
        for e in run.events where e.time.nanosecondsSinceEpoch < start {
            if case .appLaunch(let app) = e.payload { apps.insert(app) }
        }
        let stacked = Set(widgets.compactMap(\.app))
        #expect(!apps.intersection(stacked).isEmpty)
        let nightLaunches = run.events.filter {
            $0.time.nanosecondsSinceEpoch < start && $0.time.localHour >= 1 && $0.time.localHour < 5
        }
        let launches = run.events.filter { $0.time.nanosecondsSinceEpoch < start }
        #expect(launches.count > 7 * 5)
        #expect(nightLaunches.count * 20 < launches.count)
    }

    @Test func usersAndDaysAreTheSameForAnyThreadCountAndTheTruthCoversOnlyDaysWithStacks() throws {
        var variant = Self.backfill(3)
        variant.recordsScreenOn = false
        let options = try SimulationOptions(persona: .student, days: 2, users: 3, seed: 5, variant: variant)
        func render(_ threads: Int) -> ([UInt8], [UInt8]) {
            var events: [UInt8] = [], truth: [UInt8] = []
            _ = DatasetGenerator.generate(options, threads: threads, events: { events += $0 }, truth: { truth += $0 })
            return (events, truth)
        }
        let (one, oneTruth) = render(1), (many, manyTruth) = render(3)
        #expect(one == many)
        #expect(oneTruth == manyTruth)
        let truth = try GroundTruth.parse(String(decoding: oneTruth, as: UTF8.self))
        #expect(truth.users == (0..<3).map(options.userName))
        for u in 0..<3 {
            var sim = UserSimulator(persona: .student, userIndex: u, userName: options.userName(u), seed: 5,
                                    startDay: options.startDay, days: 2, variant: variant)
            var events: [Event] = []
            while let day = sim.nextDay() { events += day.events }
            let start = try Self.configuredAt(events)
            let lines = truth.entries(user: options.userName(u))
            #expect(!lines.isEmpty)
            #expect(lines.allSatisfy { $0.time.nanosecondsSinceEpoch >= start })
        }
    }

    @Test func theEngineLoggerLearnsTheHistoryAsThePhonesEngineWould() throws {
        let plain = VariantFixtures.simulate(.commuter, days: 2, Self.backfill(0, logger: .engine))
        let backfilled = VariantFixtures.simulate(.commuter, days: 2, Self.backfill(5, logger: .engine))
        let start = try Self.configuredAt(backfilled.events)
        let shown = { (events: [Event]) in events.compactMap { e -> (Int64, String)? in
            if case .widgetImpression(_, let w, _, _) = e.payload, e.time.nanosecondsSinceEpoch >= start { return (e.time.nanosecondsSinceEpoch, w) }
            return nil
        } }
        // The same first session, but the engine shows other widgets once it knows the person's
        // apps (and the person then taps, swipes or launches accordingly: later sessions differ).
        let a = shown(plain.events), b = shown(backfilled.events)
        #expect(a.first?.0 == b.first?.0)
        #expect(a.prefix(40).map(\.1) != b.prefix(40).map(\.1))
    }

    @Test func aBackfillOutOfRangeIsRefused() {
        var v = SimulationVariant()
        v.backfillDays = -1
        #expect(throws: SimulationError.self) { try v.validate() }
        v.backfillDays = SimulationVariant.maximumBackfillDays + 1
        #expect(throws: SimulationError.self) { try v.validate() }
        v.backfillDays = 7
        #expect(v.description == "backfill_days=7")
    }
}
