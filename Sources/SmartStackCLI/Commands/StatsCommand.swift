import SmartStack

/// `smartstack stats --db <path> [--json]`: counts of the event log, as a table for people or
/// one JSON object for programs.
///
/// ```swift
/// let stats = try StatsCommand(arguments: ["--db", "events.db", "--json"])
/// // stats.isJSON == true
/// ```
public struct StatsCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "stats"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Show an event log's counts: events, users, per type."
    /// The USAGE line.
    public static let usage = "smartstack stats --db <path> [--json]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Prints the number of events and users, the first and last event times and the count of
        each event type. With --json, prints one object instead:
          {"events":N,"users":N,"by_type":{"stack_config":N,...},"first":"<time>","last":"<time>"}
        where first and last are null for an empty log; by_type lists every type.

        USAGE: \(usage)

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("--db <path>", "The event log (an SQLite file)."),
            ("--json", "Print one JSON object on standard output."),
            ("-h, --help", "Show help information."),
        ]))
        """

    /// The event log's path.
    public var database: String
    /// Whether to print JSON instead of a table.
    public var isJSON: Bool

    /// Creates the command from its parts.
    public init(database: String, isJSON: Bool = false) {
        self.database = database
        self.isJSON = isJSON
    }

    /// Parses `--db <path> [--json]`.
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: ["--db"], flags: ["--json"])
        try parsed.expectNoPositional()
        database = try parsed.required("--db")
        if database.isEmpty { throw UsageError("the value of '--db' is empty") }
        isJSON = parsed.flag("--json")
    }

    /// Reads the statistics and prints them.
    public func run(_ output: CommandOutput) throws -> Int32 {
        let store = try openEventStoreForReading(at: database)
        let statistics: EventStatistics
        do {
            statistics = try store.statistics()
        } catch {
            throw CommandFailure(describeStoreError(error, path: database, action: "cannot read database"))
        }
        output.print(isJSON ? Self.json(statistics) : Self.table(statistics))
        return CommandLineTool.exitSuccess
    }

    /// The `--json` object, keys in a fixed order, every event type under `by_type`.
    ///
    /// - Complexity: O(number of event types).
    public static func json(_ statistics: EventStatistics) -> String {
        func time(_ t: EventTime?) -> String { t.map { "\"\($0.rfc3339)\"" } ?? "null" }
        let byType = EventType.allCases
            .map { "\"\($0.rawValue)\":\(statistics.byType[$0] ?? 0)" }
            .joined(separator: ",")
        return "{\"events\":\(statistics.events),\"users\":\(statistics.users),\"by_type\":{\(byType)},"
            + "\"first\":\(time(statistics.first)),\"last\":\(time(statistics.last))}"
    }

    /// The table for people: totals, time bounds, then one row per event type, counts
    /// right-aligned in one column.
    ///
    /// ```
    /// events                 12
    /// users                   3
    /// first                  2013-03-27T08:05:00-04:00
    /// last                   2013-03-28T11:32:00+01:00
    ///
    /// by type:
    ///   stack_config          1
    /// ```
    /// - Complexity: O(number of event types).
    public static func table(_ statistics: EventStatistics) -> String {
        let counts = EventType.allCases.map { ("  " + $0.rawValue, formatCount(statistics.byType[$0] ?? 0)) }
        let totals = [("events", formatCount(statistics.events)), ("users", formatCount(statistics.users))]
        let nameWidth = (totals + counts).map { $0.0.count }.max() ?? 0
        let numberWidth = (totals + counts).map { $0.1.count }.max() ?? 0
        func row(_ name: String, _ value: String, rightAligned: Bool = true) -> String {
            let gap = String(repeating: " ", count: nameWidth - name.count + 2)
            let pad = rightAligned ? String(repeating: " ", count: numberWidth - value.count) : ""
            return name + gap + pad + value
        }
        var lines = totals.map { row($0.0, $0.1) }
        lines.append(row("first", statistics.first?.rfc3339 ?? "none", rightAligned: false))
        lines.append(row("last", statistics.last?.rfc3339 ?? "none", rightAligned: false))
        lines.append("")
        lines.append("by type:")
        lines += counts.map { row($0.0, $0.1) }
        return lines.joined(separator: "\n")
    }
}
