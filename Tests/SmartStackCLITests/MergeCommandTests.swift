import Foundation
import Testing
@testable import SmartStackCLI

/// `smartstack merge`: what it tells the reader about the partials it combines.
@Suite struct MergeCommandTests {
    /// Two days of two simulated commuters (with their truth file), split into two shards.
    final class Shards {
        let dir: String
        var truth: String { dir + "/x.truth.jsonl" }
        var shards: [String] { (0..<2).map { dir + "/s/shard-0000\($0)-of-00002.jsonl" } }

        init() throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("merge-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for arguments in [["generate", "--persona", "commuter", "--days", "2", "--users", "2", "--seed", "3", "--out", dir + "/x.jsonl"],
                              ["shard", dir + "/x.jsonl", "--shards", "2", "--out", dir + "/s"]] {
                let run = runTool(arguments)
                guard run.status == 0 else { throw CommandFailure("\(arguments[0]) failed: \(run.standardError)") }
            }
        }

        /// Evaluates each shard into a partial with `extra` options, then merges them.
        func merge(_ extra: [String]) throws -> ToolRun {
            var partials: [String] = []
            for (i, shard) in shards.enumerated() {
                let partial = dir + "/p\(i)-\(UUID().uuidString).partial"
                let run = runTool(["evaluate", shard, "--warmup-days", "0", "--bootstrap", "0", "--partial", partial] + extra)
                guard run.status == 0 else { throw CommandFailure("evaluate failed: \(run.standardError)") }
                partials.append(partial)
            }
            return runTool(["merge"] + partials)
        }

        deinit { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// The shards' names find no truth file beside them, so `--policies all` runs without the
    /// oracle; the merge says so instead of leaving it out silently.
    @Test func warnsWhenThePartialsCarryNoTruth() throws {
        let shards = try Shards()
        let run = try shards.merge(["--policies", "all"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("warning: " + MergeCommand.noTruthWarning), "\(run.standardError)")
        #expect(run.standardOutput.contains("Warning: " + MergeCommand.noTruthWarning))   // and in the report
        #expect(!run.standardOutput.contains("\noracle "))   // no oracle row
    }

    @Test func isQuietWhenEveryShardReadTheTruth() throws {
        let shards = try Shards()
        let run = try shards.merge(["--policies", "all", "--truth", shards.truth])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("oracle"))
        #expect(!run.standardError.contains("warning"), "\(run.standardError)")
    }
}
