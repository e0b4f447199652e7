import Foundation
import SmartStack
import SmartStackEvaluation

/// The arguments `evaluate` and `export-decisions` share: the recorded sessions to replay and
/// the replay options both honour (the rotation policy among them), with one help text and one
/// set of errors.
///
/// ```swift
/// let args = try ParsedArguments(["a.jsonl", "--window", "5m"], options: ReplayArguments.options, flags: ReplayArguments.flags)
/// let replay = try ReplayArguments(args, command: "evaluate")
/// // replay.datasets == ["a.jsonl"], replay.options.window == 300
/// ```
struct ReplayArguments: Sendable {
    /// The shared options that take a value.
    static let options: Set<String> = ["--db", "--window", "--warmup-days", "--seed", "--rotation"]
    /// The shared flags.
    static let flags: Set<String> = ["--merge-repeats", "--no-merge-repeats"]

    /// The ARGUMENTS row of the dataset files.
    static let datasetsHelp = "  <dataset.jsonl ...>     JSONL v1 files, plain or gzip, sorted by user or time"
    /// The OPTIONS row of `--db`.
    static let databaseHelp = "  --db <path>             Read the events from a database instead of files"
    /// The OPTIONS rows of the replay options (`--seed` is described by each command: it seeds
    /// different things).
    static let replayHelp = """
          --window <duration>     Attribution window after a decision, e.g. 10m, 90s, 1h
                                  (default: 10m)
          --merge-repeats         Merge consecutive launches of the same app with no
                                  screen_on between them into one (default)
          --no-merge-repeats      Keep every app launch
          --warmup-days <n>       Days after each user's first event replayed but not
                                  scored (default: 7)
        """

    /// The OPTIONS row of `--rotation` with `summary` (at most 40 characters) as its first line,
    /// its default written from `RotationParameters()` (one place to change it): broken after
    /// commas, never inside a value, so it reads as one argument.
    static func rotationHelp(summary: String) -> String {
        let indent = String(repeating: " ", count: 34), width = 80 - indent.count
        var lines: [String] = [], line = ""
        let parts = (RotationParameters().description + ")").split(separator: ",")
        for (k, part) in parts.enumerated() {
            let piece = String(part) + (k + 1 < parts.count ? "," : "")
            if !line.isEmpty && line.count + piece.count > width { lines.append(line); line = "" }
            line += piece
        }
        lines.append(line)
        return """
              --rotation <params>     \(summary)
                                      margin=0.2,dwell=15m,cap=24,swipe_hold=1h (default:

            """ + lines.map { indent + $0 }.joined(separator: "\n")
    }

    /// Dataset files.
    var datasets: [String]
    /// Database path, when reading from one.
    var database: String?
    /// The defaults with the shared options applied.
    var options = ReplayOptions()

    /// Reads the shared arguments of `command` (pure: nothing is read or checked on disk).
    init(_ args: ParsedArguments, command: String) throws(UsageError) {
        datasets = args.positional
        database = args.value("--db")
        if datasets.isEmpty, database == nil { throw UsageError("missing dataset: give JSONL files or --db <path>") }
        if !datasets.isEmpty, database != nil { throw UsageError("give either dataset files or --db, not both") }
        if datasets.contains("-") {
            throw UsageError("\(command) may read its datasets twice (when not sorted by user), so standard input ('-') is not supported; save it to a file")
        }
        if let w = args.value("--window") { options.window = try Self.parseDuration(w, option: "--window") }
        if args.flag("--merge-repeats"), args.flag("--no-merge-repeats") {
            throw UsageError("give only one of '--merge-repeats' and '--no-merge-repeats'")
        }
        if args.flag("--no-merge-repeats") { options.mergeRepeats = false }
        if let v = args.value("--warmup-days") { options.warmupDays = try Self.parseCount(v, option: "--warmup-days", minimum: 0) }
        if let r = args.value("--rotation") {
            do { options.rotation = try RotationParameters(parsing: r) } catch { throw UsageError("--rotation: \(error.message)") }
        }
        if let v = args.value("--seed") {
            guard let s = UInt64(v) else { throw UsageError("invalid value '\(v)' for '--seed': expected a non-negative integer") }
            options.seed = s
        }
    }

    /// The source to replay, once every file is known to be readable.
    static func source(datasets: [String], database: String?, takesDatabase: Bool = true) throws(CommandFailure) -> EvaluationSource {
        for path in datasets + (database.map { [$0] } ?? []) where !FileManager.default.isReadableFile(atPath: path) {
            let exists = FileManager.default.fileExists(atPath: path)
            throw CommandFailure("cannot read dataset '\(path)': \(exists ? "permission denied" : "no such file")")
        }
        // A file of the other kind would only fail on its first byte; say what it is instead.
        for path in datasets where fileStarts(path, with: sqliteHeader) {
            throw CommandFailure("'\(path)' is an SQLite event log, not a JSONL dataset: "
                + (takesDatabase ? "give it as --db \(path)" : "export its events first (smartstack export --db \(path) > events.jsonl)"))
        }
        if let database, fileStarts(database, with: Array("{".utf8)) {
            throw CommandFailure("'\(database)' given to --db holds JSONL events, not an SQLite event log: give it as a dataset "
                + "argument (without --db), or store it first (smartstack ingest \(database) --db events.db)")
        }
        return database.map { .database($0) } ?? .files(datasets)
    }

    /// The 16 bytes every SQLite database file begins with.
    static let sqliteHeader = Array("SQLite format 3\0".utf8)

    /// Whether the regular file at `path` begins with `prefix` (false when it cannot be read).
    static func fileStarts(_ path: String, with prefix: [UInt8]) -> Bool {
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var head = [UInt8](repeating: 0, count: prefix.count)
        let n = head.withUnsafeMutableBytes { fread($0.baseAddress, 1, prefix.count, file) }
        return n == prefix.count && head == prefix
    }

    /// The OPTIONS row of `--prior`.
    static let priorHelp = """
          --prior <file>          A population prior (smartstack prior learn;
                                  Datasets/PRIOR-FORMAT.md) for the policies that take
                                  one (contextual, bandit; population=0 ignores it)
        """

    /// Reads the population prior of `--prior` and names its file for partial results.
    static func loadPrior(_ path: String) throws(CommandFailure) -> (prior: PopulationPrior, file: PolicyInputFile) {
        do {
            let prior = try PopulationPrior(contentsOfFile: path)
            return (prior, PolicyInputFile(path: path, digest: "fnv1a64:" + prior.digest))
        } catch {
            throw CommandFailure("invalid population prior: \(error.message)")
        }
    }

    /// Parses `10m`, `90s`, `1.5h`, `1d` into seconds (the engine's `TimeSpan` syntax, positive).
    static func parseDuration(_ text: String, option: String) throws(UsageError) -> Double {
        guard let span = TimeSpan(parsing: text), span.seconds > 0 else {
            throw UsageError("invalid value '\(text)' for '\(option)': expected a positive duration such as 10m, 90s or 1h")
        }
        return span.seconds
    }

    /// Parses an integer of at least `minimum`.
    static func parseCount(_ text: String, option: String, minimum: Int) throws(UsageError) -> Int {
        guard let v = Int(text), v >= minimum else {
            throw UsageError("invalid value '\(text)' for '\(option)': expected an integer >= \(minimum)")
        }
        return v
    }
}
