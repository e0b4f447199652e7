import Foundation
import SmartStack
@testable import SmartStackCLI
import Testing

/// A subcommand that fails the way it is told to, to test how the tool reports each kind of error.
private struct FailingCommand: SubcommandProtocol {
    struct StorageProblem: Error, CustomStringConvertible {
        var description: String { "disk I/O error while writing events.db" }
    }

    static let name = "fail"
    static let abstract = "Fail on purpose."
    static let usage = "smartstack fail <usage|failure|other|ok>"
    static let help = "OVERVIEW: Fail on purpose.\n\nUSAGE: \(usage)"

    var mode: String

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: [], flags: [])
        mode = try parsed.singlePositional("<mode>")
    }

    func run(_ output: CommandOutput) throws -> Int32 {
        switch mode {
        case "usage": throw UsageError("'--x' needs a value")
        case "failure": throw CommandFailure("stack 'home' is unknown")
        case "other": throw StorageProblem()
        default:
            output.print("fine")
            return 0
        }
    }
}

extension CLITests {
    /// Help, version, unknown subcommands and how each kind of error becomes an exit code.
    @Suite struct Frame {
        @Test func helpListsEverySubcommandAligned() {
            let run = runTool(["--help"])
            #expect(run.status == 0)
            #expect(run.standardError.isEmpty)
            let text = run.standardOutput
            for section in ["OVERVIEW: ", "USAGE: smartstack <subcommand>", "OPTIONS:", "SUBCOMMANDS:"] {
                #expect(text.contains(section), "missing \(section)")
            }
            #expect(text.contains("  -h, --help"))
            #expect(text.contains("  --version"))
            #expect(text.contains("See 'smartstack help <subcommand>' for detailed help."))
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var columns: Set<Int> = []
            for command in allSubcommands {
                let line = lines.first { $0.hasPrefix("  \(command.name) ") }
                #expect(line != nil, "\(command.name) not listed")
                if let line {
                    let abstractStart = line.range(of: String(command.abstract.prefix(20)))
                    #expect(abstractStart != nil, "abstract of \(command.name) not on its line")
                    if let abstractStart { columns.insert(line.distance(from: line.startIndex, to: abstractStart.lowerBound)) }
                }
            }
            #expect(columns.count == 1, "abstracts start at columns \(columns)")
        }

        @Test(arguments: [["-h"], ["help"], ["help", "--help"], []])
        func everyWayToAskForHelpPrintsTheSameText(arguments: [String]) {
            let run = runTool(arguments)
            #expect(run.status == 0)
            #expect(run.standardOutput == runTool(["--help"]).standardOutput)
        }

        @Test(arguments: ["ingest", "export", "stats"])
        func subcommandHelpIsTheSameEveryWay(name: String) {
            let viaHelp = runTool(["help", name])
            let viaFlag = runTool([name, "--help"])
            let viaShortFlag = runTool([name, "--db", "x.db", "-h"])
            #expect(viaHelp.status == 0 && viaFlag.status == 0 && viaShortFlag.status == 0)
            #expect(viaHelp.standardOutput == viaFlag.standardOutput)
            #expect(viaHelp.standardOutput == viaShortFlag.standardOutput)
            #expect(viaHelp.standardError.isEmpty && viaFlag.standardError.isEmpty)
            #expect(viaHelp.standardOutput.hasPrefix("OVERVIEW: "))
            #expect(viaHelp.standardOutput.contains("USAGE: smartstack \(name) "))
            #expect(viaHelp.standardOutput.contains("OPTIONS:"))
            #expect(viaHelp.standardOutput.contains("--db <path>"))
        }

        @Test func helpLinesFitEightyColumnsInTheOptionTables() {
            for command in allSubcommands {
                let options = command.help.components(separatedBy: "OPTIONS:").last ?? ""
                let table = options.components(separatedBy: "\n\n").first ?? ""
                for line in table.split(separator: "\n") {
                    #expect(line.count <= 80, "\(command.name): '\(line)'")
                }
            }
        }

        @Test func everyOptionIsDocumentedOnceInItsHelp() {
            for command in allSubcommands {
                var seen: [String: Int] = [:]
                for line in command.help.split(separator: "\n") where line.hasPrefix("  --") || line.hasPrefix("  -h") {
                    let name = line.dropFirst(2).prefix { $0 != " " }
                    seen[String(name), default: 0] += 1
                }
                #expect(!seen.isEmpty, "\(command.name): no option rows")
                for (name, count) in seen where count > 1 {
                    Issue.record("\(command.name) --help lists \(name) \(count) times")
                }
            }
        }

        @Test func evaluateHelpShowsTheRotationDefaultsTheEngineUses() throws {
            let help = EvaluateCommand.help
            let row = try #require(help.range(of: "  --rotation <params>"))
            let start = try #require(help.range(of: "(default:\n", range: row.upperBound..<help.endIndex))
            let end = try #require(help[start.upperBound...].firstIndex(of: ")"))
            let written = help[start.upperBound..<end].split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined()
            #expect(written == RotationParameters().description)
        }

        @Test func versionIsOneLine() {
            let run = runTool(["--version"])
            #expect(run.status == 0)
            #expect(run.standardOutput == "smartstack \(CommandLineTool.version)\n")
            #expect(CommandLineTool.version == "0.1.0")
        }

        @Test func unknownSubcommandIsAUsageError() {
            let run = runTool(["frobnicate", "--db", "x.db"])
            #expect(run.status == 64)
            #expect(run.standardOutput.isEmpty)
            #expect(run.standardError.hasPrefix("Error: unknown subcommand 'frobnicate'\n"))
            #expect(run.standardError.contains("USAGE: smartstack <subcommand>"))
            #expect(run.standardError.contains("See 'smartstack --help'"))
        }

        @Test func misspelledSubcommandGetsASuggestion() {
            let run = runTool(["ingets"])
            #expect(run.status == 64)
            #expect(run.standardError.contains("Did you mean 'ingest'?"))
        }

        @Test func helpForAnUnknownSubcommandIsAUsageError() {
            let run = runTool(["help", "frobnicate"])
            #expect(run.status == 64)
            #expect(run.standardError.hasPrefix("Error: unknown subcommand 'frobnicate'"))
        }

        @Test func unknownTopLevelOptionIsAUsageError() {
            let run = runTool(["--verbose"])
            #expect(run.status == 64)
            #expect(run.standardError.hasPrefix("Error: unknown option '--verbose'"))
        }

        @Test func subcommandUsageErrorShowsItsUsageAndHint() {
            let run = runTool(["stats"])
            #expect(run.status == 64)
            #expect(run.standardOutput.isEmpty)
            #expect(run.standardError == """
                Error: missing required option '--db'
                USAGE: \(StatsCommand.usage)
                  See 'smartstack stats --help' for more information.

                """)
        }

        @Test func usageErrorThrownWhileRunningExits64() {
            let run = runTool(["fail", "usage"], subcommands: [FailingCommand.self])
            #expect(run.status == 64)
            #expect(run.standardError.hasPrefix("Error: '--x' needs a value\nUSAGE: \(FailingCommand.usage)\n"))
            #expect(run.standardError.contains("See 'smartstack fail --help'"))
        }

        @Test func commandFailureExits1WithItsMessage() {
            let run = runTool(["fail", "failure"], subcommands: [FailingCommand.self])
            #expect(run.status == 1)
            #expect(run.standardError == "Error: stack 'home' is unknown\n")
        }

        @Test func anyOtherErrorExits1WithItsDescription() {
            let run = runTool(["fail", "other"], subcommands: [FailingCommand.self])
            #expect(run.status == 1)
            #expect(run.standardError == "Error: disk I/O error while writing events.db\n")
        }

        @Test func successReturnsTheCommandsStatus() {
            let run = runTool(["fail", "ok"], subcommands: [FailingCommand.self])
            #expect(run.status == 0)
            #expect(run.standardOutput == "fine\n")
            #expect(run.standardError.isEmpty)
        }

        @Test func helpRowsWrapUnderTheirColumn() {
            let rows = CommandLineTool.helpRows([("--db <path>", String(repeating: "word ", count: 30))])
            let lines = rows.split(separator: "\n")
            #expect(lines.count > 1)
            for line in lines {
                #expect(line.count <= 80)
                #expect(line.hasPrefix("  "))
            }
            #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 24)) })
        }
    }
}
