import Dispatch
import Foundation
import Synchronization
import SmartStack
import SmartStackEvaluation

/// `smartstack evaluate`: replays recorded sessions through policies and measures them.
public struct EvaluateCommand: SubcommandProtocol {
    public static let name = "evaluate"
    public static let abstract = "Replay recorded sessions through policies and compare them"
    public static let usage = "smartstack evaluate <dataset.jsonl ...> [--db <path>] [--policies <p1,p2,...>] [--reference <policy>] [--report <dir> | --json | --partial <file>] [options]"
    public static let help = """
        OVERVIEW: Replay recorded sessions through policies and compare them

        Every user's events are replayed in time order; at each decision point (each screen_on,
        or, for users without screen_on, just before each engagement of a stacked widget) every
        policy picks the top of each stack from the events strictly before that instant.

        The headline measure depends on the data. With a truth file (--truth), each policy's
        counterfactual engagement: the probability that its own top is what the person came
        for, against the ceiling of the best widget. Without one, but with widget_impression
        events carrying a propensity, off-policy estimates of each policy's engagement. Else
        hit@1 against the logged engagements, which favours the policy that produced the log.
        Accuracy (hit@1, hit@3, MRR, nDCG@3), stability (rotations per active hour, flicker,
        dwell, unnecessary rotations, coverage) and 95% bootstrap intervals over user-days are
        reported for every policy, and a winner only when its lead excludes zero.

        With --by-day the report adds a learning curve: each policy's counterfactual engagement
        (hit@1 without a truth file) per day since the person's stacks were first configured
        (day 1 is the 24 hours from that instant; every decision counts, the warm-up too),
        pooled over people by decisions, with the ceiling per day and the day each policy first
        reaches 0.85 x the ceiling and stays there on every later day with at least 20 such
        decisions.

        USAGE: \(usage)

        ARGUMENTS:
        \(ReplayArguments.datasetsHelp)

        OPTIONS:
        \(ReplayArguments.databaseHelp)
        \(policiesHelp)
          --reference <policy>    Report every other policy's paired difference against
                                  this one
          --truth <file>          Ground truth (Datasets/FORMAT.md): the policies are
                                  then measured by counterfactual engagement and the
                                  oracle can run (default: <dataset>.truth.jsonl
                                  next to the first dataset file, when present)
        \(ReplayArguments.replayHelp)
        \(ReplayArguments.priorHelp)
        \(rotationHelp)
          --seed <n>              Seed of the policies and the bootstrap (default: 0)
          --bootstrap <n>         Bootstrap resamples over user-days, 0 for none
                                  (default: 1000)
          --threads <n>           Users replayed in parallel; results do not depend on
                                  it (default: all cores)
          --report <dir>          Write report.json, report.md and report.html into
                                  <dir>
          --json                  Print report.json to stdout instead of the table
          --by-day                Add the learning curve by day since the stacks were
                                  configured (report.json key by_day)
          --partial <file>        Write this shard's sufficient statistics to <file>
                                  instead of a report, for 'smartstack merge'
                                  (format: Datasets/PARTIAL-FORMAT.md)
          --quiet                 No progress bar (it is shown only when stderr is a
                                  terminal)
          -h, --help              Show help information.
        """

    /// The `--policies` row of this command's help, naming every valid name (`all` and `oracle`
    /// included) from the registry, wrapped like the rows around it (text from column 26).
    static let policiesHelp = CommandLineTool.helpRows([(
        "--policies <list>".padding(toLength: 22, withPad: " ", startingAt: 0),
        "Comma-separated policies with their parameters, e.g. static,frecency,contextual:half_life=14d."
            + " Valid names: all (every built-in policy, plus oracle when a truth file is found), "
            + builtInPolicies.joined(separator: ", ") + ", and oracle (needs a truth file) (default: all)"
    )])

    /// Every name `--policies` accepts: `all`, the built-in policies and `oracle`.
    static var validPolicyNames: [String] { ["all"] + builtInPolicies + ["oracle"] }

    /// The `--rotation` row of this command's help.
    static let rotationHelp = ReplayArguments.rotationHelp(summary: "Rotation policy for every policy, e.g.")

    /// The policies `all` stands for: every policy of the engine's registry.
    public static var builtInPolicies: [String] { PolicyRegistry.names }

    /// Dataset files.
    public var datasets: [String]
    /// Database path, when reading from one.
    public var database: String?
    /// Policy specs as written (`all` expanded at run time).
    public var policies: [String]
    /// The reference policy.
    public var reference: String?
    /// The oracle's truth file, when given.
    public var truth: String?
    /// The population prior's file, when given.
    public var prior: String?
    /// Replay options.
    public var options: ReplayOptions
    /// Report directory.
    public var reportDirectory: String?
    /// Print JSON.
    public var json: Bool
    /// No progress bar.
    public var quiet: Bool
    /// Where to write the partial result instead of a report.
    public var partialPath: String?
    /// The arguments as given (the report's provenance).
    public var arguments: [String]

    /// Parses the arguments (pure: nothing is read or checked on disk).
    public init(arguments: [String]) throws(UsageError) {
        let args = try ParsedArguments(arguments,
            options: ReplayArguments.options.union(["--policies", "--reference", "--truth", "--prior", "--bootstrap", "--threads", "--report",
                                                    "--partial"]),
            flags: ReplayArguments.flags.union(["--json", "--quiet", "--by-day"]))
        self.arguments = arguments
        let replay = try ReplayArguments(args, command: Self.name)
        datasets = replay.datasets
        database = replay.database
        options = replay.options
        policies = []
        for list in args.values("--policies") { policies += try Self.splitPolicies(list) }
        if policies.isEmpty { policies = ["all"] }
        reference = args.value("--reference")
        truth = args.value("--truth")
        prior = args.value("--prior")
        if let v = args.value("--bootstrap") { options.bootstrapResamples = try ReplayArguments.parseCount(v, option: "--bootstrap", minimum: 0) }
        if let v = args.value("--threads") { options.threads = try ReplayArguments.parseCount(v, option: "--threads", minimum: 1) }
        options.byDay = args.flag("--by-day")
        reportDirectory = args.value("--report")
        json = args.flag("--json")
        quiet = args.flag("--quiet")
        partialPath = args.value("--partial")
        if partialPath != nil, reportDirectory != nil || json {
            throw UsageError("--partial writes statistics for 'smartstack merge', not a report: give it without --report and --json")
        }
    }

    /// Splits a `--policies` list on commas, keeping `key=value` pieces with the policy before
    /// them (`contextual:a=1,b=2,mru` is two policies).
    static func splitPolicies(_ list: String) throws(UsageError) -> [String] {
        var out: [String] = []
        for piece in list.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if piece.isEmpty { throw UsageError("empty policy name in '--policies \(list)'") }
            if piece.contains("="), !piece.contains(":"), let last = out.last, last.contains(":") {
                out[out.count - 1] = last + "," + piece
            } else {
                out.append(piece)
            }
        }
        return out
    }

    /// The truth file of the oracle: `--truth`, else `<dataset>.truth.jsonl` or, for
    /// `x.jsonl`, `x.truth.jsonl`, next to the first dataset file.
    func truthFile() -> String? {
        if let truth { return truth }
        guard let first = datasets.first else { return nil }
        var candidates = [first + ".truth.jsonl"]
        if first.hasSuffix(".jsonl") { candidates.append(String(first.dropLast(6)) + ".truth.jsonl") }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// The ground truth of the counterfactual measure and the oracle, read once: `--truth`, or
    /// the one found next to the first dataset file; `nil` when there is none.
    func loadTruth() throws -> EvaluationTruth? {
        guard let path = truthFile() else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CommandFailure("cannot read the truth file '\(path)': \(FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")")
        }
        do { return try EvaluationTruth(path: path) } catch { throw CommandFailure("invalid truth file: \(error)") }
    }

    /// Builds one factory per policy (validating names and parameters with the engine); the
    /// oracle reads `truth`, the policies that take a population prior `prior`.
    func policyFactories(truth: EvaluationTruth?, prior: (prior: PopulationPrior, file: PolicyInputFile)? = nil) throws -> [PolicyFactory] {
        var names: [String] = []
        for p in policies {
            if p == "all" {
                names += Self.builtInPolicies
                if truth != nil { names.append("oracle") }
            } else {
                names.append(p)
            }
        }
        var seen: Set<String> = []
        var factories: [PolicyFactory] = []
        for n in names where seen.insert(n).inserted {
            if n == "oracle" {
                guard let truth else {
                    throw UsageError("the oracle policy needs the dataset's ground truth: give --truth <file> (looked for <dataset>.truth.jsonl)")
                }
                factories.append(OracleSupport.factory(truth: truth, rotation: options.rotation))
                continue
            }
            do {
                factories.append(.engine(try PolicySpec(parsing: n), rotation: options.rotation, prior: prior?.prior, priorFile: prior?.file))
            } catch where error.kind == .unknownPolicy {
                let name = n.split(separator: ":", maxSplits: 1).first.map(String.init) ?? n
                throw UsageError("unknown policy '\(name)' (valid: \(Self.validPolicyNames.joined(separator: ", "))) (see 'smartstack policies')")
            } catch {
                throw UsageError("\(error.message) (see 'smartstack policies')")
            }
        }
        return factories
    }

    public func run(_ output: CommandOutput) throws -> Int32 {
        let source = try ReplayArguments.source(datasets: datasets, database: database)
        let truth = try loadTruth()
        let prior = try self.prior.map(ReplayArguments.loadPrior)
        let factories = try policyFactories(truth: truth, prior: prior)
        if let reference, !factories.contains(where: { $0.name == reference }) {
            throw UsageError("reference policy '\(reference)' is not among the evaluated policies (\(factories.map(\.name).joined(separator: ", ")))")
        }
        let showProgress = output.standardErrorIsTerminal && !quiet
        var progress: (@Sendable (ReplayProgress) -> Void)?
        if showProgress {
            progress = { @Sendable (p: ReplayProgress) -> Void in
                FileHandle.standardError.write(Data(("\r\u{1B}[K" + p.line()).utf8))
            }
        }
        if let partialPath {
            do {
                let partial = try Evaluator(options: options).partial(source, policies: factories, reference: reference,
                                                                      truth: truth, progress: progress)
                if showProgress { output.standardError("\r\u{1B}[K") }
                try partial.write(to: partialPath)
                output.printError("partial of \(partial.userCount) users written to \(partialPath)")
            } catch let error as EvaluationError {
                if showProgress { output.standardError("\r\u{1B}[K") }
                throw CommandFailure(error.message)
            }
            return 0
        }
        let report: EvaluationReport
        do {
            report = try Evaluator(options: options).evaluate(source, policies: factories, reference: reference,
                                                              truth: truth, progress: progress)
        } catch let error as EvaluationError {
            if showProgress { output.standardError("\r\u{1B}[K") }
            throw CommandFailure(error.message)
        }
        if showProgress { output.standardError("\r\u{1B}[K") }
        try Self.publish(report, directory: reportDirectory, json: json, output: output,
                         provenance: Self.provenance(subcommand: Self.name, arguments: arguments), threads: options.threads)
        return 0
    }

    /// The provenance of a report made by `smartstack <subcommand> <arguments>` now: the
    /// version, the command shell-quoted, and the time, `SOURCE_DATE_EPOCH` when set (so a
    /// report can be reproduced byte for byte), else the clock's.
    static func provenance(subcommand: String, arguments: [String],
                           environment: [String: String] = ProcessInfo.processInfo.environment) -> ReportProvenance {
        let words = ["smartstack", subcommand] + arguments
        let command = words.map(shellQuoted).joined(separator: " ")
        var seconds = Date().timeIntervalSince1970.rounded(.down)
        if let epoch = environment["SOURCE_DATE_EPOCH"], let value = Int64(epoch) { seconds = Double(value) }
        let time = EventTime(nanosecondsSinceEpoch: Int64(seconds) * 1_000_000_000, utcOffsetSeconds: 0)
        return ReportProvenance(version: CommandLineTool.version, command: command, generated: time.rfc3339)
    }

    /// `word` as a POSIX shell reads it back: unchanged when it holds only safe characters,
    /// else in single quotes.
    static func shellQuoted(_ word: String) -> String {
        let safe = word.unicodeScalars.allSatisfy { c in
            (c.value < 128 && (CharacterSet.alphanumerics.contains(c) || "@%+=:,./_-".unicodeScalars.contains(c)))
        }
        if safe && !word.isEmpty { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Prints skipped users, writes report.json/.md/.html into `directory` and prints the table
    /// (or report.json with `json`): what `evaluate` and `merge` show of a report.
    /// The report's JSON and, with `documents`, its Markdown and HTML, rendered on up to
    /// `threads` threads: each is a function of the report alone, and together they are a tenth
    /// of a `merge`.
    private static func renderings(_ report: EvaluationReport, documents: Bool, threads: Int) -> [Result<Data, any Error>] {
        // Longest first (JSON, HTML, Markdown), each taken by the next free thread: on two
        // threads the JSON takes one, the HTML and then the Markdown the other.
        let order = documents ? [0, 2, 1] : [0]
        let lanes = max(1, min(threads, order.count))
        let rendered = Mutex<[Result<Data, any Error>]>(Array(repeating: .success(Data()), count: order.count))
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: lanes) { _ in
            while true {
                let taken = next.add(1, ordering: .relaxed).oldValue
                guard taken < order.count else { return }
                let k = order[taken]
                let data: Result<Data, any Error> = switch k {
                case 0: Result { try report.jsonData() }
                case 1: .success(Data(ReportRenderer.markdown(report).utf8))
                default: .success(Data(ReportRenderer.html(report).utf8))
                }
                rendered.withLock { $0[k] = data }
            }
        }
        return rendered.withLock { $0 }
    }

    static func publish(_ report: EvaluationReport, directory: String?, json: Bool, output: CommandOutput,
                        provenance: ReportProvenance? = nil, threads: Int = 1) throws {
        var report = report
        if let provenance { report.provenance = provenance }
        for s in report.dataset.usersSkipped { output.printError("warning: user '\(s.user)' skipped: \(s.reason)") }
        for w in report.warnings { output.printError("warning: \(w)") }
        let rendered = directory != nil || json ? renderings(report, documents: directory != nil, threads: threads) : []
        if let dir = directory {
            do {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                let base = URL(fileURLWithPath: dir)
                for (data, name) in zip(rendered, ["report.json", "report.md", "report.html"]) {
                    try data.get().write(to: base.appendingPathComponent(name), options: .atomic)
                }
            } catch {
                throw CommandFailure("cannot write the report into '\(dir)': \(error.localizedDescription)")
            }
        }
        if json {
            output.standardOutput(String(decoding: try rendered[0].get(), as: UTF8.self))
        } else {
            output.standardOutput(report.textTable())
            if let dir = directory {
                output.print("\nReport written to \(dir)/report.json, report.md and report.html (open \(dir)/report.html in a browser).")
            }
        }
    }
}
