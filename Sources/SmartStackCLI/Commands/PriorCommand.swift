import Foundation
import SmartStack
import SmartStackEvaluation

/// `smartstack prior learn <logs…> -o <file>` learns a population prior from many people's event
/// logs; `smartstack prior check <file>` reads one and says what it holds.
///
/// ```swift
/// let learn = try PriorCommand(arguments: ["learn", "people.jsonl.gz", "-o", "prior.jsonl", "--min-people", "10"])
/// // learn.action == .learn, learn.minimumPeople == 10
/// ```
public struct PriorCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "prior"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Learn a population prior from many people's logs, or check one."
    /// The USAGE line.
    public static let usage = "smartstack prior learn <logs.jsonl ...> -o <file> [--min-people <k>] [--shrinkage <s>] | prior check <file>"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        learn: reads the event logs (SmartStack JSONL v1, plain or gzip, as evaluate reads
        them) of many people and writes what they share: for each widget id and app, its
        engagements per person-day and its lift (how much more or less than the average
        engagement it is used) per local hour, weekday or weekend day, and kind of place
        (the text of 'place' events, e.g. home or work; coordinates are never read), each
        cell shrunk toward the coarser one (hour -> part of day -> kind of day; a widget
        toward its app). Only what at least k distinct people contributed to is kept: no
        user id, no coordinates and no single person's counts are written. Format:
        Datasets/PRIOR-FORMAT.md; hand it to the engine with Engine(..., prior:),
        smartstack_open_with_prior, or --prior (evaluate, export-decisions, rank).
        check: reads a prior file, checks every value, and prints what it holds.

        USAGE: \(usage)

        ARGUMENTS:
        \(CommandLineTool.helpRows([
            ("<logs.jsonl ...>", "SmartStack JSONL files, plain or gzip, any number of people each."),
            ("<file>", "A prior file to check."),
        ]))

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("-o, --out <file>", "Where learn writes the prior (written under a temporary name, renamed when complete)."),
            ("--min-people <k>", "Keep widgets, apps, cells and kinds of place seen in at least k distinct people (default: 5)."),
            ("--shrinkage <s>", "Pseudo-count toward the coarser cell, in expected engagements (default: 5)."),
            ("-h, --help", "Show help information."),
        ]))

        EXAMPLES:
          smartstack prior learn people-*.jsonl.gz -o prior.jsonl
          smartstack evaluate me.jsonl --prior prior.jsonl --policies contextual,contextual:population=0
        """

    /// What to do.
    public enum Action: Sendable, Hashable { case learn, check }

    public var action: Action
    /// The logs to learn from, or the file to check.
    public var inputs: [String]
    /// Where `learn` writes.
    public var outputPath: String?
    public var minimumPeople: Int
    public var shrinkage: Double

    /// Parses the arguments (nothing is read).
    public init(arguments: [String]) throws(UsageError) {
        guard let verb = arguments.first else { throw UsageError("missing action: 'learn' or 'check'") }
        let args = try ParsedArguments(Array(arguments.dropFirst()), options: ["-o", "--out", "--min-people", "--shrinkage"], flags: [])
        inputs = args.positional
        switch verb {
        case "learn":
            action = .learn
            guard !inputs.isEmpty else { throw UsageError("missing argument <logs.jsonl ...>") }
            if inputs.contains("-") { throw UsageError("prior learn reads files, not standard input ('-')") }
            if args.value("-o") != nil, args.value("--out") != nil { throw UsageError("give only one of '-o' and '--out'") }
            guard let out = args.value("-o") ?? args.value("--out"), !out.isEmpty else {
                throw UsageError("missing required option '-o <file>' (where to write the prior)")
            }
            outputPath = out
        case "check":
            action = .check
            guard inputs.count == 1 else {
                throw UsageError(inputs.isEmpty ? "missing argument <file>" : "unexpected argument '\(inputs[1])'")
            }
            for option in ["-o", "--out", "--min-people", "--shrinkage"] where args.value(option) != nil {
                throw UsageError("'\(option)' is an option of 'prior learn'")
            }
            outputPath = nil
        default:
            throw UsageError("unknown action '\(verb)': expected 'learn' or 'check'")
        }
        minimumPeople = 5
        if let v = args.value("--min-people") {
            minimumPeople = try ReplayArguments.parseCount(v, option: "--min-people", minimum: 1)
        }
        shrinkage = 5
        if let v = args.value("--shrinkage") {
            guard let s = Double(v), s.isFinite, s >= 0, s <= 1e6 else {
                throw UsageError("invalid value '\(v)' for '--shrinkage': expected a number in 0...1000000")
            }
            shrinkage = s
        }
    }

    public func run(_ output: CommandOutput) throws -> Int32 {
        switch action {
        case .check:
            let prior = try ReplayArguments.loadPrior(inputs[0]).prior
            output.print("\(inputs[0]): \(prior)")
            return 0
        case .learn:
            let source = try ReplayArguments.source(datasets: inputs, database: nil, takesDatabase: false)
            let learner = PopulationPriorLearner(minimumPeople: minimumPeople, shrinkage: shrinkage)
            let prior: PopulationPrior, summary: PopulationPriorLearner.Summary
            do { (prior, summary) = try learner.learn(source) } catch let error as EvaluationError {
                throw CommandFailure(error.message)
            } catch let error as EngineError {
                throw CommandFailure(error.message)
            }
            let path = outputPath!
            let temporary = path + ".partial"
            do {
                try Data(prior.fileText.utf8).write(to: URL(fileURLWithPath: temporary))
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
                try FileManager.default.moveItem(atPath: temporary, toPath: path)
            } catch {
                try? FileManager.default.removeItem(atPath: temporary)
                throw CommandFailure("cannot write '\(path)': \(error.localizedDescription)")
            }
            output.printError("read \(counted(summary.people, "person", "people")), \(counted(summary.events, "event")); kept "
                + "\(summary.widgetsKept) of \(summary.widgetsSeen) widgets and \(summary.appsKept) of \(summary.appsSeen) apps, "
                + "\(formatCount(summary.cellsKept)) cells (\(formatCount(summary.cellsWithheld)) withheld: seen in fewer than "
                + "\(minimumPeople) people), kinds of place: "
                + (prior.placeKinds.isEmpty ? "none" : prior.placeKinds.joined(separator: ", "))
                + " (of \(summary.placeLabelsSeen) labels)")
            output.printError("wrote \(path) (digest \(prior.digest))")
            return 0
        }
    }
}
