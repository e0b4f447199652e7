import Foundation
import SmartStackEvaluation

/// `smartstack merge <partial ...> [--report DIR] [--json] [--name N] [--source S ...]`: combines
/// the partial results of shards into the report one `evaluate` over all of them gives.
///
/// ```swift
/// let merge = try MergeCommand(arguments: ["a.partial", "b.partial", "--report", "out"])
/// // merge.partials == ["a.partial", "b.partial"]
/// ```
public struct MergeCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "merge"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Combine the partial results of shards into one evaluation report."
    /// The USAGE line.
    public static let usage = "smartstack merge <partial ...> [--report <dir>] [--json] [--name <name>] [--source <s> ...] [--threads <n>]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Each partial is what 'smartstack evaluate <shard> --partial <file>' wrote for one shard
        of the users (plain or gzip). The report is byte-identical to that of one 'evaluate'
        over all the shards' data, whatever the number of shards and however users were
        assigned to them: every metric, bootstrap interval (resampling user-days across all
        shards), breakdown and off-policy estimate. Only dataset.name and dataset.sources name
        the shards, unless --name and --source set them. The partials are read side by side,
        one user at a time: memory holds the scored user-days the bootstrap resamples, not the
        partials. Partials made with different options, policies or ground-truth files are
        refused, and so is a user found in two partials (it would be counted twice).
        Format: Datasets/PARTIAL-FORMAT.md.

        USAGE: \(usage)

        ARGUMENTS:
        \(CommandLineTool.helpRows([("<partial ...>", "Partial files written by 'evaluate --partial'.")]))

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("--report <dir>", "Write report.json, report.md and report.html into <dir>."),
            ("--json", "Print report.json to stdout instead of the table."),
            ("--name <name>", "The report's dataset name (default: the first partial's)."),
            ("--source <s>", "A source the report lists (repeatable; default: every partial's sources)."),
            ("--threads <n>", "Threads reading the partials and of the bootstrap; results do not depend on it (default: all cores)."),
            ("-h, --help", "Show help information."),
        ]))
        """

    /// The partial files.
    public var partials: [String]
    public var reportDirectory: String?
    public var json: Bool
    public var name: String?
    public var sources: [String]?
    public var threads: Int
    /// The arguments as given (the report's provenance).
    public var arguments: [String]

    /// Parses the arguments (nothing is read).
    public init(arguments: [String]) throws(UsageError) {
        self.arguments = arguments
        let args = try ParsedArguments(arguments, options: ["--report", "--name", "--source", "--threads"], flags: ["--json"])
        partials = args.positional
        guard !partials.isEmpty else { throw UsageError("missing argument <partial ...>") }
        reportDirectory = args.value("--report")
        json = args.flag("--json")
        name = args.value("--name")
        let given = args.values("--source")
        sources = given.isEmpty ? nil : given
        threads = ReplayOptions.availableCores
        if let v = args.value("--threads") { threads = try ReplayArguments.parseCount(v, option: "--threads", minimum: 1) }
    }

    public func run(_ output: CommandOutput) throws -> Int32 {
        var report: EvaluationReport
        do {
            report = try Evaluator.merge(files: partials, name: name, sources: sources, threads: threads)
        } catch let error as EvaluationError {
            throw CommandFailure(error.message)
        }
        // Printed on stderr with the report's other warnings, and written into the report.
        if report.truth == nil { report.warnings.append(Self.noTruthWarning) }
        try EvaluateCommand.publish(report, directory: reportDirectory, json: json, output: output,
                                    provenance: EvaluateCommand.provenance(subcommand: Self.name, arguments: arguments),
                                    threads: threads)
        return 0
    }

    /// What `merge` warns when no partial carried a ground truth: shards named
    /// `shard-…-of-….jsonl` find no `<dataset>.truth.jsonl` beside them, so `--policies all`
    /// leaves the oracle out without a word.
    public static let noTruthWarning = "the partials carry no ground truth, so this report has no oracle (and no "
        + "counterfactual measure): give every shard's 'smartstack evaluate' the same --truth <file> "
        + "(one file serves every shard)"
}
