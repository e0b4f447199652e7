import Foundation
import SmartStack

/// `smartstack ingest <file.jsonl | -> --db <path> [--skip-invalid]`: adds the events of a
/// SmartStack JSONL v1 file to the event log.
///
/// All or nothing by default: the whole input is read and checked first, and any invalid line
/// aborts with `path:line:column: what is wrong` before the database is touched; the valid
/// events are then stored in one transaction. With `--skip-invalid` the valid lines are stored
/// and each invalid one is reported on stderr. Events whose id is already stored are skipped,
/// so ingesting the same file twice stores it once.
///
/// ```swift
/// let ingest = try IngestCommand(arguments: ["events.jsonl", "--db", "events.db"])
/// // ingest.input == "events.jsonl", ingest.database == "events.db", ingest.skipInvalid == false
/// ```
public struct IngestCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "ingest"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Add the events of a JSONL file to an event log."
    /// The USAGE line.
    public static let usage = "smartstack ingest <file> --db <path> [--skip-invalid]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Reads SmartStack JSONL v1 (one event per line; see Datasets/FORMAT.md). By default the
        ingest is all or nothing: an invalid line is reported as 'path:line:column: what is
        wrong' and nothing of the file is stored. Events whose id is already in the log are
        skipped, so ingesting a file twice stores it once.

        USAGE: \(usage)

        ARGUMENTS:
        \(CommandLineTool.helpRows([("<file>", "A JSONL file, or '-' to read standard input.")]))

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("--db <path>", "The event log (an SQLite file; created if missing)."),
            ("--skip-invalid", "Store the valid lines; report each invalid line and their count."),
            ("-h, --help", "Show help information."),
        ]))

        EXAMPLES:
          smartstack ingest events.jsonl --db events.db
          gunzip -c events.jsonl.gz | smartstack ingest - --db events.db --skip-invalid
        """

    /// The input path, `-` for standard input.
    public var input: String
    /// The event log's path.
    public var database: String
    /// Whether invalid lines are skipped (and reported) instead of aborting the ingest.
    public var skipInvalid: Bool

    /// Creates the command from its parts.
    public init(input: String, database: String, skipInvalid: Bool = false) {
        self.input = input
        self.database = database
        self.skipInvalid = skipInvalid
    }

    /// Parses `<file> --db <path> [--skip-invalid]`.
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: ["--db"], flags: ["--skip-invalid"])
        input = try parsed.singlePositional("<file> (a JSONL file, or '-' for standard input)")
        database = try parsed.required("--db")
        if input.isEmpty { throw UsageError("the input file name is empty") }
        if database.isEmpty { throw UsageError("the value of '--db' is empty") }
        skipInvalid = parsed.flag("--skip-invalid")
    }

    /// Reads, checks and stores the input; prints the summary line on stdout.
    ///
    /// - Complexity: O(n) in the size of the input; the parsed events are held in memory so the
    ///   whole file can be stored in one transaction.
    public func run(_ output: CommandOutput) throws -> Int32 {
        try checkInput()
        try checkDatabasePath(database, .createIfMissing)

        var reader: JSONLReader
        do {
            reader = try JSONLReader(path: input)
        } catch {
            throw CommandFailure(error.description)
        }
        var events: [Event] = []
        var invalidLines = 0
        var lastInvalidLine = -1
        let progress = Progress(output: output)
        while true {
            let event: Event?
            do {
                event = try reader.next()
            } catch {
                // Only a bad line may be skipped: a file that cannot be opened or read (any
                // more) aborts, and so does a reader stuck on one line, which would loop for ever.
                let isSkippable = skipInvalid && error.line > 0 && error.line != lastInvalidLine
                    && !Self.isReadFailure(error)
                guard isSkippable else {
                    progress.finish()
                    if error.line == 0 { throw CommandFailure(error.description) }
                    let hint = skipInvalid ? "" : " (--skip-invalid stores the valid lines, if any, and skips the invalid ones)"
                    throw CommandFailure("\(error.description)\nnothing was ingested\(hint)")
                }
                lastInvalidLine = error.line
                progress.clear()
                output.printError(error.description)
                invalidLines += 1
                continue
            }
            guard let event else { break }
            events.append(event)
            progress.update(lines: reader.lineNumber)
        }
        progress.finish()
        if events.isEmpty {
            // Only reachable with --skip-invalid: every line was invalid.
            throw CommandFailure("no valid events in \(input == "-" ? "<stdin>" : input): \(counted(invalidLines, "invalid line")), nothing was ingested")
        }

        let store = try openEventStore(at: database, .createIfMissing)
        let result: AppendResult
        do {
            result = try store.append(events)
        } catch {
            throw CommandFailure(describeStoreError(error, path: database, action: "cannot store events in") + "\nnothing was ingested")
        }

        var summary = "ingested \(counted(result.inserted, "event")) "
            + "(\(counted(result.duplicates, "duplicate")) skipped) into \(database)"
        if skipInvalid {
            summary += ", \(counted(invalidLines, "invalid line")) skipped"
        }
        output.print(summary)
        return CommandLineTool.exitSuccess
    }

    /// Whether `error` is the reader failing to read (an I/O error), not a bad line.
    /// `JSONLError` has no kind; the reader words such errors `cannot read: ...`.
    static func isReadFailure(_ error: JSONLError) -> Bool {
        error.field == nil && error.message.hasPrefix("cannot read")
    }

    private func checkInput() throws(CommandFailure) {
        guard input != "-" else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
            throw CommandFailure("no such file: \(input)")
        }
        if isDirectory.boolValue { throw CommandFailure("'\(input)' is a directory, not a JSONL file") }
    }
}

/// A line counter on stderr, only when stderr is a terminal, redrawn every 100,000 lines.
private final class Progress {
    private let output: CommandOutput
    private var nextReport = 100_000
    private var isShown = false

    init(output: CommandOutput) { self.output = output }

    func update(lines: Int) {
        guard output.standardErrorIsTerminal, lines >= nextReport else { return }
        nextReport = lines + 100_000
        output.standardError("\rread \(formatCount(lines)) lines...")
        isShown = true
    }

    /// Erases the counter so a diagnostic starts on a clean line; it reappears on the next update.
    func clear() {
        guard isShown else { return }
        output.standardError("\r\u{1B}[K")
        isShown = false
    }

    func finish() { clear() }
}
