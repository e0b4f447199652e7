import Foundation
import Testing
import SmartStack
import SmartStackDatasets
@testable import SmartStackCLI

@Suite struct GenerateCommandTests {
    final class Captured: @unchecked Sendable {
        var out = ""
        var err = ""
    }

    func run(_ command: GenerateCommand) throws -> (Int32, Captured) {
        let captured = Captured()
        let output = CommandOutput(standardOutput: { captured.out += $0 }, standardError: { captured.err += $0 })
        return (try command.run(output), captured)
    }

    func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try body(dir)
    }

    @Test(arguments: [
        (["--days", "3"], "missing required option '--persona'"),
        (["--persona", "pilot", "--days", "3"], "unknown persona 'pilot' (valid: commuter, student, shiftworker, traveler, drift, sequence, structureless, cohort)"),
        (["--persona", "student"], "missing required option '--days'"),
        (["--persona", "student", "--days", "0"], "the value of '--days' must be greater than 0, got 0"),
        (["--persona", "student", "--days", "-2"], "the value of '--days' must be greater than 0, got -2"),
        (["--persona", "student", "--days", "two"], "the value of '--days' must be a whole number, got 'two'"),
        (["--persona", "student", "--days", "2", "--users", "0"], "the value of '--users' must be greater than 0, got 0"),
        (["--persona", "student", "--days", "2", "--seed", "-1"], "the value of '--seed' must be a whole number from 0 to 18446744073709551615, got '-1'"),
        (["--persona", "student", "--days", "2", "--seed", "12x"], "the value of '--seed' must be a whole number from 0 to 18446744073709551615, got '12x'"),
        (["--persona", "student", "--days", "2", "--start", "2026-02-30"], "start date '2026-02-30' does not exist: day 30 does not exist in 2026-02"),
        (["--persona", "student", "--days", "2", "--start", "tomorrow"], "start date must look like 2026-01-05, got 'tomorrow'"),
        (["--persona", "student", "--days", "2", "extra"], "unexpected argument 'extra'"),
        (["--persona", "student", "--days", "2", "--out", "a.jsonl", "--truth", "a.jsonl"], "'--truth' and '--out' name the same file 'a.jsonl'"),
        (["--persona", "student", "--days", "2", "--json"], "unknown option '--json'"),
        (["--persona", "student", "--days", "2", "--location", "gps"],
         "unknown location mode 'gps' (valid: dense, change-only, visits, geofence, none)"),
        (["--persona", "student", "--days", "2", "--stack-size", "three"], "the value of '--stack-size' must be a whole number, got 'three'"),
        (["--persona", "student", "--days", "2", "--stack-size", "1"], "stack size must be from 2 to 16, got 1"),
        (["--persona", "student", "--days", "2", "--stack-size", "17"], "stack size must be from 2 to 16, got 17"),
        (["--persona", "student", "--days", "2", "--no-screen-on=yes"], "'--no-screen-on' takes no value"),
        (["--persona", "student", "--days", "2", "--backfill-days", "-1"], "the value of '--backfill-days' must be a whole number from 0 to 3650, got '-1'"),
        (["--persona", "student", "--days", "2", "--backfill-days", "3651"], "backfill days must be from 0 to 3650, got 3651"),
    ])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) {
        let error = #expect(throws: UsageError.self) { try GenerateCommand(arguments: arguments) }
        #expect(error?.message == message)
    }

    @Test func parsesOptionsAndDerivesTheTruthPath() throws {
        let c = try GenerateCommand(arguments: ["--persona", "drift", "--days", "30", "--seed", "0x10", "--users", "4",
                                                "--start", "2025-03-03", "--out", "dir/drift.jsonl"])
        #expect(c.options.persona == .drift && c.options.days == 30 && c.options.users == 4 && c.options.seed == 16)
        #expect(c.options.startDay == 20_150)
        #expect(c.truthPath == "dir/drift.truth.jsonl")
        #expect(try GenerateCommand(arguments: ["--persona", "drift", "--days", "1", "--out", "x.out"]).truthPath == "x.out.truth.jsonl")
        #expect(try GenerateCommand(arguments: ["--persona", "drift", "--days", "1"]).truthPath == nil)
        #expect(try GenerateCommand(arguments: ["--persona", "drift", "--days", "1"]).options.seed == 1)
        #expect(GenerateCommand.help.contains("shiftworker"))
        #expect(c.options.variant.isDefault)
    }

    @Test func parsesTheRecordingAndStackOptions() throws {
        let c = try GenerateCommand(arguments: ["--persona", "sequence", "--days", "2", "--location", "change-only",
                                                "--no-screen-on", "--stack-size", "12"])
        #expect(c.options.persona == .sequence)
        #expect(c.options.variant.location == .changeOnly && !c.options.variant.recordsScreenOn && c.options.variant.stackSize == 12)
        #expect(c.options.variant.description == "location=change-only,screen_on=off,stack_size=12")
        for mode in LocationReporting.allCases {
            #expect(try GenerateCommand(arguments: ["--persona", "drift", "--days", "1", "--location", mode.rawValue]).options.variant.location == mode)
            #expect(GenerateCommand.help.contains(mode.rawValue))
        }
        #expect(GenerateCommand.help.contains("--no-screen-on") && GenerateCommand.help.contains("--stack-size <n>"))
    }

    @Test func generatesAHistoryBeforeTheStacks() throws {
        try withTemporaryDirectory { dir in
            let args = ["--persona", "commuter", "--days", "1", "--backfill-days", "3", "--out", dir + "/c.jsonl"]
            let c = try GenerateCommand(arguments: args)
            #expect(c.options.variant.backfillDays == 3)
            let (code, captured) = try run(c)
            #expect(code == 0)
            #expect(captured.err.contains("x 1 day(s) after 3 day(s) of app launches before the stacks, seed 1, variant backfill_days=3"))
            let text = try String(contentsOfFile: dir + "/c.jsonl", encoding: .utf8)
            let first = text.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first.contains("\"type\":\"app_launch\"") && first.contains("\"id\":\"h1\""))
        }
    }

    @Test func reportsTheVariantItGenerated() throws {
        try withTemporaryDirectory { dir in
            let args = ["--persona", "cohort", "--days", "1", "--users", "6", "--location", "visits", "--out", dir + "/c.jsonl"]
            let (code, captured) = try run(try GenerateCommand(arguments: args))
            #expect(code == 0)
            #expect(captured.err.contains("for 6 cohort user(s) x 1 day(s), seed 1, variant location=visits -> \(dir)/c.jsonl"))
            #expect(try GroundTruth.load(path: dir + "/c.truth.jsonl").users.count == 6)
        }
    }

    @Test func writesBothFilesAtomicallyAndReproducibly() throws {
        try withTemporaryDirectory { dir in
            let out = dir + "/s.jsonl"
            let args = ["--persona", "shiftworker", "--days", "3", "--users", "2", "--seed", "9", "--out", out]
            let (code, captured) = try run(try GenerateCommand(arguments: args))
            #expect(code == 0)
            #expect(captured.out.isEmpty)
            #expect(captured.err.contains("Ground truth:"))
            let first = try Data(contentsOf: URL(fileURLWithPath: out))
            let firstTruth = try Data(contentsOf: URL(fileURLWithPath: dir + "/s.truth.jsonl"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["s.jsonl", "s.truth.jsonl"])
            _ = try run(try GenerateCommand(arguments: args))
            #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == first)
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/s.truth.jsonl")) == firstTruth)
            let truth = try GroundTruth.load(path: dir + "/s.truth.jsonl")
            #expect(truth.users == ["shiftworker-00", "shiftworker-01"])
        }
    }

    /// The bundled datasets' datasheets, each with the command that regenerates its files.
    static let datasheets = ["commuter", "student", "shiftworker", "traveler", "drift",
                             "sequence", "structureless", "shiftworker-change-only", "cohort"]

    @Test(arguments: datasheets)
    func everyBundledDatasetIsWhatItsDatasheetsCommandGenerates(name: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Datasets")
        let sheet = try String(contentsOf: root.appendingPathComponent(name + ".md"), encoding: .utf8)
        guard let line = sheet.split(separator: "\n").first(where: { $0.hasPrefix("swift run -c release smartstack generate ") }) else {
            Issue.record("\(name).md has no regenerate command"); return
        }
        let arguments = line.split(separator: " ").dropFirst(6).map(String.init)
        let command = try GenerateCommand(arguments: arguments)
        #expect(command.outputPath == "Datasets/\(name).jsonl")
        var events: [UInt8] = [], truth: [UInt8] = []
        _ = DatasetGenerator.generate(command.options, events: { (b: [UInt8]) throws(Never) in events += b },
                                      truth: { (b: [UInt8]) throws(Never) in truth += b })
        #expect(events == Array(try Data(contentsOf: root.appendingPathComponent(name + ".jsonl"))), "\(name).jsonl")
        #expect(truth == Array(try Data(contentsOf: root.appendingPathComponent(name + ".truth.jsonl"))), "\(name).truth.jsonl")
    }

    @Test func writesEventsToStandardOutputWithoutOut() throws {
        try withTemporaryDirectory { dir in
            let (code, captured) = try run(try GenerateCommand(arguments: ["--persona", "commuter", "--days", "1", "--truth", dir + "/t.jsonl"]))
            #expect(code == 0)
            var reader = JSONLReader(bytes: Array(captured.out.utf8), name: "stdout")
            var n = 0
            while try reader.next() != nil { n += 1 }
            #expect(n > 100)
            #expect(try GroundTruth.load(path: dir + "/t.jsonl").count > 10)
        }
    }

    @Test func unwritableOutputFailsAndLeavesNothingBehind() throws {
        try withTemporaryDirectory { dir in
            let missing = try GenerateCommand(arguments: ["--persona", "commuter", "--days", "1", "--out", dir + "/no/such/x.jsonl"])
            let e1 = #expect(throws: CommandFailure.self) { try run(missing) }
            #expect(e1?.message.contains("cannot write '\(dir)/no/such/x.jsonl'") == true)
            let directory = try GenerateCommand(arguments: ["--persona", "commuter", "--days", "1", "--out", dir])
            let e2 = #expect(throws: CommandFailure.self) { try run(directory) }
            #expect(e2?.message.contains("is a directory") == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        }
    }
}
