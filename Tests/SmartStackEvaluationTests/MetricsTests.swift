import Foundation
import Testing
import SmartStack
@testable import SmartStackEvaluation

@Suite struct MetricsTests {
    /// The hand-computed scenario: stack s = [a, b, c, d], screen_on sessions, a scripted
    /// policy showing a, b, a, c at the four decision points (minutes 1, 20, 30, 50).
    static let scenario: [Event] = [
        Fixture.config(0, ["a", "b", "c", "d"]),
        Fixture.screen(1), Fixture.launch(3, "b"),          // d1 top a, target b (rank 2)
        Fixture.screen(20), Fixture.launch(25, "b"),        // d2 top b, target b (rank 1); a -> b
        Fixture.screen(30), Fixture.launch(45, "c"),        // d3 top a, no target (15 min > 10); b -> a flicker
        Fixture.screen(50), Fixture.launch(52, "c"),        // d4 top c, target c; a -> c, a never engaged
        Fixture.launch(53, "c"),                            // repeat, merged away
    ]

    static func run() throws -> (UserReplayResult, MetricValues) {
        let r = try Fixture.replay(scenario, policies: [ScriptedPolicy(["a", "b", "a", "c"])])
        return (r, Fixture.metrics(r))
    }

    @Test func accuracyMetricsMatchHandComputation() throws {
        let (_, m) = try Self.run()
        #expect(m[.decisions] == 4)
        #expect(m[.decisionsWithTarget] == 3)
        #expect(m[.hitAt1] == 2.0 / 3)
        #expect(m[.hitAt3] == 1)
        #expect(abs(m[.mrr]! - 2.5 / 3) < 1e-12)
        #expect(abs(m[.ndcgAt3]! - (1 / log2(3.0) + 2) / 3) < 1e-12)
    }

    @Test func stabilityMetricsMatchHandComputation() throws {
        let (_, m) = try Self.run()
        // Three rotations, all within the 08:00 hour: one active hour.
        #expect(m[.rotationsPerActiveHour] == 3)
        // b -> a at 30 returns to a, replaced at 20: 10 minutes <= 15, a flicker.
        #expect(m[.flickerRate] == 1.0 / 3)
        // Dwells: a 1->20 (19), b 20->30 (10), a 30->50 (20); c's is unfinished.
        #expect(m[.medianDwellMinutes] == 19)
        // Only the rotation to a at 30 is not followed by an engagement of a.
        #expect(m[.unnecessaryRotationRate] == 1.0 / 3)
        // a, b and c were on top; d never: 3 of 4.
        #expect(m[.coverage] == 0.75)
    }

    @Test func hitAtThreeAndNDCGCountRanksUpToThreeOnly() throws {
        // Static order [a, b, c, d]: targets d (rank 4) and c (rank 3).
        let events = [Fixture.config(0, ["a", "b", "c", "d"]),
                      Fixture.screen(1), Fixture.launch(2, "d"),
                      Fixture.screen(30), Fixture.launch(31, "c")]
        let m = Fixture.metrics(try Fixture.replay(events, policies: [StaticPolicy()]))
        #expect(m[.hitAt1] == 0)
        #expect(m[.hitAt3] == 0.5)
        #expect(abs(m[.mrr]! - (0.25 + 1.0 / 3) / 2) < 1e-12)
        #expect(abs(m[.ndcgAt3]! - 0.5 / log2(4.0)) < 1e-12)
        #expect(m[.rotationsPerActiveHour] == 0)
        #expect(m[.flickerRate] == nil)              // no rotation: undefined, not 0
        #expect(m[.medianDwellMinutes] == nil)
        #expect(m[.coverage] == 0.25)
    }

    @Test func returnAfterFlickerWindowIsNoFlicker() throws {
        let events = [Fixture.config(0, ["a", "b"]),
                      Fixture.screen(1), Fixture.screen(10), Fixture.screen(40)]
        let m = Fixture.metrics(try Fixture.replay(events, policies: [ScriptedPolicy(["a", "b", "a"])]))
        // a -> b at 10, b -> a at 40: 30 minutes after, more than 15.
        #expect(m[.flickerRate] == 0)
        #expect(m[.unnecessaryRotationRate] == 1)
        #expect(m[.medianDwellMinutes] == 19.5) // 9 and 30
    }

    @Test func activeHoursCountDistinctLocalHoursWithDecisions() throws {
        // Decisions at 08:01, 08:50, 09:10 and 11:00 UTC: three active hours, three rotations.
        let events = [Fixture.config(0, ["a", "b"]),
                      Fixture.screen(1), Fixture.screen(50), Fixture.screen(70), Fixture.screen(180)]
        let m = Fixture.metrics(try Fixture.replay(events, policies: [ScriptedPolicy(["a", "b", "a", "b"])]))
        #expect(m[.rotationsPerActiveHour] == 1)
    }

    @Test func bootstrapIsReproducibleWithItsSeedAndIndependentOfThreads() throws {
        let events = syntheticDataset(users: 6, days: 5, seed: 3)
        var o = Fixture.options(bootstrap: 300, threads: 1)
        let a = try Evaluator(options: o).evaluate(.events(events, name: "syn"), policies: [staticFactory, recentFactory()])
        o.threads = 3
        let b = try Evaluator(options: o).evaluate(.events(events, name: "syn"), policies: [staticFactory, recentFactory()])
        o.seed = 99
        let c = try Evaluator(options: o).evaluate(.events(events, name: "syn"), policies: [staticFactory, recentFactory()])
        #expect(a.policies[0].ci == b.policies[0].ci)
        #expect(a.policies[1].ci == b.policies[1].ci)
        #expect(a.policies[0].ci != c.policies[0].ci)
        let hit = try #require(a.policies[0].ci[.hitAt1])
        let point = try #require(a.policies[0].metrics[.hitAt1])
        #expect(hit.lowerBound < point && point < hit.upperBound)
    }

    @Test func percentileIntervalUsesType7Quantiles() {
        let values = (0...100).map(Double.init)
        let ci = Bootstrap.percentileInterval(values, level: 0.95)
        #expect(abs(ci!.lowerBound - 2.5) < 1e-9 && abs(ci!.upperBound - 97.5) < 1e-9)
        // Mostly undefined resamples give no interval rather than a misleading one.
        #expect(Bootstrap.percentileInterval([1, .nan, .nan], level: 0.95) == nil)
    }

    @Test func pairedDifferenceIsPolicyMinusReferenceOnTheSameDecisions() throws {
        let events = syntheticDataset(users: 5, days: 4, seed: 11)
        let report = try Evaluator(options: Fixture.options(bootstrap: 200))
            .evaluate(.events(events, name: "syn"), policies: [staticFactory, recentFactory()], reference: "static")
        #expect(report.policies[0].paired == nil)
        let paired = try #require(report.policies[1].paired)
        #expect(paired.reference == "static")
        for m in [Metric.hitAt1, .mrr, .coverage] {
            let d = try #require(paired.difference[m])
            #expect(abs(d - (report.policies[1].metrics[m]! - report.policies[0].metrics[m]!)) < 1e-12)
        }
        // Same decisions: the decision count difference is exactly zero.
        #expect(paired.difference[.decisions] == 0)
        let ci = try #require(paired.ci[.hitAt1])
        #expect(ci.lowerBound <= paired.difference[.hitAt1]! && paired.difference[.hitAt1]! <= ci.upperBound)
    }

    @Test func reportJSONHasTheDocumentedKeysAndRoundTrips() throws {
        let events = syntheticDataset(users: 3, days: 3, seed: 5)
        let report = try Evaluator(options: Fixture.options(bootstrap: 50))
            .evaluate(.events(events, name: "syn"), policies: [staticFactory, recentFactory()], reference: "static")
        let data = try report.jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys).isSuperset(of: ["dataset", "options", "policies"]))
        let options = try #require(object["options"] as? [String: Any])
        #expect(options["window_minutes"] as? Double == 10)
        #expect(options["merge_repeats"] as? Bool == true)
        #expect(options["warmup_days"] as? Int == 0)
        #expect(options["rotation"] as? String == "margin=0.1,dwell=15m,cap=48,swipe_hold=10m,confidence=0.95,new_confidence=0.8")
        let policies = try #require(object["policies"] as? [[String: Any]])
        let metrics = try #require(policies[0]["metrics"] as? [String: Any])
        #expect(Set(metrics.keys) == Set(Metric.allCases.map(\.rawValue)))
        let ci = try #require(policies[0]["ci"] as? [String: Any])
        #expect((ci["hit_at_1"] as? [Double])?.count == 2)
        #expect((policies[0]["by_hour"] as? [Any])?.count == 24)
        #expect((policies[0]["by_user"] as? [Any])?.count == 3)
        #expect(policies[1]["paired"] is [String: Any])
        #expect(try EvaluationReport(jsonData: data) == report)
    }
}
