import Foundation
import SmartStack
@testable import SmartStackCLI
import Testing

extension ConformanceTests {
    /// The scenarios through `smartstack` where it has the verb: `ingest` records (a configuration
    /// or a pin is a line), `rank --at` ranks, `forget` erases; run in-process from the bytes of
    /// the arguments, exactly as the executable's `main` runs them.
    @Test func everyScenarioThroughTheCommandLineWhereItHasTheVerb() throws {
        let scenarios = try Conformance.scenarios()
        var failures: [String] = []
        var skipped: [String] = []
        var stepsRun = 0
        for scenario in scenarios {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            var runner = try CommandLineDoor(scenario, directory: directory)
            failures += runner.run(skipped: &skipped)
            stepsRun += runner.stepsRun
        }
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
        #expect(stepsRun >= 120, "only \(stepsRun) steps ran through the command line")
        print("conformance (command line): \(scenarios.count) scenarios, \(stepsRun) steps run, \(skipped.count) steps not expressible")
    }
}

/// One scenario through the command line: a log in a temporary directory, one command per step.
struct CommandLineDoor {
    let scenario: JSONValue
    let directory: TemporaryDirectory
    let database: String
    let policy: String?
    var stepsRun = 0
    var files = 0

    init(_ scenario: JSONValue, directory: TemporaryDirectory) throws {
        self.scenario = scenario
        self.directory = directory
        database = directory.file("events.db")
        policy = scenario["open"]?["policy"]?.string
        _ = try EventStore(path: database)   // the log every command of the scenario uses
    }

    /// Runs `smartstack <arguments>` from argument bytes, as `main` does.
    func tool(_ arguments: [[UInt8]]) -> ToolRun {
        var out: [UInt8] = []
        var err = ""
        let output = CommandOutput(standardOutput: { out += Array($0.utf8) }, standardError: { err += $0 })
        output.standardOutputBytes = { out += $0 }
        let status = CommandLineTool.run(argumentBytes: arguments, output: output)
        return ToolRun(status: status, standardOutput: String(decoding: out, as: UTF8.self), standardError: err)
    }

    /// An argument: at most 128 KiB, the most Linux passes as one (MAX_ARG_STRLEN).
    static func argument(_ value: JSONValue?) throws -> [UInt8] {
        guard let value, value != .null else { throw Inexpressible("NULL: an argument is never NULL") }
        let bytes = try Conformance.bytes(value)
        guard bytes.count <= 128 * 1024 else { throw Inexpressible("an argument over 128 KiB, which Linux does not pass") }
        guard !bytes.contains(0) else { throw Inexpressible("a NUL inside an argument, where a C string ends") }
        return bytes
    }

    /// An instant as `--at` or an event's `time` writes it: RFC 3339.
    static func instant(_ value: JSONValue?) throws -> String {
        guard let value else { throw ConformanceFailure("no instant") }
        if let text = value.string { return text }
        if value["wrong_type"] != nil { throw Inexpressible("a value of another type: every argument is text") }
        let offset = Int32(value["offset"]!.int!)
        guard offset % 60 == 0, abs(offset) <= 23 * 3600 + 59 * 60 else {
            throw Inexpressible("offset \(offset) s: RFC 3339 writes whole minutes within ±23:59")
        }
        return EventTime(nanosecondsSinceEpoch: Int64(value["unix_ns"]!.string!)!, utcOffsetSeconds: offset).rfc3339
    }

    /// Writes a batch to a new file of the scenario's directory.
    mutating func file(_ bytes: [UInt8]) throws -> [UInt8] {
        files += 1
        let path = directory.file("batch-\(files).jsonl")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return Array(path.utf8)
    }

    /// A JSON string of raw bytes (names may be bytes that are not UTF-8: written as they are).
    static func jsonString(_ value: JSONValue?) throws -> [UInt8] {
        guard let value, value != .null else { throw Inexpressible("NULL: a JSON field is absent or null, never NULL") }
        if let text = value.string { return Array(JSONValue.string(text).jsonText().utf8) }
        return [0x22] + (try Conformance.bytes(value)) + [0x22]
    }

    /// The kinds a usage error (exit 64) stands for: the argument ones.
    static let argumentKinds: Set<String> = ["INVALID_ARGUMENT", "NULL_ARGUMENT", "INVALID_UTF8"]

    mutating func outcome(_ step: JSONValue) throws -> (StepOutcome, expectation: JSONValue) {
        let call = step["call"]!.string!
        var arguments: [[UInt8]]
        var expectation = step
        switch call {
        case "configure", "pin", "unpin":
            var line = Array(#"{"time":"#.utf8) + (try Self.jsonString(.string(try Self.instant(step["at"]))))
                + Array(#","type":"#.utf8)
            line += Array((call == "configure" ? #""stack_config""# : #""widget_\#(call)""#).utf8)
            line += Array(#","user":"#.utf8) + (try Self.jsonString(step["user"]))
            line += Array(#","stack":"#.utf8) + (try Self.jsonString(step["stack"]))
            if call == "configure" {
                guard let widgets = step["widgets"]?.array else { throw Inexpressible("a value of another type: a line is text") }
                line += Array(#","widgets":["#.utf8)
                for (i, w) in widgets.enumerated() {
                    line += Array(((i > 0 ? "," : "") + #"{"id":"#).utf8) + (try Self.jsonString(w["id"]))
                    if let app = w["app"], app != .null { line += Array(#","app":"#.utf8) + (try Self.jsonString(app)) }
                    line += [0x7D]
                }
                line += [0x5D]
                // A configuration is a line here: what configure refuses as an argument, ingest
                // refuses as a line (Conformance/README.md, "as_line").
                if let asLine = step["expect"]?["as_line"] { expectation = .object([("call", .string(call)), ("expect", asLine)]) }
            } else {
                line += Array(#","widget":"#.utf8) + (try Self.jsonString(step["widget"]))
            }
            line += Array("}\n".utf8)
            arguments = [Array("ingest".utf8), try file(line), Array("--db".utf8), Array(database.utf8)]
        case "record":
            arguments = [Array("ingest".utf8), try file(try Conformance.batch(step)), Array("--db".utf8), Array(database.utf8)]
        case "rank":
            arguments = ["rank", "--db", database, "--json"].map { Array($0.utf8) }
            arguments += [Array("--stack".utf8), try Self.argument(step["stack"]), Array("--user".utf8), try Self.argument(step["user"]),
                          Array("--at".utf8), Array(try Self.instant(step["at"]).utf8)]
            if let policy { arguments += [Array("--policy".utf8), Array(policy.utf8)] }
        case "forget", "erase":
            let option = call == "forget" ? "--user" : "--app"
            arguments = [Array("forget".utf8), Array("--db".utf8), Array(database.utf8), Array(option.utf8),
                         try Self.argument(step[call == "forget" ? "user" : "app"])]
        case "flush", "reopen":
            return (.done, step)   // every command saves and closes the log before it ends
        case "open":
            guard let policy = step["policy"]?.string, step["rotation"] == nil else {
                throw Inexpressible("a rotation is no option of rank")
            }
            // The policy is an option of each command: rank checks it before anything else.
            let run = tool(["rank", "--db", database, "--stack", "s", "--user", "conformance-nobody", "--at",
                            "2026-03-02T08:00:00Z", "--policy", policy].map { Array($0.utf8) })
            if run.standardError.contains("unknown user 'conformance-nobody'") { return (.done, step) }
            return (.refused(kind: run.status == 64 ? "USAGE" : "COMMAND", message: run.standardError), step)
        case "decide": throw Inexpressible("no decide verb: the command line ranks, it does not rotate")
        case "close": throw Inexpressible("no handle: each command opens and closes the log")
        case "threads": throw Inexpressible("one command is one process (concurrent writers: StoreConcurrencyTests)")
        case let other: throw ConformanceFailure("unknown call \(other)")
        }
        let run = tool(arguments)
        guard run.status == 0 else {
            return (.refused(kind: run.status == 64 ? "USAGE" : "COMMAND", message: run.standardError), expectation)
        }
        switch call {
        case "rank":
            let answer = try JSONValue.parse(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
            let order = answer["ranking"]!.array!.map { $0["widget"]!.string! }
            return (.answer(top: order.first, order: order, rotated: nil), expectation)
        case "forget", "erase":
            let count = run.standardOutput.split(separator: ":").dropFirst().first.flatMap { Int($0.split(separator: " ").first ?? "") }
            return (.deleted(count ?? -1), expectation)
        default:
            // "ingested 3 events (1 duplicate skipped) into ..."
            let words = run.standardOutput.split(whereSeparator: { $0 == " " || $0 == "(" })
            return (.recorded(inserted: Int(words[1]) ?? -1, duplicates: Int(words[3]) ?? -1), expectation)
        }
    }

    mutating func run(skipped: inout [String]) -> [String] {
        let name = scenario["name"]!.string!
        var failures: [String] = []
        for (number, step) in scenario["steps"]!.array!.enumerated() {
            let place = "\(name) step \(number + 1) (\(step["call"]!.string!))"
            do {
                let (outcome, expectation) = try outcome(step)
                stepsRun += 1
                if case let .refused(kind, message) = outcome {
                    // Exit 64 stands for the argument kinds, 1 for any refusal; the words must match.
                    let expected = expectation["expect"]?["error"]?.string
                    if kind == "USAGE", let expected, !Self.argumentKinds.contains(expected) {
                        failures.append("\(place): a usage error (exit 64) for \(expected): \(message.prefix(300))")
                    }
                    failures += Conformance.check(.refused(kind: expected ?? kind, message: message), against: expectation, where: place)
                } else {
                    failures += Conformance.check(outcome, against: expectation, where: place)
                }
            } catch {
                skipped.append("\(place): \(error)")
                if step["expect"]?["error"] == nil { break }
            }
        }
        return failures
    }
}
