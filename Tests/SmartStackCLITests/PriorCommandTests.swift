import Foundation
import SmartStack
@testable import SmartStackCLI
import Testing

/// `smartstack prior learn|check` and `--prior` of evaluate, export-decisions and rank.
@Suite struct PriorCommandTests {
    @Test func parsesLearnAndCheck() throws {
        let learn = try PriorCommand(arguments: ["learn", "a.jsonl", "b.jsonl.gz", "-o", "p.jsonl", "--min-people", "3", "--shrinkage", "2.5"])
        #expect(learn.action == .learn && learn.inputs == ["a.jsonl", "b.jsonl.gz"] && learn.outputPath == "p.jsonl")
        #expect(learn.minimumPeople == 3 && learn.shrinkage == 2.5)
        let defaults = try PriorCommand(arguments: ["learn", "a.jsonl", "--out", "p.jsonl"])
        #expect(defaults.minimumPeople == 5 && defaults.shrinkage == 5 && defaults.outputPath == "p.jsonl")
        let check = try PriorCommand(arguments: ["check", "p.jsonl"])
        #expect(check.action == .check && check.inputs == ["p.jsonl"] && check.outputPath == nil)
    }

    @Test(arguments: [
        ([], "missing action: 'learn' or 'check'"),
        (["fit", "a.jsonl"], "unknown action 'fit': expected 'learn' or 'check'"),
        (["learn", "-o", "p.jsonl"], "missing argument <logs.jsonl ...>"),
        (["learn", "a.jsonl"], "missing required option '-o <file>' (where to write the prior)"),
        (["learn", "a.jsonl", "-o", "p", "--out", "q"], "give only one of '-o' and '--out'"),
        (["learn", "a.jsonl", "-o", "p", "--min-people", "0"], "invalid value '0' for '--min-people': expected an integer >= 1"),
        (["learn", "a.jsonl", "-o", "p", "--shrinkage", "-1"], "invalid value '-1' for '--shrinkage': expected a number in 0...1000000"),
        (["check"], "missing argument <file>"),
        (["check", "p", "q"], "unexpected argument 'q'"),
        (["check", "p", "--min-people", "3"], "'--min-people' is an option of 'prior learn'"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) {
        let run = runTool(["prior"] + arguments)
        #expect(run.status == 64)
        #expect(run.standardError.hasPrefix("Error: \(message)\nUSAGE: smartstack prior "), "\(run.standardError)")
    }

    /// Five commuters' week, one new commuter's first day, and a prior learnt from the five.
    static func workspace() throws -> (dir: TemporaryDirectory, prior: String, day1: String) {
        let dir = try TemporaryDirectory()
        let people = dir.file("people.jsonl"), day1 = dir.file("day1.jsonl"), prior = dir.file("prior.jsonl")
        for (arguments, what) in [(["--days", "7", "--users", "5", "--seed", "21", "--out", people], "people"),
                                  (["--days", "1", "--users", "2", "--seed", "22", "--out", day1], "day 1")] {
            let run = runTool(["generate", "--persona", "commuter"] + arguments)
            #expect(run.status == 0, "generate \(what): \(run.standardError)")
        }
        let learn = runTool(["prior", "learn", people, "-o", prior])
        #expect(learn.status == 0, "\(learn.standardError)")
        #expect(learn.standardError.hasPrefix("read 5 people, "))
        #expect(learn.standardError.contains("kinds of place: home, park, work"))
        return (dir, prior, day1)
    }

    @Test func learnCheckAndEvaluateWithAndWithoutThePrior() throws {
        let (dir, prior, day1) = try Self.workspace()
        defer { dir.cleanUp() }
        let check = runTool(["prior", "check", prior])
        #expect(check.status == 0 && check.standardOutput.hasPrefix("\(prior): population prior of 10 widget(s) and "))
        let text = try String(contentsOfFile: prior, encoding: .utf8)
        #expect(!text.contains("commuter-0"))   // no user id
        let run = runTool(["evaluate", day1, "--prior", prior, "--policies", "contextual,contextual:population=0,mfu",
                           "--reference", "contextual:population=0", "--warmup-days", "0", "--bootstrap", "50", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let policies = try #require(report["policies"] as? [[String: Any]])
        func engagement(_ name: String) -> Double? {
            (policies.first { $0["name"] as? String == name }?["metrics"] as? [String: Any])?["counterfactual_engagement"] as? Double
        }
        let with = try #require(engagement("contextual")), without = try #require(engagement("contextual:population=0"))
        #expect(with != without)
        // The prior reaches only the policies that take one: mfu is as without --prior.
        let plain = runTool(["evaluate", day1, "--policies", "mfu", "--warmup-days", "0", "--bootstrap", "0", "--json"])
        let plainReport = try #require(try JSONSerialization.jsonObject(with: Data(plain.standardOutput.utf8)) as? [String: Any])
        let plainMFU = ((plainReport["policies"] as? [[String: Any]])?.first?["metrics"] as? [String: Any])?["counterfactual_engagement"]
        #expect(plainMFU as? Double == engagement("mfu"))
        // export-decisions takes it too: the picks differ from the export without it.
        let picks = { (extra: [String]) -> String in
            let r = runTool(["export-decisions", day1, "--warmup-days", "0", "--quiet"] + extra)
            #expect(r.status == 0, "\(r.standardError)")
            return r.standardOutput
        }
        #expect(picks(["--prior", prior]) != picks([]))
    }

    @Test func rankSaysWhenThePriorDecided() throws {
        let (dir, prior, day1) = try Self.workspace()
        defer { dir.cleanUp() }
        let db = dir.file("day1.db")
        #expect(runTool(["ingest", day1, "--db", db]).status == 0)
        var said = false
        for user in ["commuter-00", "commuter-01"] {
            for stack in ["top", "bottom"] {
                for minute in stride(from: 6 * 60, to: 22 * 60, by: 30) {
                    let at = String(format: "2026-01-05T%02d:%02d:00-05:00", minute / 60, minute % 60)
                    let run = runTool(["rank", "--db", db, "--stack", stack, "--at", at, "--user", user, "--prior", prior, "--json"])
                    #expect(run.status == 0, "\(run.standardError)")
                    said = said || run.standardOutput.contains("(the population prior put it on top)")
                    let without = runTool(["rank", "--db", db, "--stack", stack, "--at", at, "--user", user, "--json"])
                    #expect(!without.standardOutput.contains("people like you"))
                }
            }
        }
        #expect(said)
    }

    @Test func aBadPriorIsAClearErrorAndChangesNothing() throws {
        let (dir, prior, day1) = try Self.workspace()
        defer { dir.cleanUp() }
        let lines = try String(contentsOfFile: prior, encoding: .utf8).split(separator: "\n").map(String.init)
        var negative = lines
        negative[1] = negative[1].replacingOccurrences(of: "\"rate\":", with: "\"rate\":-")
        let bad = try dir.write("bad.jsonl", negative.joined(separator: "\n") + "\n")
        let cut = try dir.write("cut.jsonl", lines.dropLast().joined(separator: "\n") + "\n")
        let db = dir.file("day1.db")
        #expect(runTool(["ingest", day1, "--db", db]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        for (file, words) in [(bad, "\(bad):2:"), (cut, "the prior file is cut short")] {
            for command in [["evaluate", day1, "--warmup-days", "0"], ["export-decisions", day1],
                            ["rank", "--db", db, "--stack", "top", "--at", "2026-01-05T08:00:00-05:00", "--user", "commuter-00"]] {
                let run = runTool(command + ["--prior", file])
                #expect(run.status == 1, "\(command)")
                #expect(run.standardError.hasPrefix("Error: invalid population prior: ") && run.standardError.contains(words),
                        "\(command): \(run.standardError)")
            }
            let check = runTool(["prior", "check", file])
            #expect(check.status == 1 && check.standardError.contains(words))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }
}
