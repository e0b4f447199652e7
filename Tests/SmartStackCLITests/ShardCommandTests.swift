import Foundation
import Testing
import SmartStack
import SmartStackDatasets
@testable import SmartStackCLI

/// `smartstack shard`: arguments, the files it writes, and its JSON summary.
@Suite struct ShardCommandTests {
    @Test(arguments: [
        (["a.jsonl", "--out", "d"], "missing required option '--shards'"),
        (["a.jsonl", "--shards", "0", "--out", "d"], "invalid value '0' for '--shards': expected an integer from 1 to 100000"),
        (["--shards", "2", "--out", "d"], "missing argument <file ...>"),
        (["-", "--shards", "2", "--out", "d"], "shard reads files, not standard input ('-')"),
        (["a.jsonl", "--shards", "2"], "missing required option '--out'"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { _ = try ShardCommand(arguments: arguments) }
    }

    @Test func writesEveryShardAndSummarisesThemAsJSON() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shard-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var bytes: [UInt8] = []
        for (i, user) in ["ann", "bob", "cy", "dee"].enumerated() {
            for k in 0..<3 {
                JSONLWriter.append(Event(time: EventTime(nanosecondsSinceEpoch: Int64(i * 10 + k) * 1_000_000_000, utcOffsetSeconds: 0),
                                         user: user, payload: .screenOn), to: &bytes)
            }
        }
        let input = dir + "/in.jsonl.gz"
        try Data(GzipWriter.compress(bytes)).write(to: URL(fileURLWithPath: input))
        var out = ""
        let output = CommandOutput(standardOutput: { out += $0 }, standardError: { _ in })
        let code = try ShardCommand(arguments: [input, "--shards", "3", "--out", dir + "/shards", "--json"]).run(output)
        #expect(code == 0)
        let summary = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: Any]
        #expect(summary["events"] as? Int == 12)
        #expect(summary["users"] as? Int == 4)
        let shards = summary["shards"] as! [[String: Any]]
        #expect(shards.map { $0["shard"] as? Int } == [0, 1, 2])
        for shard in shards {
            let path = shard["path"] as! String
            #expect(path == dir + "/shards/" + DatasetSharder.fileName(index: shard["shard"] as! Int, count: 3))
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.split(separator: "\n").count == shard["events"] as! Int)
        }
    }

    /// A shard-per-worker pipeline on a small input: 3 users in 3 shards leaves one shard empty
    /// (by the hash), which `evaluate --partial` takes as a partial of no users and `merge`
    /// merges as nothing — the report is the single run's. A dataset with no events at all is
    /// still refused, by `evaluate` and by `merge` of empty partials alone.
    @Test func anEmptyShardIsAPartialOfNoUsersThatMergesAsNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let data = directory.file("data.jsonl")
        #expect(runTool(["generate", "--persona", "commuter", "--days", "10", "--users", "3", "--seed", "7", "--out", data]).status == 0)
        let shards = directory.file("shards")
        let sharded = runTool(["shard", data, "--shards", "3", "--out", shards, "--json"])
        #expect(sharded.status == 0, "\(sharded.standardError)")
        let summary = try JSONValue.parse(sharded.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        let counts = summary["shards"]!.array!.map { $0["users"]!.int! }
        try #require(counts.contains(0), "seed 7's three users no longer leave a shard empty: \(counts)")
        var partials: [String] = []
        for (k, shard) in summary["shards"]!.array!.enumerated() {
            let partial = directory.file("shard-\(k).partial")
            // The truth file the single run finds next to the data, given to every shard.
            let run = runTool(["evaluate", shard["path"]!.string!, "--truth", directory.file("data.truth.jsonl"), "--quiet",
                               "--partial", partial])
            #expect(run.status == 0, "\(run.standardError)")
            partials.append(partial)
        }
        let merged = runTool(["merge"] + partials + ["--json", "--name", "data", "--source", data])
        let single = runTool(["evaluate", data, "--json"])
        #expect(merged.status == 0 && single.status == 0, "\(merged.standardError) \(single.standardError)")
        func withoutProvenance(_ text: String) throws -> JSONValue {
            guard case .object(let fields) = try JSONValue.parse(text) else { return .null }
            return .object(fields.filter { $0.key != "provenance" })
        }
        #expect(try withoutProvenance(merged.standardOutput) == withoutProvenance(single.standardOutput))

        let empty = partials[counts.firstIndex(of: 0)!]
        let alone = runTool(["merge", empty])
        #expect(alone.status == 1 && alone.standardError.contains("the dataset has no events"), "\(alone.standardError)")
        let nothing = try directory.write("nothing.jsonl", "")
        let evaluated = runTool(["evaluate", nothing])
        #expect(evaluated.status == 1 && evaluated.standardError.contains("the dataset has no events (read: \(nothing))"),
                "\(evaluated.standardError)")
    }
}
