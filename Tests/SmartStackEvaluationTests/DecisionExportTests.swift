import Foundation
import Testing
import SmartStack
@testable import SmartStackEvaluation

/// The decision export replays exactly the evaluator's decisions (issue 7).
@Suite struct DecisionExportTests {
    /// A bundled simulated persona (part of the repository).
    static var commuter: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Datasets/commuter.jsonl").path
    }

    static func evaluatorMetrics(_ source: EvaluationSource, options: ReplayOptions) throws -> MetricValues {
        var o = options
        o.bootstrapResamples = 0
        o.threads = 1
        let report = try Evaluator(options: o).evaluate(source, policies: [.engine(PolicySpec(name: PolicyRegistry.defaultPolicy))])
        return report.policies[0].metrics
    }

    @Test(arguments: [(7, true), (2, false)])
    func countsAndHitAt1MatchTheEvaluator(warmupDays: Int, mergeRepeats: Bool) throws {
        var options = ReplayOptions()
        options.warmupDays = warmupDays
        options.mergeRepeats = mergeRepeats
        options.offPolicyEstimates = false
        var records: [DecisionRecord] = []
        let summary = try DecisionExport(options: options).run(.files([Self.commuter])) { records.append($0) }
        let metrics = try Self.evaluatorMetrics(.files([Self.commuter]), options: options)

        let scored = records.filter(\.isScored)
        let withTarget = scored.filter { $0.target != nil }
        #expect(summary.decisions == records.count)
        #expect(Double(scored.count) == metrics[.decisions])
        #expect(Double(withTarget.count) == metrics[.decisionsWithTarget])
        #expect(summary.scoredWithTarget == withTarget.count)
        #expect(withTarget.count > 100)
        #expect(records.count > scored.count)   // the warm-up is exported, unscored
        let hits = withTarget.filter { $0.pick.map($0.target!.contains) == true }.count
        let hit1 = try #require(metrics[.hitAt1])
        #expect(abs(Double(hits) / Double(withTarget.count) - hit1) < 1e-12)
        let mrr = withTarget.reduce(0.0) { $0 + 1 / Double($1.targetRank!) } / Double(withTarget.count)
        #expect(abs(mrr - (metrics[.mrr] ?? -1)) < 1e-9)
    }

    @Test func recordsCarryFeaturesForEveryCandidateAndTheRawRanking() throws {
        var records: [DecisionRecord] = []
        _ = try DecisionExport().run(.files([Self.commuter])) { records.append($0) }
        let record = try #require(records.last { $0.isScored && $0.target != nil })
        #expect(record.features.count == record.candidates.count)
        #expect(record.features.allSatisfy { $0.count == FeatureVector.names.count && $0.allSatisfy(\.isFinite) })
        #expect(Set(record.ranking) == Set(record.candidates))
        #expect(Set(record.order) == Set(record.candidates))
        #expect(record.order.first == record.pick)
        // Features vary across candidates once usage has accumulated.
        #expect(Set(record.features.map { $0[0] }).count > 1)
        // Time order within each user.
        for (a, b) in zip(records, records.dropFirst()) where a.user == b.user {
            #expect(a.time.nanosecondsSinceEpoch <= b.time.nanosecondsSinceEpoch)
        }
        let line = record.jsonLine
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["user"] as? String == record.user)
        #expect(object["target"] as? [String] == record.target)
        #expect((object["features"] as? [[Double]])?.count == record.candidates.count)
    }

    /// Features and picks use the past only: altering every event after a decision leaves the
    /// records before it unchanged (apart from targets, which look ahead by design).
    @Test func featuresDoNotLeakTheFuture() throws {
        let base: Int64 = 1_704_096_000 * 1_000_000_000
        func at(_ m: Int) -> EventTime { EventTime(nanosecondsSinceEpoch: base + Int64(m) * 60_000_000_000, utcOffsetSeconds: 3600) }
        let apps = ["a", "b", "c"]
        var events = [Event(time: at(0), user: "u", payload: .stackConfig(stack: "s", widgets: apps.map { WidgetConfig(id: $0, app: "app.\($0)") }))]
        for k in 0..<200 {
            events.append(Event(time: at(k * 37 + 1), user: "u", payload: .screenOn))
            events.append(Event(time: at(k * 37 + 2), user: "u", payload: .appLaunch(app: "app.\(apps[(k * k + k / 3) % 3])")))
        }
        let cut = 120
        var altered = Array(events.prefix(1 + 2 * cut))
        for k in cut..<200 {
            altered.append(Event(time: at(k * 37 + 1), user: "u", payload: .screenOn))
            altered.append(Event(time: at(k * 37 + 3), user: "u", payload: .appLaunch(app: "app.a")))
        }
        var options = ReplayOptions()
        options.warmupDays = 0
        func export(_ e: [Event]) throws -> [DecisionRecord] {
            var out: [DecisionRecord] = []
            _ = try DecisionExport(options: options).run(.events(e, name: "t")) { out.append($0) }
            return out
        }
        let a = try export(events), b = try export(altered)
        #expect(a.count == 200 && b.count == 200)
        for k in 0...cut {
            var x = a[k], y = b[k]
            x.target = nil; y.target = nil
            #expect(x == y)
        }
        #expect(a[cut + 5] != b[cut + 5])
    }
}
