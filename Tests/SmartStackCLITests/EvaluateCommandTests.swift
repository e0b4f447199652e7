import Foundation
import Testing
import SmartStack
@testable import SmartStackCLI
import SmartStackEvaluation

@Suite struct EvaluateCommandTests {
    @Test func defaultsAreDocumented() throws {
        let c = try EvaluateCommand(arguments: ["data.jsonl"])
        #expect(c.datasets == ["data.jsonl"])
        #expect(c.policies == ["all"])
        #expect(c.options.window == 600)
        #expect(c.options.mergeRepeats)
        #expect(c.options.warmupDays == 7)
        #expect(c.options.seed == 0)
        #expect(c.options.bootstrapResamples == 1000)
        #expect(c.options.threads == ReplayOptions.availableCores)
        #expect(!c.json && !c.quiet && c.reportDirectory == nil && !c.options.byDay)
        #expect(try EvaluateCommand(arguments: ["data.jsonl", "--by-day", "--partial", "p"]).options.byDay)
        for text in ["--window <duration>", "(default: 10m)", "--warmup-days", "(default: 7)", "--merge-repeats", "--reference", "--report"] {
            #expect(EvaluateCommand.help.contains(text))
        }
    }

    /// `--policies` help names every name it accepts, `all` and `oracle` among them, one per
    /// word (not cut across lines).
    @Test func policiesHelpListsEveryValidName() throws {
        let row = try #require(EvaluateCommand.help.components(separatedBy: "--policies <list>").dropFirst().first)
        let text = row.components(separatedBy: "\n  --")[0].split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for name in ["all", "oracle"] + PolicyRegistry.names {
            #expect(text.contains(" \(name),") || text.contains(" \(name) "), "\(name) missing from: \(text)")
        }
        #expect(EvaluateCommand.policiesHelp.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test func optionsAreParsed() throws {
        let c = try EvaluateCommand(arguments: [
            "a.jsonl", "b.jsonl", "--policies", "static,contextual:half_life=14d,alpha=2,mru", "--policies=frecency",
            "--reference", "static", "--window", "90s", "--no-merge-repeats", "--warmup-days", "0", "--seed", "42",
            "--bootstrap", "0", "--threads", "3", "--report", "out", "--json", "--quiet", "--truth", "t.jsonl"])
        #expect(c.datasets == ["a.jsonl", "b.jsonl"])
        #expect(c.policies == ["static", "contextual:half_life=14d,alpha=2", "mru", "frecency"])
        #expect(c.reference == "static")
        #expect(c.options.window == 90)
        #expect(!c.options.mergeRepeats)
        #expect(c.options.warmupDays == 0)
        #expect(c.options.seed == 42)
        #expect(c.options.bootstrapResamples == 0)
        #expect(c.options.threads == 3)
        #expect(c.reportDirectory == "out" && c.json && c.quiet && c.truth == "t.jsonl")
    }

    @Test(arguments: [("10m", 600.0), ("1.5h", 5400), ("45s", 45), ("1d", 86_400)])
    func durations(text: String, seconds: Double) throws {
        #expect(try ReplayArguments.parseDuration(text, option: "--window") == seconds)
    }

    @Test(arguments: [
        ([], "missing dataset"),
        (["a.jsonl", "--db", "x.db"], "not both"),
        (["-"], "standard input"),
        (["a.jsonl", "--window", "10"], "--window"),
        (["a.jsonl", "--window", "-5m"], "--window"),
        (["a.jsonl", "--threads", "0"], "--threads"),
        (["a.jsonl", "--warmup-days", "x"], "--warmup-days"),
        (["a.jsonl", "--seed", "-1"], "--seed"),
        (["a.jsonl", "--policies", "static,,mru"], "empty policy"),
        (["a.jsonl", "--merge-repeats", "--no-merge-repeats"], "only one"),
        (["a.jsonl", "--frobnicate"], "unknown option"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect {
            _ = try EvaluateCommand(arguments: arguments)
        } throws: { error in
            guard let e = error as? UsageError else { return false }
            return e.message.contains(message)
        }
    }

    @Test func anUnreadableDatasetIsAFailureNamingTheFile() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString).jsonl").path
        let c = try EvaluateCommand(arguments: [missing, "--policies", "static"])
        var err = ""
        let output = CommandOutput(standardOutput: { _ in }, standardError: { err += $0 })
        #expect {
            _ = try c.run(output)
        } throws: { error in
            guard let f = error as? CommandFailure else { return false }
            return f.message.contains(missing) && f.message.contains("no such file")
        }
    }

    @Test func truthFileIsFoundNextToTheDataset() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("commuter.jsonl").path
        #expect(try EvaluateCommand(arguments: [data]).truthFile() == nil)
        let truth = dir.appendingPathComponent("commuter.truth.jsonl").path
        #expect(FileManager.default.createFile(atPath: truth, contents: Data()))
        #expect(try EvaluateCommand(arguments: [data]).truthFile() == truth)
        #expect(try EvaluateCommand(arguments: [data, "--truth", "other"]).truthFile() == "other")
    }
}
