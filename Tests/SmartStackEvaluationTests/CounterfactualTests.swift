import Foundation
import Testing
import SmartStack
import SmartStackDatasets
@testable import SmartStackEvaluation

/// The counterfactual measure: every policy's own top read against the truth file's intent.
@Suite struct CounterfactualTests {
    /// One truth line of user u1's stack `s` at `minutes`, with intent and a display lift.
    static func line(_ minutes: Double, intent: [String: Double], lift: Double = 0.05, stack: String = "s", user: String = "u1") -> String {
        let widgets = ["a", "b", "c"]
        func map(_ values: [String: Double]) -> String {
            "{" + widgets.map { "\"\($0)\":\(values[$0] ?? 0)" }.joined(separator: ",") + "}"
        }
        let distribution = intent.mapValues { $0 + lift / 3 }
        return #"{"user":"\#(user)","time":"\#(Fixture.at(minutes: minutes).rfc3339)","stack":"\#(stack)","distribution":\#(map(distribution)),"engaged":null,"lift":\#(lift),"intent":\#(map(intent))}"#
    }

    static func truth(_ lines: [String]) throws -> EvaluationTruth {
        let parsed = try GroundTruth.parse(lines.joined(separator: "\n"), name: "t.truth.jsonl")
        return EvaluationTruth(truth: parsed, file: PolicyInputFile(path: "t.truth.jsonl", digest: "test"))
    }

    /// A policy that always shows `top`.
    static func always(_ top: String) -> PolicyFactory {
        PolicyFactory(name: "always-\(top)") { _, _ in ScriptedPolicy([top]) }
    }

    @Test func eachPolicyIsCreditedTheIntentOfItsOwnTopAgainstTheBestEligibleWidget() throws {
        // Three screen_on decisions; at the second a relevance hint of 0 makes b ineligible.
        let events = [
            Fixture.config(0, ["a", "b", "c"]), Fixture.screen(10),
            Fixture.event(15, .relevance(widget: "b", score: 0, duration: 600)), Fixture.screen(20), Fixture.screen(40),
        ]
        let first: [String: Double] = ["a": 0.1, "b": 0.5, "c": 0.2]
        let second: [String: Double] = ["a": 0.3, "b": 0.6, "c": 0.0]
        let third: [String: Double] = ["a": 0.2, "b": 0.1, "c": 0.4]
        let truth = try Self.truth([Self.line(10, intent: first, lift: 0.02), Self.line(20, intent: second, lift: 0.04),
                                    Self.line(40, intent: third, lift: 0.06)])
        let report = try Evaluator(options: Fixture.options(bootstrap: 0))
            .evaluate(.events(events, name: "x"), policies: [Self.always("a"), Self.always("b")], truth: truth)
        #expect(report.measure == .counterfactual)
        let a = report.policies[0].metrics, b = report.policies[1].metrics
        // Ceiling: b (0.5); a (0.3, as b is suppressed); c (0.4).
        let ceiling: Double = (0.5 + 0.3 + 0.4) / 3
        let aValue: Double = (0.1 + 0.3 + 0.2) / 3, bValue: Double = (0.5 + 0.6 + 0.1) / 3
        #expect(abs(try #require(a[.counterfactualEngagement]) - aValue) < 1e-12)
        #expect(abs(try #require(b[.counterfactualEngagement]) - bValue) < 1e-12)
        #expect(abs(try #require(a[.ceiling]) - ceiling) < 1e-12)
        #expect(abs(try #require(a[.ceilingRatio]) - 0.5) < 1e-12)
        #expect(a[.decisionsWithTruth] == 3)
        // The lift is the same whatever is shown: reported once, apart.
        #expect(abs(try #require(report.truth?.displayLift) - 0.04) < 1e-12)
        #expect(report.truth?.matchedAtInstant == 3 && report.truth?.leftOutWithoutLine == 0)
        #expect(report.verdict?.best == "always-b")
    }

    @Test func decisionsWithoutScreenOnAreMatchedToTheLineOfTheirSessionOrCounted() throws {
        // No screen_on: decisions are at engagements. The truth was written at each session's
        // start; the launch at 32 is 12 minutes after its line, beyond the 10-minute window.
        let events = [Fixture.config(0, ["a", "b", "c"]), Fixture.launch(5, "a"), Fixture.launch(23, "b"), Fixture.launch(32, "c")]
        let truth = try Self.truth([Self.line(1, intent: ["a": 0.6, "b": 0.1]), Self.line(20, intent: ["b": 0.7, "c": 0.1]),
                                    Self.line(20, intent: ["a": 0.2], stack: "elsewhere"),
                                    Self.line(1, intent: ["a": 0.3], user: "nobody")])
        let report = try Evaluator(options: Fixture.options(bootstrap: 0))
            .evaluate(.events(events, name: "x"), policies: [Self.always("a")], truth: truth)
        let t = try #require(report.truth)
        #expect(t.matchedAtInstant == 0 && t.matchedEarlier == 2 && t.leftOutWithoutLine == 1)
        #expect(t.linesOfUnknownUsers == 1 && t.linesOfUnknownStacks == 1)
        #expect(abs(try #require(report.policies[0].metrics[.counterfactualEngagement]) - (0.6 + 0.0) / 2) < 1e-12)
        #expect(report.warnings.contains { $0.hasPrefix("1 of 3 scored decisions have no line in the truth file 't.truth.jsonl'") })
        #expect(report.warnings.contains { $0.contains("matched to the truth line of the session") })
        #expect(report.warnings.contains { $0.hasPrefix("1 lines of the truth file name users not in the data") })
        #expect(report.warnings.contains { $0.hasPrefix("1 lines of the truth file name stacks their user never configured") })
    }

    @Test func aLineNamingAWidgetTheStackDoesNotHoldIsLeftOutAndNamed() throws {
        let events = [Fixture.config(0, ["a", "b"]), Fixture.screen(10), Fixture.screen(30)]
        let truth = try Self.truth([Self.line(10, intent: ["a": 0.2, "b": 0.1, "c": 0.1]),
                                    #"{"user":"u1","time":"\#(Fixture.at(minutes: 30).rfc3339)","stack":"s","distribution":{"a":0.4,"b":0.1},"engaged":null}"#])
        let report = try Evaluator(options: Fixture.options(bootstrap: 0))
            .evaluate(.events(events, name: "x"), policies: [Self.always("a")], truth: truth)
        let t = try #require(report.truth)
        #expect(t.leftOutUnknownWidget == 1 && t.decisionsWithTruth == 1)
        // Without intent the line's distribution is read, and no lift is known.
        #expect(report.policies[0].metrics[.counterfactualEngagement] == 0.4)
        #expect(t.displayLift == nil)
        #expect(report.warnings.contains { $0.contains("t.truth.jsonl:1: widget 'c' is not in stack 's' of user 'u1'") })
    }

    /// A misspelt field is ignored, as the format says, but not silently: the line without
    /// intent is measured by its distribution (display lift included), and the report says both,
    /// the same after a merge of partials. A clean truth file gives no warning.
    @Test func aMisspeltFieldAndLinesWithoutIntentAreNamedInTheWarnings() throws {
        let events = [Fixture.config(0, ["a", "b", "c"]), Fixture.screen(10), Fixture.screen(20), Fixture.screen(30)]
        let clean = [Self.line(10, intent: ["a": 0.3]), Self.line(20, intent: ["a": 0.2]), Self.line(30, intent: ["a": 0.1])]
        let evaluator = Evaluator(options: Fixture.options(bootstrap: 0))
        let cleanReport = try evaluator.evaluate(.events(events, name: "x"), policies: [Self.always("a")], truth: try Self.truth(clean))
        #expect(cleanReport.warnings.isEmpty)

        var misspelt = clean
        misspelt[1] = misspelt[1].replacingOccurrences(of: #""intent""#, with: #""intnt""#)
        misspelt[2] = String(misspelt[2].dropLast()) + #","intnt":{},"note":"x","note":"y"}"#
        let truth = try Self.truth(misspelt)
        #expect(truth.truth.ignoredFields == [IgnoredTruthField(name: "intnt", lines: 2, firstLine: 2),
                                               IgnoredTruthField(name: "note", lines: 1, firstLine: 3)])
        let report = try evaluator.evaluate(.events(events, name: "x"), policies: [Self.always("a")], truth: truth)
        // Line 2 lost its intent: its distribution (0.2 + 0.05 / 3) is read there.
        let value = try #require(report.policies[0].metrics[.counterfactualEngagement])
        #expect(abs(value - (0.3 + (0.2 + 0.05 / 3) + 0.1) / 3) < 1e-12)
        #expect(report.warnings.contains {
            $0.hasPrefix("1 of 3 measured decisions have a truth line without intent: their distribution is measured instead")
        })
        #expect(report.warnings.contains {
            $0.hasPrefix("the truth file 't.truth.jsonl' has a field 'intnt' on 2 lines (first: line 2) that the format does not define")
        })
        #expect(report.warnings.contains { $0.contains("a field 'note' on 1 line (line 3)") })

        let partial = try evaluator.partial(.events(events, name: "x"), policies: [Self.always("a")], truth: truth)
        let read = try PartialEvaluation(bytes: partial.encoded(), name: "x.partial")
        let merged = try Evaluator.merge([read], name: "x", sources: report.dataset.sources, threads: 1)
        #expect(merged.warnings == report.warnings)
    }

    @Test func aTruthFileOfAnotherDatasetIsRefused() throws {
        let events = [Fixture.config(0, ["a", "b", "c"]), Fixture.screen(10)]
        let truth = try Self.truth([Self.line(10, intent: ["a": 0.5], user: "someone-else")])
        #expect {
            try Evaluator(options: Fixture.options(bootstrap: 0)).evaluate(.events(events, name: "x"), policies: [Self.always("a")], truth: truth)
        } throws: { error in
            "\(error)".contains("the truth file 't.truth.jsonl' does not describe this dataset") && "\(error)".contains("names none of the data's users")
        }
        let offset = try Self.truth([Self.line(11, intent: ["a": 0.5])])
        #expect {
            try Evaluator(options: Fixture.options(bootstrap: 0)).evaluate(.events(events, name: "x"), policies: [Self.always("a")], truth: offset)
        } throws: { error in
            "\(error)".contains("no line is at a decision point")
        }
    }

    @Test func theMeasureFollowsWhatTheDataCanTell() throws {
        var events = [Fixture.config(0, ["a", "b", "c"])]
        for k in 0..<40 {
            let t = Double(20 * k + 10)
            events.append(Fixture.screen(t))
            events.append(Fixture.event(t, .widgetImpression(stack: "s", widget: ["a", "b", "c"][k % 3], propensity: 1.0 / 3, policy: "uniform")))
            if k % 2 == 0 { events.append(Fixture.launch(t + 1, ["a", "b", "c"][k % 3])) }
        }
        let policies = [Self.always("a"), Self.always("b")]
        let withPropensities = try Evaluator(options: Fixture.options(bootstrap: 50)).evaluate(.events(events, name: "x"), policies: policies)
        #expect(withPropensities.measure == .offPolicy)
        #expect(withPropensities.verdict?.metric == "ope_dr")
        #expect(withPropensities.loggingPolicies == [SmartStackEvaluation.LoggingPolicy(name: "uniform", impressions: 40)])
        let stripped = events.filter { if case .widgetImpression = $0.payload { return false }; return true }
        let logged = try Evaluator(options: Fixture.options(bootstrap: 50)).evaluate(.events(stripped, name: "x"), policies: policies)
        #expect(logged.measure == .logged)
        #expect(logged.verdict?.metric == "hit_at_1")
        #expect(ReportRenderer.markdown(logged).contains("record each `widget_impression` with its `propensity`"))
        let json = try #require(try JSONSerialization.jsonObject(with: logged.jsonData()) as? [String: Any])
        #expect(json["measure"] as? String == "logged")
    }

    @Test func twoPoliciesThatShowTheSameAreTiedAndNoneIsCrownedWinner() throws {
        let events = syntheticDataset(users: 3, days: 3, seed: 5)
        let report = try Evaluator(options: Fixture.options(bootstrap: 100))
            .evaluate(.events(events, name: "x"), policies: [staticFactory, PolicyFactory(name: "static-too") { _, _ in StaticPolicy() }])
        let verdict = try #require(report.verdict)
        #expect(verdict.winner == nil)
        #expect(Set(verdict.tied) == ["static", "static-too"])
        #expect(verdict.leadInterval == [0, 0])
    }

    /// The measure agrees, decision by decision, with the picks `export-decisions` prints joined
    /// to the truth file (what `Benchmarks/quality/run.py` computed before the evaluator did).
    @Test func onASimulatedSetItIsTheMeanIntentOfTheExportedPicks() throws {
        var events: [Event] = [], lines: [GroundTruthEntry] = []
        for u in 0..<2 {
            var sim = UserSimulator(persona: .commuter, userIndex: u, userName: "c\(u)", seed: 17,
                                    startDay: SimulationOptions.defaultStartDay, days: 9)
            while let day = sim.nextDay() { events += day.events; lines += day.truth }
        }
        let generated = (events: events, truth: lines)
        let truth = EvaluationTruth(truth: try GroundTruth(entries: generated.truth, source: "sim"),
                                    file: PolicyInputFile(path: "sim", digest: "sim"))
        var replay = Fixture.options(warmupDays: 2, bootstrap: 0)
        replay.threads = 2
        let spec = try PolicySpec(parsing: "mfu")
        let report = try Evaluator(options: replay).evaluate(.events(generated.events, name: "sim"), policies: [.engine(spec)], truth: truth)
        var sum = 0.0, ceiling = 0.0, n = 0
        _ = try DecisionExport(options: replay, policy: spec).run(.events(generated.events, name: "sim")) { r in
            guard r.isScored else { return }
            let e = try truth.truth.entry(user: r.user, stack: r.stack, at: r.time)
            let intent = try #require(e.intent)
            func value(_ w: String) -> Double { intent.first { $0.widget == w }?.probability ?? 0 }
            sum += r.pick.map(value) ?? 0
            ceiling += zip(r.candidates, r.eligible).filter(\.1).map { value($0.0) }.max() ?? 0
            n += 1
        }
        let m = report.policies[0].metrics
        #expect(m[.decisionsWithTruth] == Double(n))
        #expect(abs(try #require(m[.counterfactualEngagement]) - sum / Double(n)) < 1e-12)
        #expect(abs(try #require(m[.ceiling]) - ceiling / Double(n)) < 1e-12)
    }
}

/// Logged hit@1 follows the logger; counterfactual engagement does not.
@Suite struct LoggerBiasTests {
    /// Six people of the structureless persona (no time-of-day habits) with stacks of three,
    /// two weeks, logged by `logger`.
    static func run(logger: SimulationLogger, seed: UInt64) throws -> EvaluationReport {
        var variant = SimulationVariant()
        variant.logger = logger
        variant.stackSize = 3
        var events: [Event] = [], lines: [GroundTruthEntry] = []
        for u in 0..<6 {
            var sim = UserSimulator(persona: .structureless, userIndex: u, userName: "p\(u)", seed: seed,
                                    startDay: SimulationOptions.defaultStartDay, days: 14, variant: variant)
            while let day = sim.nextDay() { events += day.events; lines += day.truth }
        }
        let truth = EvaluationTruth(truth: try GroundTruth(entries: lines, source: "sim"), file: PolicyInputFile(path: "sim", digest: "sim"))
        var options = Fixture.options(bootstrap: 0)
        options.threads = 2
        let policies = try ["mfu", "time-of-day"].map { PolicyFactory.engine(try PolicySpec(parsing: $0)) }
        return try Evaluator(options: options).evaluate(.events(events, name: "sim"), policies: policies, truth: truth)
    }

    @Test(arguments: [UInt64(3), 4])
    func hitAt1RanksTheBaselinesByTheLoggerWhileTheCounterfactualRankingStaysPut(seed: UInt64) throws {
        func ranking(_ r: EvaluationReport, _ m: Metric) -> [String] {
            r.policies.sorted { ($0.metrics[m] ?? 0) > ($1.metrics[m] ?? 0) }.map(\.name)
        }
        let byHour = try Self.run(logger: .timeOfDay, seed: seed), byUsage = try Self.run(logger: .mfu, seed: seed)
        // Logged by the hour-of-day heuristic, hit@1 puts time-of-day first; by usage, mfu.
        #expect(ranking(byHour, .hitAt1) == ["time-of-day", "mfu"])
        #expect(ranking(byUsage, .hitAt1) == ["mfu", "time-of-day"])
        // What the people would have lived: mfu first, although the hour-of-day logger's hit@1
        // says otherwise. (Under the usage logger the two come within noise of each other: the
        // hour-of-day policy then learns from what mfu put on top.)
        #expect(ranking(byHour, .counterfactualEngagement) == ["mfu", "time-of-day"])
        #expect(byHour.loggingPolicies.first?.name == UserSimulator.loggingPolicyName)
    }
}
