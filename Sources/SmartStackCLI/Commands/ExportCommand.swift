import Foundation
import SmartStack

/// `smartstack export --db <path> [--user U] [--from T] [--to T] [--type T]`: writes events of
/// the log as canonical SmartStack JSONL v1 on stdout, in time order.
///
/// Exporting, ingesting the output into a new log and exporting again gives the same bytes.
///
/// ```swift
/// let export = try ExportCommand(arguments: ["--db", "events.db", "--type", "app_launch,widget_tap"])
/// // export.query.types == [.appLaunch, .widgetTap]
/// ```
public struct ExportCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "export"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Write events of an event log as JSONL, in time order."
    /// The USAGE line.
    public static let usage = "smartstack export --db <path> [--user <user>] [--from <time>] [--to <time>] [--type <type> ...]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Writes canonical SmartStack JSONL v1 on standard output, one event per line, ordered by
        time (ties in the order they were stored). Exporting, ingesting into a new log and
        exporting again gives identical bytes. Times are RFC 3339 with a UTC offset, e.g.
        2013-03-27T08:05:00-04:00 or 2013-03-27T12:05:00Z.

        USAGE: \(usage)

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("--db <path>", "The event log (an SQLite file)."),
            ("--user <user>", "Only this user's events."),
            ("--from <time>", "Only events at or after this time (inclusive)."),
            ("--to <time>", "Only events before this time (exclusive)."),
            ("--type <type>", "Only these types; repeat or separate with commas."),
            ("", "Types: \(EventType.allCases.map(\.rawValue).joined(separator: ", "))."),
            ("-h, --help", "Show help information."),
        ]))

        EXAMPLES:
          smartstack export --db events.db > events.jsonl
          smartstack export --db events.db --user u07 --from 2013-03-27T00:00:00-04:00 --type app_launch
        """

    /// The event log's path.
    public var database: String
    /// Which events to write.
    public var query: EventQuery

    /// Creates the command from its parts.
    public init(database: String, query: EventQuery = EventQuery()) {
        self.database = database
        self.query = query
    }

    /// Parses `--db <path> [--user U] [--from T] [--to T] [--type T]...`.
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: ["--db", "--user", "--from", "--to", "--type"], flags: [])
        try parsed.expectNoPositional()
        database = try parsed.required("--db")
        if database.isEmpty { throw UsageError("the value of '--db' is empty") }
        var query = EventQuery()
        if let user = parsed.value("--user") {
            if user.isEmpty { throw UsageError("the value of '--user' is empty") }
            query.user = user
        }
        query.from = try Self.time(parsed.value("--from"), option: "--from")
        query.to = try Self.time(parsed.value("--to"), option: "--to")
        if let from = query.from, let to = query.to, to.nanosecondsSinceEpoch < from.nanosecondsSinceEpoch {
            throw UsageError("'--to' (\(to.rfc3339)) is before '--from' (\(from.rfc3339))")
        }
        let typeValues = parsed.values("--type")
        if !typeValues.isEmpty { query.types = try Self.types(typeValues) }
        self.query = query
    }

    /// Streams the matching events to stdout in 64 KiB writes.
    ///
    /// - Complexity: O(n) in the number of matching events, constant memory.
    public func run(_ output: CommandOutput) throws -> Int32 {
        let store = try openEventStoreForReading(at: database)
        let chunk = 1 << 16
        var buffer: [UInt8] = []
        buffer.reserveCapacity(chunk + 4096)
        do {
            try store.forEach(query) { _, event in
                JSONLWriter.append(event, to: &buffer)
                if buffer.count >= chunk {
                    output.write(bytes: buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
        } catch {
            throw CommandFailure(describeStoreError(error, path: database, action: "cannot read database"))
        }
        if !buffer.isEmpty { output.write(bytes: buffer) }
        return CommandLineTool.exitSuccess
    }

    /// Parses a time option, naming the option and the problem on failure.
    static func time(_ text: String?, option: String) throws(UsageError) -> EventTime? {
        guard let text else { return nil }
        do {
            return try EventTime(rfc3339: text)
        } catch {
            throw UsageError("invalid value '\(text)' for '\(option)': \(error.message); expected RFC 3339 with an offset, e.g. 2013-03-27T08:05:00-04:00")
        }
    }

    /// Parses `--type` values: each a type name or a comma-separated list of them.
    static func types(_ values: [String]) throws(UsageError) -> Set<EventType> {
        var types: Set<EventType> = []
        for value in values {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let name = item.trimmingCharacters(in: .whitespaces)
                guard let type = EventType(rawValue: name) else {
                    let valid = EventType.allCases.map(\.rawValue).joined(separator: ", ")
                    let shown = name.isEmpty ? "an empty type name" : "unknown event type '\(name)'"
                    throw UsageError("\(shown) for '--type' (valid types: \(valid))")
                }
                types.insert(type)
            }
        }
        return types
    }
}
