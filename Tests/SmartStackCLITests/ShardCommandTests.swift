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
}
