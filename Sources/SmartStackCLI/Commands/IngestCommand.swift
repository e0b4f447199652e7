import Foundation
import SmartStack
import SmartStackDatasets

/// `smartstack ingest <file.jsonl | -> --db <path> [--skip-invalid] [--retain-days N]
/// [--coarse-locations]`: adds the events of a SmartStack JSONL v1 file to the event log.
///
/// All or nothing by default, with bounded memory: the input is parsed and stored in batches
/// of ``batchSize`` events inside ONE transaction, so any invalid line (reported as
/// `path:line:column: what is wrong`), a full disk or a kill rolls back everything of the file.
/// With `--skip-invalid` the valid lines are stored and each invalid one is reported on stderr.
/// Events whose id is already stored are skipped, so ingesting the same file twice stores it
/// once. `--retain-days N` then deletes events more than N days older than the newest event of
/// the log (and the engine state derived from them); `--coarse-locations` stores locations
/// rounded to about 100 m.
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
    public static let usage = "smartstack ingest <file> --db <path> [--skip-invalid] [--retain-days <n>] [--coarse-locations]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Reads SmartStack JSONL v1 (one event per line; see Datasets/FORMAT.md), plain or
        gzip-compressed (recognised by its first bytes, whatever its name). By default the
        ingest is all or nothing: an invalid line is reported as 'path:line:column: what is
        wrong' and nothing of the file is stored. The file goes in as one transaction,
        in batches of 10,000 events: memory stays bounded whatever its size, and a
        crash or a kill never leaves part of it stored. Events whose id is already in
        the log are skipped, so ingesting a file twice stores it once.

        USAGE: \(usage)

        ARGUMENTS:
        \(CommandLineTool.helpRows([("<file>", "A JSONL or gzip-compressed JSONL file, or '-' to read standard input.")]))

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("--db <path>", "The event log (an SQLite file, mode 0600; created if missing)."),
            ("--skip-invalid", "Store the valid lines; report each invalid line and their count."),
            ("--retain-days <n>", "Then delete events more than n days older than the newest event in the log, and the engine state derived from them."),
            ("--coarse-locations", "Store locations rounded to about 100 m (0.001 degree, accuracy at least 100 m); exact coordinates never reach the disk."),
            ("-h, --help", "Show help information."),
        ]))

        EXAMPLES:
          smartstack ingest events.jsonl --db events.db
          smartstack ingest events.jsonl.gz --db events.db --skip-invalid
          smartstack ingest today.jsonl --db events.db --retain-days 30 --coarse-locations
        """

    /// Events parsed and stored per batch inside the ingest's single transaction.
    public static let batchSize = 10_000

    /// The input path, `-` for standard input.
    public var input: String
    /// The event log's path.
    public var database: String
    /// Whether invalid lines are skipped (and reported) instead of aborting the ingest.
    public var skipInvalid: Bool
    /// Retention window in days after the ingest (relative to the newest event), if any.
    public var retainDays: Int?
    /// Whether locations are coarsened to about 100 m before they are stored.
    public var coarsensLocations: Bool

    /// Creates the command from its parts.
    public init(input: String, database: String, skipInvalid: Bool = false, retainDays: Int? = nil,
                coarsensLocations: Bool = false) {
        self.input = input
        self.database = database
        self.skipInvalid = skipInvalid
        self.retainDays = retainDays
        self.coarsensLocations = coarsensLocations
    }

    /// Parses `<file> --db <path> [--skip-invalid] [--retain-days <n>] [--coarse-locations]`.
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: ["--db", "--retain-days"],
                                         flags: ["--skip-invalid", "--coarse-locations"])
        input = try parsed.singlePositional("<file> (a JSONL file, or '-' for standard input)")
        database = try parsed.required("--db")
        if input.isEmpty { throw UsageError("the input file name is empty") }
        if database.isEmpty { throw UsageError("the value of '--db' is empty") }
        skipInvalid = parsed.flag("--skip-invalid")
        coarsensLocations = parsed.flag("--coarse-locations")
        if let text = parsed.value("--retain-days") {
            guard let days = Int(text), days >= 0 else {
                throw UsageError("the value of '--retain-days' must be a whole number of days, 0 or more (got '\(text)')")
            }
            retainDays = days
        } else {
            retainDays = nil
        }
    }

    /// Reads, checks and stores the input; prints the summary line on stdout.
    ///
    /// - Complexity: O(n) in the size of the input; memory is bounded by one batch of
    ///   ``batchSize`` events (plus SQLite's page cache), whatever the size of the input.
    public func run(_ output: CommandOutput) throws -> Int32 {
        try checkInput()
        try checkDatabasePath(database, .createIfMissing)

        var batches: Batches
        do {
            batches = Batches(reader: try JSONLReader(detectingGzip: input), skipInvalid: skipInvalid,
                              progress: Progress(output: output), output: output)
        } catch {
            throw CommandFailure(error.description)
        }
        // The first batch is read before the database is opened, so a file that is empty or
        // bad from its first lines never creates it.
        guard let first = try batches.next() else {
            if batches.isEmptyInput {
                // No events is a valid batch, as for smartstack_record (docs/contract.md): nothing
                // to store, and the database is left as it is (not created).
                output.print("ingested 0 events (0 duplicates skipped): \(input == "-" ? "<stdin>" : input) holds no events; "
                    + "\(database) was left as it is")
                return CommandLineTool.exitSuccess
            }
            // Only reachable with --skip-invalid: every line was invalid.
            throw CommandFailure(noValidEvents(batches.invalidLines))
        }
        let existed = FileManager.default.fileExists(atPath: database)
        let store: EventStore
        do {
            store = try EventStore(path: database, options: EventStore.Options(coarsensLocations: coarsensLocations))
        } catch {
            throw CommandFailure(describeStoreError(error, path: database, action: "cannot open database")
                + "\nnothing was ingested")
        }
        var pending: [Event]? = first
        let result: AppendResult
        do {
            result = try store.append(batches: {
                if let batch = pending {
                    pending = nil
                    return batch
                }
                return try batches.next()
            })
        } catch let failure as CommandFailure {
            if !existed { removeDatabase() }
            throw failure
        } catch {
            if !existed { removeDatabase() }
            throw CommandFailure(describeStoreError(error, path: database, action: "cannot store events in") + "\nnothing was ingested")
        }
        batches.progress.finish()

        var summary = "ingested \(counted(result.inserted, "event")) "
            + "(\(counted(result.duplicates, "duplicate")) skipped) into \(database)"
        if skipInvalid {
            summary += ", \(counted(batches.invalidLines, "invalid line")) skipped"
        }
        if let retainDays {
            let deleted: Int
            do {
                deleted = try store.deleteEvents(olderThanDays: retainDays)
            } catch {
                output.print(summary)
                throw CommandFailure(describeStoreError(error, path: database, action: "cannot apply retention to")
                    + "\nthe events were ingested; the retention was not applied")
            }
            summary += "; retention \(counted(retainDays, "day")): \(counted(deleted, "older event")) deleted"
        }
        output.print(summary)
        return CommandLineTool.exitSuccess
    }

    private func noValidEvents(_ invalidLines: Int) -> String {
        "no valid events in \(input == "-" ? "<stdin>" : input): \(counted(invalidLines, "invalid line")), nothing was ingested"
    }

    /// Removes a database this ingest created and then failed to fill, with SQLite's
    /// companion files, so a failed ingest leaves no trace.
    private func removeDatabase() {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: database + suffix)
        }
    }

    /// The input's events in batches of ``IngestCommand/batchSize``, reporting (and skipping, with
    /// `--skip-invalid`) invalid lines as it goes.
    private struct Batches {
        var reader: JSONLReader
        let skipInvalid: Bool
        let progress: Progress
        let output: CommandOutput
        var invalidLines = 0
        var lastInvalidLine = -1
        var isFinished = false
        /// The input held no event at all (empty, or blank lines only).
        var isEmptyInput = false

        init(reader: JSONLReader, skipInvalid: Bool, progress: Progress, output: CommandOutput) {
            self.reader = reader
            self.skipInvalid = skipInvalid
            self.progress = progress
            self.output = output
        }

        /// The next batch, `nil` at the end; throws a ``CommandFailure`` for an invalid line
        /// (unless skipped) or a read failure.
        mutating func next() throws(CommandFailure) -> [Event]? {
            guard !isFinished else { return nil }
            var batch: [Event] = []
            batch.reserveCapacity(IngestCommand.batchSize)
            while batch.count < IngestCommand.batchSize {
                let event: Event?
                do {
                    event = try reader.next()
                } catch where error.isEmptyInput {
                    isEmptyInput = true
                    isFinished = true
                    break
                } catch {
                    // Only a bad line may be skipped: a file that cannot be opened or read (any
                    // more) aborts, and so does a reader stuck on one line, which would loop for ever.
                    let isSkippable = skipInvalid && error.line > 0 && error.line != lastInvalidLine
                        && !IngestCommand.isReadFailure(error)
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
                guard let event else {
                    isFinished = true
                    break
                }
                batch.append(event)
                progress.update(lines: reader.lineNumber)
            }
            return batch.isEmpty && isFinished ? nil : batch
        }
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
        // Reading a database as JSONL would only fail on its first line; say what it is.
        var a = stat(), b = stat()
        if stat(input, &a) == 0, stat(database, &b) == 0, a.st_dev == b.st_dev, a.st_ino == b.st_ino {
            throw CommandFailure("'\(input)' is the database given by --db: ingest reads JSONL events into it "
                + "(give the .jsonl file as input)")
        }
        if ReplayArguments.fileStarts(input, with: ReplayArguments.sqliteHeader) {
            throw CommandFailure("'\(input)' is an SQLite database, not JSONL events; to copy a log's events into "
                + "another: smartstack export --db \(input) | smartstack ingest - --db \(database)")
        }
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
