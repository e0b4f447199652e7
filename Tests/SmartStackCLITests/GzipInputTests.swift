import Foundation
import Testing
import SmartStack
import SmartStackDatasets
@testable import SmartStackCLI

/// Logs that arrive compressed: `ingest`, `evaluate` and `export-decisions` read gzip JSONL,
/// recognised by its first bytes, exactly as the plain file.
@Suite struct GzipInputTests {
    final class Workspace {
        let dir: String
        let plain: String
        let packed: String

        init() throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-input-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            plain = dir + "/data.jsonl"
            packed = dir + "/data-packed.jsonl"   // gzip under a .jsonl name: the bytes decide
            let events = try String(contentsOfFile: "Datasets/commuter.jsonl", encoding: .utf8)
            let firstUser = events.split(separator: "\n").prefix(4_000).joined(separator: "\n") + "\n"
            try Data(firstUser.utf8).write(to: URL(fileURLWithPath: plain))
            try Data(GzipWriter.compress(Array(firstUser.utf8))).write(to: URL(fileURLWithPath: packed))
        }

        deinit { try? FileManager.default.removeItem(atPath: dir) }
    }

    static func run(_ command: some SubcommandProtocol) throws -> String {
        var out = ""
        let output = CommandOutput(standardOutput: { out += $0 }, standardError: { _ in })
        #expect(try command.run(output) == 0)
        return out
    }

    @Test func ingestStoresTheSameEvents() throws {
        let w = try Workspace()
        _ = try Self.run(IngestCommand(arguments: [w.plain, "--db", w.dir + "/a.db"]))
        _ = try Self.run(IngestCommand(arguments: [w.packed, "--db", w.dir + "/b.db"]))
        let a = try Self.run(ExportCommand(arguments: ["--db", w.dir + "/a.db"]))
        let b = try Self.run(ExportCommand(arguments: ["--db", w.dir + "/b.db"]))
        #expect(a.split(separator: "\n").count == 4_000)
        #expect(a == b)
    }

    @Test func evaluateAndExportDecisionsGiveTheSameOutput() throws {
        let w = try Workspace()
        let options = ["--policies", "static,contextual", "--bootstrap", "20", "--json"]
        let a = try Self.run(EvaluateCommand(arguments: [w.plain] + options))
        let b = try Self.run(EvaluateCommand(arguments: [w.packed] + options))
        // Only the dataset's name and source differ.
        let strip = { (s: String) in
            s.split(separator: "\n").filter { !$0.contains(w.dir) && !$0.contains("\"name\" : \"data") && !$0.contains("\"generated\"") }
        }
        #expect(strip(a) == strip(b))
        let c = try Self.run(ExportDecisionsCommand(arguments: [w.plain]))
        let d = try Self.run(ExportDecisionsCommand(arguments: [w.packed]))
        #expect(!c.isEmpty && c == d)
    }
}
