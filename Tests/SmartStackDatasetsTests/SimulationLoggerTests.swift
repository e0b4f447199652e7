import Testing
import SmartStack
@testable import SmartStackDatasets

/// The simulator's loggers: what the phone shows on top, logged with its propensity.
@Suite struct SimulationLoggerTests {
    static func variant(_ logger: SimulationLogger, policy: String? = nil) -> SimulationVariant {
        var v = SimulationVariant()
        v.logger = logger
        v.loggerPolicy = policy
        return v
    }

    static func impressions(_ events: [Event]) -> [(stack: String, widget: String, propensity: Double, policy: String, time: EventTime)] {
        events.compactMap {
            if case .widgetImpression(let stack, let widget, let p?, let policy?) = $0.payload { return (stack, widget, p, policy, $0.time) }
            return nil
        }
    }

    @Test(arguments: SimulationLogger.allCases)
    func everyLoggerWritesItsNameAndAPropensityTheTruthAgreesWith(logger: SimulationLogger) throws {
        let run = VariantFixtures.simulate(.commuter, days: 3, Self.variant(logger))
        let shown = Self.impressions(run.events)
        #expect(!shown.isEmpty)
        let names = Set(shown.map(\.policy))
        #expect(names.count == 1)
        switch logger {
        case .timeOfDay: #expect(names == [UserSimulator.loggingPolicyName])
        case .mfu: #expect(names == ["sim-epsilon-greedy:epsilon=0.3,heuristic=usage"])
        case .uniform: #expect(names == ["sim-uniform"])
        case .engine: #expect(names == ["smartstack:" + SimulationLogger.defaultEnginePolicy])
        }
        for s in shown {
            #expect(s.propensity > 0 && s.propensity <= 1)
            // The truth's line says the same widget was shown, and its distribution is intent
            // plus the lift times the logger's probability of showing each widget.
            let line = try #require(run.truth.first { $0.time == s.time && $0.stack == s.stack })
            #expect(line.shown == s.widget)
            let intent = try #require(line.intent), lift = try #require(line.lift)
            let shownShare = (line.probability(of: s.widget) - (intent.first { $0.widget == s.widget }?.probability ?? 0))
            #expect(abs(shownShare - lift * s.propensity) < 2e-4 || lift < 1e-3)
            if logger == .uniform { #expect(abs(s.propensity - 1 / Double(line.distribution.count)) < 1e-9) }
        }
    }

    /// The engine logger decides from exactly the events the phone recorded strictly before
    /// each screen_on: an engine given the same events in the same way shows the same widgets.
    @Test func theEngineLoggerSeesOnlyThePastTheLogRecords() throws {
        let run = VariantFixtures.simulate(.student, days: 4, Self.variant(.engine))
        let replica = try UserEngine(user: "student-0", policy: PolicySpec(parsing: SimulationLogger.defaultEnginePolicy),
                                     seed: SimulationRandom.derive(1, Persona.student.seedSalt, 0, 0x454E_4749_4E45))
        var i = 0, checked = 0
        let events = run.events
        while i < events.count {
            var j = i
            while j < events.count && events[j].time == events[i].time { j += 1 }
            for e in events[i..<j] {
                guard case .widgetImpression(let stack, let widget, let propensity?, _) = e.payload else { continue }
                let decision = try replica.decide(stack: stack, at: e.time)
                #expect(decision.top == widget, "at \(e.time.rfc3339)")
                #expect(abs(decision.propensity - propensity) < 1e-9)
                checked += 1
            }
            for e in events[i..<j] { replica.record(e) }
            i = j
        }
        #expect(checked > 100)
    }

    @Test func aLoggerPolicyIsCheckedAndOnlyForTheEngine() {
        #expect(throws: SimulationError.self) { try Self.variant(.uniform, policy: "contextual").validate() }
        let error = #expect(throws: SimulationError.self) { try Self.variant(.engine, policy: "contextual:explore=2").validate() }
        #expect(error?.message.contains("logger policy 'contextual:explore=2'") == true)
        #expect(Self.variant(.engine).description == "logger=engine")
    }
}
