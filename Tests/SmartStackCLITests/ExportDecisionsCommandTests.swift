import Foundation
import Testing
import SmartStack
@testable import SmartStackCLI
import SmartStackEvaluation

/// `smartstack export-decisions` in-process.
@Suite struct ExportDecisionsCommandTests {
    static var commuter: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Datasets/commuter.jsonl").path
    }

    @Test func writesOneLinePerDecisionAndAgreesWithEvaluate() throws {
        let dir = try TemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let out = dir.file("d.jsonl")
        let run = runTool(["export-decisions", Self.commuter, "--out", out, "--warmup-days", "3"])
        #expect(run.status == 0)
        #expect(run.standardOutput.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: out + ".partial"))
        let t = try Self.tally(try String(contentsOfFile: out, encoding: .utf8))
        let metrics = try Self.evaluateMetrics(["--warmup-days", "3"])
        #expect(metrics["decisions_with_target"] as? Double == Double(t.scoredWithTarget))
        let hit1 = try #require(metrics["hit_at_1"] as? Double)
        #expect(abs(hit1 - Double(t.hits) / Double(t.scoredWithTarget)) < 1e-12)
        #expect(run.standardError.contains("\(t.scoredWithTarget) scored with a target"))
    }

    /// The scored decisions with a target and the picks' hits among them, from an export.
    static func tally(_ output: String) throws -> (scoredWithTarget: Int, hits: Int, picks: [String]) {
        var scoredWithTarget = 0, hits = 0, picks: [String] = []
        for line in output.split(separator: "\n") {
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            picks.append(o["pick"] as? String ?? "-")
            guard o["scored"] as? Bool == true, let target = o["target"] as? [String] else { continue }
            scoredWithTarget += 1
            if let pick = o["pick"] as? String, target.contains(pick) { hits += 1 }
        }
        return (scoredWithTarget, hits, picks)
    }

    /// The `contextual` policy's metrics from `evaluate --json` on the commuter set with `extra`.
    static func evaluateMetrics(_ extra: [String]) throws -> [String: Any] {
        let eval = runTool(["evaluate", commuter, "--policies", "contextual", "--bootstrap", "0", "--json", "--quiet"] + extra)
        #expect(eval.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(eval.standardOutput.utf8)) as? [String: Any])
        let policies = try #require(report["policies"] as? [[String: Any]])
        return try #require(policies.first?["metrics"] as? [String: Any])
    }

    /// `--rotation` applies to the exported picks as to `evaluate`'s: undamped, the export's hit@1
    /// is evaluate's undamped hit@1, and its picks are not the default rotation's.
    @Test func rotationIsTheOneEvaluateUses() throws {
        let undamped = "margin=0,dwell=0s,cap=none,swipe_hold=0s"
        let run = runTool(["export-decisions", Self.commuter, "--warmup-days", "3", "--rotation", undamped, "--quiet"])
        #expect(run.status == 0)
        let damped = runTool(["export-decisions", Self.commuter, "--warmup-days", "3", "--quiet"])
        #expect(damped.status == 0)
        let t = try Self.tally(run.standardOutput), d = try Self.tally(damped.standardOutput)
        #expect(t.picks.count == d.picks.count && t.scoredWithTarget == d.scoredWithTarget)
        #expect(t.picks != d.picks)
        let metrics = try Self.evaluateMetrics(["--warmup-days", "3", "--rotation", undamped])
        let hit1 = try #require(metrics["hit_at_1"] as? Double)
        #expect(abs(hit1 - Double(t.hits) / Double(t.scoredWithTarget)) < 1e-12)
    }

    @Test func writesToStandardOutputWithoutOut() throws {
        let run = runTool(["export-decisions", Self.commuter, "--quiet", "--warmup-days", "0", "--time-replay"])
        #expect(run.status == 0)
        #expect(run.standardError.hasPrefix("replay of contextual alone (parsed events, record + decide): "))
        let first = try #require(run.standardOutput.split(separator: "\n").first)
        #expect(first.hasPrefix("{\"user\":\"commuter-"))
    }

    @Test(arguments: [
        (["export-decisions"], "missing dataset"),
        (["export-decisions", "x.jsonl", "--db", "y.db"], "either dataset files or --db"),
        (["export-decisions", "x.jsonl", "--window", "ten"], "--window"),
        (["export-decisions", "x.jsonl", "--bogus"], "--bogus"),
        (["export-decisions", "x.jsonl", "--rotation", "dwell=forever"], "--rotation"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) {
        let run = runTool(arguments)
        #expect(run.status == 64)
        #expect(run.standardError.contains("Error:") && run.standardError.contains(message))
    }

    @Test func failuresExit1WithWhatAndWhere() {
        let missing = runTool(["export-decisions", "/nonexistent/data.jsonl"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("cannot read dataset '/nonexistent/data.jsonl'"))
        let policy = runTool(["export-decisions", Self.commuter, "--policy", "nonsense"])
        #expect(policy.status == 64)
        #expect(policy.standardError.contains("nonsense"))
    }
}
