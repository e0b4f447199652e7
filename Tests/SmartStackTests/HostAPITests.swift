import Testing
@testable import SmartStack

/// What a host builds on: typed policies, error kinds it can branch on, erasing an app.
@Suite struct HostAPITests {
    @Test(arguments: [
        (PolicySpec.staticOrder, "static"),
        (.roundRobin(interval: .minutes(30)), "round-robin:interval=30m"),
        (.mostRecentlyUsed, "mru"),
        (.mostFrequentlyUsed, "mfu"),
        (.frecency(halfLife: .days(2)), "frecency:half_life=2d"),
        (.timeOfDay, "time-of-day"),
        (.contextual(halfLife: .days(7), prior: 5), "contextual:half_life=1w,prior=5"),
        (.contextual(recentHalfLife: .hours(2), bandwidth: .minutes(90), learningRate: 0), "contextual:bandwidth=90m,learning_rate=0,recent_half_life=2h"),
        (.contextual(sequencePrior: 40), "contextual:sequence_prior=40"),
        (.bandit(sequencePrior: 5, exploration: .softmax), "bandit:exploration=softmax,sequence_prior=5"),
        (.bandit(exploration: .softmax, temperature: 0.25), "bandit:exploration=softmax,temperature=0.25"),
        (.bandit(halfLife: .hours(36), epsilon: 0.1, learningRate: 0.5), "bandit:epsilon=0.1,half_life=36h,learning_rate=0.5"),
    ])
    func typedPoliciesEqualTheirStringForm(spec: PolicySpec, text: String) throws {
        #expect(spec == (try PolicySpec(parsing: text)))
        // The same engine state as the string form: states are saved under the same key.
        #expect(Engine.stateKey(policy: spec, rotation: RotationParameters(), seed: 0)
                == Engine.stateKey(policy: try PolicySpec(parsing: text), rotation: RotationParameters(), seed: 0))
    }

    @Test(arguments: [
        ("contextual", "contextual:half_life=14d"),
        ("contextual", "contextual:sequence_prior=20"),
        ("contextual:half_life=2w", "contextual:half_life=336h"),
        ("frecency:half_life=3d", "frecency"),
        ("bandit:exploration=epsilon,epsilon=0.05", "bandit"),
    ])
    func everyWritingOfOnePolicyFindsOneSavedState(a: String, b: String) throws {
        #expect(Engine.stateKey(policy: try PolicySpec(parsing: a), rotation: RotationParameters(), seed: 0)
                == Engine.stateKey(policy: try PolicySpec(parsing: b), rotation: RotationParameters(), seed: 0))
        #expect(Engine.stateKey(policy: .contextual(halfLife: .days(14)), rotation: RotationParameters(), seed: 0)
                != Engine.stateKey(policy: .contextual(halfLife: .days(7)), rotation: RotationParameters(), seed: 0))
    }

    @Test func typedPoliciesWithoutParametersAreTheDefaults() throws {
        let typed: [PolicySpec] = [.staticOrder, .roundRobin(), .mostRecentlyUsed, .mostFrequentlyUsed, .frecency(),
                                   .timeOfDay, .contextual(), .bandit()]
        #expect(typed.map(\.name) == PolicyRegistry.names)
        for spec in typed {
            #expect(spec.parameters.isEmpty)
            #expect(try ResolvedPolicy(spec) == (try ResolvedPolicy(PolicySpec(name: spec.name))))
        }
    }

    @Test func everyListedDefaultIsTheValueUsed() throws {
        for info in PolicyRegistry.policies {
            let explicit = PolicySpec(name: info.name, parameters: Dictionary(uniqueKeysWithValues: info.parameters.map { ($0.name, $0.defaultValue) }))
            #expect(try ResolvedPolicy(explicit) == (try ResolvedPolicy(PolicySpec(name: info.name))), "\(info.name)")
        }
        // The documented defaults (TheModel.md in the documentation catalog), which saved states were taken with.
        let contextual = try ResolvedPolicy(.contextual())
        #expect(contextual.halfLife == 14 * 86_400 && contextual.recentHalfLife == 3600 && contextual.bandwidth == 45 * 60)
        #expect(contextual.prior == 10 && contextual.learningRate == 0.3 && contextual.mixture == 0.01)
        let bandit = try ResolvedPolicy(.bandit())
        #expect(bandit.exploration == .epsilon && bandit.epsilon == 0.05 && bandit.temperature == 0.5 && bandit.learningRate == 0.05)
        #expect(try ResolvedPolicy(.frecency()).frecencyHalfLife == 3 * 86_400 && (try ResolvedPolicy(.roundRobin())).interval == 3600)
        // Outside scorers keep the contextual model's features.
        let external = ResolvedPolicy(kind: .external)
        #expect(external.halfLife == contextual.halfLife && external.bandwidth == contextual.bandwidth && external.learningRate == 0.05)
    }

    @Test func aTypedValueOutOfRangeIsAnInvalidParameter() {
        #expect(performing: { try Engine(path: ":memory:", policy: .bandit(epsilon: 1.5)) },
                throws: { ($0 as? EngineError)?.kind == .invalidParameter && "\($0)".contains("'epsilon' = '1.5'") })
        #expect(performing: { try Engine(path: ":memory:", policy: .contextual(bandwidth: .minutes(5))) },
                throws: { ($0 as? EngineError)?.kind == .invalidParameter && "\($0)".contains("out of range (10m...6h)") })
    }

    @Test(arguments: [("45s", 45.0), ("30m", 1800), ("1.5h", 5400), ("14d", 1_209_600), ("1w", 604_800), ("0s", 0)])
    func timeSpansParseAndWriteTheirUnits(text: String, seconds: Double) throws {
        let span = try #require(TimeSpan(parsing: text))
        #expect(span.seconds == seconds)
        #expect(TimeSpan(parsing: span.description) == span)
    }

    @Test func timeSpansRejectWhatIsNotADuration() {
        for text in ["", "30", "m", "-1h", "infd", "1y", "3 h"] { #expect(TimeSpan(parsing: text) == nil, "\(text)") }
        #expect(TimeSpan.days(14).description == "2w" && TimeSpan.minutes(90).description == "90m")
        #expect(TimeSpan.seconds(1e300).description == "1e+300s")
    }

    @Test func errorsCarryAKindAHostCanBranchOn() throws {
        let engine = try Engine(path: ":memory:")
        let t = HostRoutine.time(day: 0, minutes: 0)
        func kind(_ body: () throws -> Void) -> EngineError.Kind? {
            do { try body(); return nil } catch { return (error as? EngineError)?.kind }
        }
        #expect(kind { try engine.configure(stack: "", widgets: HostRoutine.home, user: "ana", at: t) } == .invalidConfiguration)
        #expect(kind { try engine.configure(stack: "home", widgets: HostRoutine.home, user: "", at: t) } == .invalidConfiguration)
        #expect(kind { _ = try engine.ranking(stack: "home", user: "ana", at: t) } == .unknownUser)
        try engine.configure(stack: "home", widgets: HostRoutine.home, user: "ana", at: t)
        #expect(kind { _ = try engine.decide(stack: "work", user: "ana", at: t) } == .unknownStack)
        #expect(kind { _ = try RotationParameters(parsing: "dwell=often") } == .invalidParameter)
        #expect(kind { _ = try PolicySpec(parsing: "best") } == .unknownPolicy)
        try engine.close()
        #expect(kind { try engine.record(Event(time: t, user: "ana", payload: .screenOn)) } == .closed)
        #expect(kind { _ = try engine.erase(app: "com.mail") } == .closed)
    }

    /// A host that keeps a closed engine around gets `.closed` from every call, also for a user
    /// whose state is loaded (answers came from memory before), and the decision taken just
    /// before closing is saved.
    @Test func everyCallAfterCloseThrowsClosed() throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database)
        try engine.record(HostRoutine.events(user: "ana", days: 2, seed: 3))
        let t = HostRoutine.time(day: 3, minutes: 0)
        let decision = try engine.decide(stack: "home", user: "ana", at: t)   // ana is loaded now
        #expect(decision.top != nil)
        try engine.close()
        func kind(_ body: () throws -> Void) -> EngineError.Kind? {
            do { try body(); return nil } catch { return (error as? EngineError)?.kind }
        }
        #expect(kind { _ = try engine.decide(stack: "home", user: "ana", at: t) } == .closed)
        #expect(kind { _ = try engine.decide(stack: "home", user: "ana", at: t, explained: false) } == .closed)
        #expect(kind { _ = try engine.ranking(stack: "home", user: "ana", at: t) } == .closed)
        #expect(kind { _ = try engine.ranking(stack: "home", user: "ana", before: t) } == .closed)
        #expect(kind { _ = try engine.stacks(user: "ana") } == .closed)
        #expect(kind { _ = try engine.ranking(stack: "home", user: "bob", at: t) } == .closed)
        #expect(kind { try engine.flush() } == .closed)
        #expect(kind { try engine.close() } == .closed)
        #expect(kind { try engine.configure(stack: "home", widgets: HostRoutine.home, user: "ana", at: t) } == .closed)
        #expect(kind { _ = try engine.rebuild() } == .closed)
        #expect(kind { _ = try engine.deleteEvents(before: t) } == .closed)
        #expect(kind { _ = try engine.erase(user: "ana") } == .closed)

        // The rotation state of that last decision was saved: a new engine continues from it.
        let reopened = try Engine(path: dir.database)
        let next = try reopened.decide(stack: "home", user: "ana", at: t.adding(seconds: 1))
        #expect(next.top == decision.top && !next.didRotate)
        try reopened.close()
    }

    @Test func aStoreErrorGivesSQLitesResultCodeNotItsType() throws {
        let dir = try HostTemporaryDirectory()
        try Engine(path: dir.database).record(HostRoutine.events(user: "ana", days: 1, seed: 1))
        let reader = try Engine(path: dir.database, storeOptions: EventStore.Options(isReadOnly: true))
        #expect(performing: { try reader.record(Event(time: HostRoutine.time(day: 2, minutes: 0), user: "ana", payload: .screenOn)) },
                throws: { error in
                    guard let error = error as? StoreError else { return false }
                    return error.kind == .readOnly && error.sqliteResultCode.map { $0 & 0xFF } == 8  // SQLITE_READONLY
                })
        #expect(StoreError(kind: .misuse, path: "x", message: "y").sqliteResultCode == nil)
    }

    /// Every ranking of every user and stack at a few instants.
    func answers(_ engine: Engine, users: [String]) throws -> [Ranking] {
        try users.flatMap { user in
            try ["home", "work"].flatMap { stack in
                try HostRoutine.probes(days: 4).map { try engine.ranking(stack: stack, user: user, at: $0) }
            }
        }
    }

    @Test func erasingAnAppBringsEveryAffectedUsersStateInLine() throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database)
        let users = ["ana", "bo"]
        try engine.record(users.enumerated().flatMap { HostRoutine.events(user: $1, days: 4, seed: UInt64($0 + 1)) })
        // A third user who never used the app keeps their loaded state.
        let t = HostRoutine.time(day: 0, minutes: 0)
        try engine.configure(stack: "home", widgets: [WidgetConfig(id: "news", app: "com.news")], user: "cy", at: t)
        try engine.record(Event(time: t.adding(seconds: 60), user: "cy", payload: .appLaunch(app: "com.news")))
        _ = try answers(engine, users: users)
        #expect(try engine.store.loadState(user: "ana", key: engine.stateKey) == nil)  // not saved yet
        try engine.flush()

        let erased = try engine.erase(app: "com.music")
        #expect(erased.affectedUsers == users && erased.deletedEvents > 0 && erased.rewrittenStackConfigs == 2)
        #expect(engine.slotForTesting("ana") == nil && engine.slotForTesting("bo") == nil)
        #expect(engine.slotForTesting("cy") != nil)
        #expect(try engine.store.loadState(user: "ana", key: engine.stateKey) == nil)
        let after = try answers(engine, users: users)
        #expect(after.allSatisfy { !$0.widgets.contains { $0.widget == "music" } })
        #expect(try engine.stacks(user: "ana")["home"]?.map(\.id) == ["mail", "weather", "calendar"])

        // The same answers as an engine that learned only what remains of the log.
        try engine.close()
        let rebuilt = try Engine(path: dir.database)
        try rebuilt.rebuild()
        #expect(try answers(rebuilt, users: users) == after)
    }
}
