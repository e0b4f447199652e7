import Foundation
import SmartStack
import SmartStackEvaluation

/// `smartstack export-decisions`: writes the evaluator's decision stream as JSONL, one line per
/// decision point and stack, with SmartStack's features and the default policy's choices.
///
/// ```swift
/// let command = try ExportDecisionsCommand(arguments: ["Datasets/commuter.jsonl", "--out", "d.jsonl"])
/// // command.outputPath == "d.jsonl"
/// ```
public struct ExportDecisionsCommand: SubcommandProtocol {
    /// The subcommand's name.
    public static let name = "export-decisions"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Write the evaluator's decisions with SmartStack's features as JSONL"
    /// The USAGE line.
    public static let usage = "smartstack export-decisions <dataset.jsonl ...> [--db <path>] [--out <file>] [options]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Replays the datasets exactly as 'smartstack evaluate' does (same decision
        points, warm-up and targets) and writes one JSON object per line for every
        decision point and stack:
          user, time, stack, scored   who, when, which stack; scored = after warm-up
          candidates, eligible        the stack's widgets in configured order
          features                    per candidate, SmartStack's features from the
                                      past only (see FeatureVector.names):
                                      \(FeatureVector.names.prefix(4).joined(separator: ", ")),
                                      \(FeatureVector.names.dropFirst(4).prefix(4).joined(separator: ", ")),
                                      \(FeatureVector.names.dropFirst(8).prefix(2).joined(separator: ", ")),
                                      \(FeatureVector.names.dropFirst(10).prefix(2).joined(separator: ", ")),
                                      \(FeatureVector.names.dropFirst(12).joined(separator: ", "))
          target                      widgets engaged within the window, or null
          pick, order                 the policy's top after rotation and its display
                                      order (evaluate's hit@1 and MRR use them)
          ranking, scores             the raw scorer ranking and per-candidate scores
        A summary (decisions, scored decisions with a target, hit@1) goes to stderr.

        USAGE: \(usage)

        ARGUMENTS:
        \(ReplayArguments.datasetsHelp)

        OPTIONS:
        \(ReplayArguments.databaseHelp)
          --out <file>            Write to this file instead of standard output
          --policy <policy>       Policy whose picks are exported (default: \(PolicyRegistry.defaultPolicy))
        \(ReplayArguments.replayHelp)
        \(ReplayArguments.priorHelp)
        \(ReplayArguments.rotationHelp(summary: "Rotation policy over its scores, e.g."))
          --seed <n>              Seed of the policy (default: 0)
          --time-replay           Also time a plain replay of the policy (no export)
                                  from the parsed events; report it on stderr
          --quiet                 No summary on stderr
          -h, --help              Show help information.

        EXAMPLES:
          smartstack export-decisions Datasets/commuter.jsonl --out commuter.decisions.jsonl
        """

    /// Dataset files.
    public var datasets: [String]
    /// Database path, when reading from one.
    public var database: String?
    /// Output file (`nil`: standard output).
    public var outputPath: String?
    /// The exported policy.
    public var policy: String
    /// The population prior's file, when given.
    public var prior: String?
    /// Replay options.
    public var options: ReplayOptions
    /// No summary on stderr.
    public var quiet: Bool
    /// Time a plain replay of the policy too.
    public var timesReplay: Bool

    /// Parses the arguments (pure: nothing is read or checked on disk).
    public init(arguments: [String]) throws(UsageError) {
        let args = try ParsedArguments(arguments, options: ReplayArguments.options.union(["--out", "--policy", "--prior"]),
                                       flags: ReplayArguments.flags.union(["--quiet", "--time-replay"]))
        let replay = try ReplayArguments(args, command: Self.name)
        datasets = replay.datasets
        database = replay.database
        options = replay.options
        options.offPolicyEstimates = false
        outputPath = args.value("--out")
        policy = args.value("--policy") ?? PolicyRegistry.defaultPolicy
        prior = args.value("--prior")
        quiet = args.flag("--quiet")
        timesReplay = args.flag("--time-replay")
    }

    /// Runs the export.
    public func run(_ output: CommandOutput) throws -> Int32 {
        let source = try ReplayArguments.source(datasets: datasets, database: database)
        let spec: PolicySpec
        do { spec = try PolicySpec(parsing: policy) } catch {
            throw UsageError("\(error.message) (see 'smartstack policies')")
        }
        do { _ = try UserEngine(user: "check", policy: spec) } catch {
            throw UsageError("\(error.message) (see 'smartstack policies')")
        }
        let prior = try self.prior.map(ReplayArguments.loadPrior)?.prior
        var file: FileHandle?
        var temporary: String?
        if let outputPath {
            let tmp = outputPath + ".partial"
            guard FileManager.default.createFile(atPath: tmp, contents: nil), let handle = FileHandle(forWritingAtPath: tmp) else {
                throw CommandFailure("cannot write '\(outputPath)': cannot create '\(tmp)'")
            }
            file = handle
            temporary = tmp
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        func flush() throws {
            guard !buffer.isEmpty else { return }
            if let file {
                do { try file.write(contentsOf: buffer) } catch {
                    throw CommandFailure("cannot write '\(outputPath ?? "")': \(error.localizedDescription)")
                }
            } else {
                output.write(bytes: buffer)
            }
            buffer.removeAll(keepingCapacity: true)
        }
        let summary: DecisionExportSummary
        do {
            var export = DecisionExport(options: options, policy: spec)
            export.prior = prior
            export.timesReplay = timesReplay
            summary = try export.run(source) { record in
                buffer.append(contentsOf: record.jsonLine.utf8)
                buffer.append(10)
                if buffer.count >= 1 << 20 { try flush() }
            }
            try flush()
        } catch let error as EvaluationError {
            try? file?.close()
            if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
            throw CommandFailure(error.message)
        }
        if let file, let temporary, let outputPath {
            do {
                try file.close()
                if FileManager.default.fileExists(atPath: outputPath) { try FileManager.default.removeItem(atPath: outputPath) }
                try FileManager.default.moveItem(atPath: temporary, toPath: outputPath)
            } catch {
                throw CommandFailure("cannot write '\(outputPath)': \(error.localizedDescription)")
            }
        }
        for s in summary.skipped { output.printError("warning: user '\(s.user)' skipped: \(s.reason)") }
        if !quiet {
            let hit = summary.scoredWithTarget > 0 ? String(format: "%.4f", Double(summary.hits) / Double(summary.scoredWithTarget)) : "n/a"
            output.printError("exported \(summary.decisions) decisions of \(summary.users) users: \(summary.scoredDecisions) scored, \(summary.scoredWithTarget) scored with a target; \(spec) hit@1 \(hit)")
        }
        if let seconds = summary.replaySeconds {
            output.printError(String(format: "replay of %@ alone (parsed events, record + decide): %d decisions in %.6f s", spec.description, summary.decisions, seconds))
        }
        return 0
    }
}
