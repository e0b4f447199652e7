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
          <dataset.jsonl ...>     SmartStack JSONL v1 files

        OPTIONS:
          --db <path>             Read the events from a database instead of files
          --out <file>            Write to this file instead of standard output
          --policy <policy>       Policy whose picks are exported (default: \(PolicyRegistry.defaultPolicy))
          --window <duration>     Attribution window after a decision, e.g. 10m, 90s
                                  (default: 10m)
          --merge-repeats         Merge consecutive launches of the same app (default)
          --no-merge-repeats      Keep every app launch
          --warmup-days <n>       Days after each user's first event not scored
                                  (default: 7)
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
    /// Replay options.
    public var options: ReplayOptions
    /// No summary on stderr.
    public var quiet: Bool
    /// Time a plain replay of the policy too.
    public var timesReplay: Bool

    /// Parses the arguments (pure: nothing is read or checked on disk).
    public init(arguments: [String]) throws(UsageError) {
        let args = try ParsedArguments(arguments,
            options: ["--db", "--out", "--policy", "--window", "--warmup-days", "--seed"],
            flags: ["--quiet", "--merge-repeats", "--no-merge-repeats", "--time-replay"])
        datasets = args.positional
        database = args.value("--db")
        if datasets.isEmpty, database == nil { throw UsageError("missing dataset: give JSONL files or --db <path>") }
        if !datasets.isEmpty, database != nil { throw UsageError("give either dataset files or --db, not both") }
        if datasets.contains("-") { throw UsageError("export-decisions reads its datasets twice, so standard input ('-') is not supported; save it to a file") }
        outputPath = args.value("--out")
        policy = args.value("--policy") ?? PolicyRegistry.defaultPolicy
        options = ReplayOptions()
        options.offPolicyEstimates = false
        if let w = args.value("--window") { options.window = try EvaluateCommand.parseDuration(w, option: "--window") }
        if args.flag("--merge-repeats"), args.flag("--no-merge-repeats") {
            throw UsageError("give only one of '--merge-repeats' and '--no-merge-repeats'")
        }
        if args.flag("--no-merge-repeats") { options.mergeRepeats = false }
        if let v = args.value("--warmup-days") { options.warmupDays = try EvaluateCommand.parseCount(v, option: "--warmup-days", minimum: 0) }
        if let v = args.value("--seed") {
            guard let s = UInt64(v) else { throw UsageError("invalid value '\(v)' for '--seed': expected a non-negative integer") }
            options.seed = s
        }
        quiet = args.flag("--quiet")
        timesReplay = args.flag("--time-replay")
    }

    /// Runs the export.
    public func run(_ output: CommandOutput) throws -> Int32 {
        for path in datasets + (database.map { [$0] } ?? []) where !FileManager.default.isReadableFile(atPath: path) {
            let exists = FileManager.default.fileExists(atPath: path)
            throw CommandFailure("cannot read dataset '\(path)': \(exists ? "permission denied" : "no such file")")
        }
        let spec: PolicySpec
        do { spec = try PolicySpec(parsing: policy) } catch {
            throw UsageError("\(error.message) (see 'smartstack policies')")
        }
        do { _ = try UserEngine(user: "check", policy: spec) } catch {
            throw UsageError("\(error.message) (see 'smartstack policies')")
        }
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
        let source: EvaluationSource = database.map { .database($0) } ?? .files(datasets)
        let summary: DecisionExportSummary
        do {
            var export = DecisionExport(options: options, policy: spec)
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
