import Testing
import SmartStack

/// Policy specs, errors, snapshots, determinism and late events.
@Suite struct EngineTests {
    @Test func parsesPolicySpecs() throws {
        let spec = try PolicySpec(parsing: "contextual:half_life=14d")
        #expect(spec.name == "contextual" && spec.parameters == ["half_life": "14d"])
        #expect(try PolicySpec(parsing: "round-robin:interval=30m").description == "round-robin:interval=30m")
        #expect(try PolicySpec(parsing: " bandit : epsilon=0.1, half_life=2h ").description == "bandit:epsilon=0.1,half_life=2h")
        #expect(try PolicySpec(parsing: "static").description == "static")
        for name in PolicyRegistry.names { _ = try PolicySpec(parsing: name) }
    }

    @Test(arguments: [
        ("nope", EngineError.Kind.unknownPolicy, "unknown policy 'nope' (valid: static, round-robin, mru, mfu, frecency, time-of-day, contextual, bandit)"),
        ("", .unknownPolicy, "empty policy (valid: static, round-robin, mru, mfu, frecency, time-of-day, contextual, bandit)"),
        ("static:x=1", .invalidParameter, "unknown parameter 'x' for policy 'static' (valid: none)"),
        ("round-robin:speed=2", .invalidParameter, "unknown parameter 'speed' for policy 'round-robin' (valid: interval)"),
        ("round-robin:interval=30", .invalidParameter, "policy 'round-robin': parameter 'interval' = '30' is not a duration (write e.g. 45s, 30m, 2h, 14d, 1w)"),
        ("bandit:epsilon=2", .invalidParameter, "policy 'bandit': parameter 'epsilon' = '2' is out of range (0.0...1.0)"),
        ("contextual:half_life", .invalidParameter, "policy 'contextual:half_life': parameter 'half_life' is not of the form key=value"),
        ("bandit:exploration=greedy", .invalidParameter, "policy 'bandit': parameter 'exploration' = 'greedy' is not one of: epsilon, softmax"),
    ])
    func rejectsBadSpecs(text: String, kind: EngineError.Kind, message: String) {
        #expect(throws: EngineError(kind, message)) { try PolicySpec(parsing: text) }
    }

    @Test func unknownPolicyNameFailsAtEngineCreation() {
        #expect(performing: { try UserEngine(user: "u", policy: PolicySpec(name: "best")) },
                throws: { ($0 as? EngineError)?.kind == .unknownPolicy })
    }

    @Test func unknownStackListsTheKnownOnes() throws {
        var s = Script()
        s.configure("b", ["x"]); s.configure("a", ["y"])
        let e = try s.engine()
        #expect(throws: EngineError(.unknownStack, "unknown stack 'x' for user 'u' (known: a, b)")) {
            try e.ranking(stack: "x", at: Script.time(day: 1, 9))
        }
        #expect(e.stacks["a"] == [WidgetConfig(id: "y", app: "app.y")])
    }

    @Test("asking for stacks in turn answers each with its own widgets, and an unknown one still fails")
    func stacksInTurn() throws {
        var s = Script()
        s.configure("home", ["mail", "maps"]); s.configure("work", ["docs", "notes", "slides"]); s.configure("none", [])
        let e = try s.engine()
        let t = Script.time(day: 1, 9)
        // The same stack twice, then another, then back: each answer names that stack's widgets.
        for stack in ["home", "home", "work", "home", "work", "work"] {
            let ranking = try e.ranking(stack: stack, at: t)
            #expect(ranking.stack == stack)
            #expect(Set(ranking.widgets.map(\.widget)) == (stack == "home" ? ["mail", "maps"] : ["docs", "notes", "slides"]))
        }
        for unknown in ["Home", "home ", "gym"] {
            #expect(throws: EngineError(.unknownStack, "unknown stack '\(unknown)' for user 'u' (known: home, none, work)")) {
                try e.ranking(stack: unknown, at: t)
            }
        }
        // A stack configured without widgets ranks nothing, and the others still answer.
        #expect(try e.ranking(stack: "none", at: t).widgets.isEmpty)
        #expect(try e.decide(stack: "none", at: t).top == nil)
        #expect(try e.ranking(stack: "home", at: t).widgets.count == 2)
    }

    func richScript() -> Script {
        var s = Script()
        s.configure("home", ["mail", "maps", "music", "notes"])
        s.configure("work", ["notes", "docs"])
        for day in 0..<14 {
            s.add(Script.time(day: day, 7), .place(day % 2 == 0 ? "home" : "gym"))
            s.launch("mail", Script.time(day: day, 7, 30))
            s.add(Script.time(day: day, 8), .location(lat: 43.7, lon: -72.29, accuracy: 30))
            s.launch("maps", Script.time(day: day, 8, 10))
            s.add(Script.time(day: day, 8, 20), .context(key: "charging", value: day % 3 == 0 ? "true" : "false"))
            s.launch("notes", Script.time(day: day, 12, 15))
            s.add(Script.time(day: day, 12, 30), .widgetImpression(stack: "home", widget: "music", propensity: 0.5, policy: "x"))
            s.launch("music", Script.time(day: day, 18 + day % 3, 0))
            s.add(Script.time(day: day, 19), .relevance(widget: "maps", score: Double(day % 4), duration: 3600))
            s.add(Script.time(day: day, 21), .widgetSwipe(stack: "home", from: "music", to: "mail"))
            s.launch("docs", Script.time(day: day, 14, 0))
        }
        return s
    }

    func decisions(_ e: UserEngine, from day: Int) throws -> [String] {
        var out: [String] = []
        for k in 0..<40 {
            let t = Script.time(day: day, 6).adding(seconds: Double(k) * 1700)
            e.record(Event(time: t.adding(seconds: -60), user: "u", payload: .appLaunch(app: k % 3 == 0 ? "app.maps" : "app.music")))
            for stack in ["home", "work"] {
                let d = try e.decide(stack: stack, at: t)
                out.append("\(d.top ?? "-") \(d.propensity) \(d.ranking.widgets.map { "\($0.widget)=\($0.score)" })")
            }
        }
        return out
    }

    @Test(arguments: ["contextual", "bandit:exploration=softmax", "bandit", "frecency", "round-robin"])
    func snapshotRestoresIdenticalFutureAnswers(policy: String) throws {
        let s = richScript()
        let original = try s.engine(policy, seed: 42)
        _ = try decisions(original, from: 14)
        let bytes = original.snapshot()
        let restored = try UserEngine(user: "u", policy: PolicySpec(parsing: policy), seed: 999, restoring: bytes)
        #expect(try decisions(original, from: 15) == decisions(restored, from: 15))
    }

    @Test func snapshotRejectsOtherPolicyOrGarbage() throws {
        let bytes = try richScript().engine("contextual").snapshot()
        func isInvalidSnapshot(_ error: any Error) -> Bool { (error as? EngineError)?.kind == .invalidSnapshot }
        #expect(performing: { try UserEngine(user: "u", policy: PolicySpec(parsing: "contextual:half_life=2d"), restoring: bytes) },
                throws: isInvalidSnapshot)
        #expect(performing: { try UserEngine(user: "v", policy: PolicySpec(parsing: "contextual"), restoring: bytes) },
                throws: isInvalidSnapshot)
        #expect(performing: { try UserEngine(user: "u", policy: PolicySpec(parsing: "contextual"), restoring: [1, 2, 3]) },
                throws: isInvalidSnapshot)
        for cut in [bytes.count / 3, bytes.count / 2, bytes.count - 1] {
            #expect(performing: { try UserEngine(user: "u", policy: PolicySpec(parsing: "contextual"), restoring: Array(bytes.prefix(cut))) },
                    throws: isInvalidSnapshot)
        }
    }

    @Test func snapshotOfAnotherVersionIsRefusedByItsVersion() throws {
        let bytes = try richScript().engine("contextual").snapshot()
        // Version 2 (first, little-endian), then bytes this version's layout cannot read.
        let older: [UInt8] = [2, 0, 0, 0, 0, 0, 0, 0] + bytes.dropFirst(8).prefix(100)
        let error = #expect(throws: EngineError.self) {
            try UserEngine(user: "u", policy: PolicySpec(parsing: "contextual"), restoring: older)
        }
        #expect(error?.kind == .invalidSnapshot)
        #expect(error?.message.hasPrefix("snapshot for user 'u' has version 2; this engine reads version ") == true)
    }

    @Test func sameSeedSameAnswersOtherSeedOtherExploration() throws {
        let s = richScript()
        let a = try decisions(s.engine("bandit:epsilon=0.5", seed: 1), from: 14)
        let b = try decisions(s.engine("bandit:epsilon=0.5", seed: 1), from: 14)
        let c = try decisions(s.engine("bandit:epsilon=0.5", seed: 2), from: 14)
        #expect(a == b)
        #expect(a != c)
    }

    @Test func lateEventsAreAcceptedAndCountAtTheirOwnTime() throws {
        var s = Script()
        s.configure("home", ["a", "b"])
        s.launch("a", Script.time(day: 5, 9))
        let inOrder = try s.engine()
        inOrder.record(Event(time: Script.time(day: 6, 9), user: "u", payload: .appLaunch(app: "app.b")))
        let late = try s.engine()
        late.record(Event(time: Script.time(day: 6, 9), user: "u", payload: .appLaunch(app: "app.b")))
        late.record(Event(time: Script.time(day: 1, 9), user: "u", payload: .appLaunch(app: "app.a")))
        let r1 = try inOrder.ranking(stack: "home", at: Script.time(day: 6, 10))
        let r2 = try late.ranking(stack: "home", at: Script.time(day: 6, 10))
        #expect(r2.widget("a")!.score > r1.widget("a")!.score)
        // A late stale hint does not replace the current one.
        late.record(Event(time: Script.time(day: 6, 9, 30), user: "u", payload: .relevance(widget: "a", score: 1, duration: nil)))
        late.record(Event(time: Script.time(day: 6, 9, 0), user: "u", payload: .relevance(widget: "a", score: 0, duration: nil)))
        #expect(try late.ranking(stack: "home", at: Script.time(day: 6, 10)).widget("a")!.isEligible)
    }

    @Test func rankingWithoutExplanationsHasSameOrder() throws {
        let e = try richScript().engine()
        let with = try e.ranking(stack: "home", at: Script.time(day: 14, 8))
        e.explainsRankings = false
        let without = try e.ranking(stack: "home", at: Script.time(day: 14, 8))
        #expect(with.order == without.order)
        #expect(without.widgets.allSatisfy { $0.reasons.isEmpty })
        #expect(with.widgets.contains { !$0.reasons.isEmpty })
    }

    @Test func registryDescribesEveryPolicy() {
        #expect(PolicyRegistry.names == ["static", "round-robin", "mru", "mfu", "frecency", "time-of-day", "contextual", "bandit"])
        #expect(PolicyRegistry.info(named: "contextual")!.parameters.map(\.name).contains("half_life"))
        #expect(PolicyRegistry.policies.allSatisfy { !$0.summary.isEmpty })
    }
}
