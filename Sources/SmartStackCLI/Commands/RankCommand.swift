import SmartStack

/// `smartstack rank --db <path> --stack <id> --at <time> [--user U] [--policy P] [--json]`: the
/// ranking of a stack as the engine would have answered at an instant (only events strictly
/// before it count).
///
/// ```swift
/// let rank = try RankCommand(arguments: ["--db", "events.db", "--stack", "home",
///                                        "--at", "2013-03-27T08:05:00-04:00", "--json"])
/// // rank.stack == "home", rank.isJSON == true
/// ```
public struct RankCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "rank"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Rank a stack's widgets as the engine would have at an instant."
    /// The USAGE line.
    public static let usage =
        "smartstack rank --db <path> --stack <id> --at <time> [--user <user>] [--policy <policy>] [--prior <file>] [--json]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Replays the user's events strictly before --at (in the order they were stored) and
        ranks the stack: pinned widget first, then eligible widgets by score, then ineligible
        ones. A saved engine state is used as the starting point when every event it covers is
        before --at. Without --json prints a table: rank, widget, score, eligible, and the two
        main reasons with their contributions. With --json prints one object, top first:
          {"stack":"<id>","user":"<user>","at":"<time>","policy":"<policy>",
           "ranking":[{"widget":"<id>","score":<number|null>,"eligible":<bool>,
                       "reasons":[{"text":"<why>","contribution":<number>},...]},...]}
        where score is null when not finite and reasons are largest contribution first.

        USAGE: \(usage)

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("--db <path>", "The event log (an SQLite file)."),
            ("--stack <id>", "The stack to rank."),
            ("--at <time>", "The instant, RFC 3339 with a UTC offset, e.g. 2013-03-27T08:05:00-04:00."),
            ("--user <user>", "Whose stack (default: the only user of the log)."),
            ("--policy <policy>", "The policy, e.g. contextual:half_life=14d (default: \(PolicyRegistry.defaultPolicy); see 'smartstack policies')."),
            ("--prior <file>", "A population prior (smartstack prior learn; Datasets/PRIOR-FORMAT.md) for a policy that takes one: reasons say when it decided."),
            ("--json", "Print one JSON object on standard output."),
            ("-h, --help", "Show help information."),
        ]))
        """

    /// The event log's path.
    public var database: String
    /// The stack to rank.
    public var stack: String
    /// The instant as given (validated when run).
    public var at: String
    /// The user, if given.
    public var user: String?
    /// The policy as given (validated when run).
    public var policy: String
    /// The population prior's file, if given (read when run).
    public var prior: String?
    /// Whether to print JSON instead of a table.
    public var isJSON: Bool

    /// Parses the options; values are checked when run (exit 1 for a bad time or policy).
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: ["--db", "--stack", "--at", "--user", "--policy", "--prior"],
                                         flags: ["--json"])
        try parsed.expectNoPositional()
        database = try parsed.required("--db")
        stack = try parsed.required("--stack")
        at = try parsed.required("--at")
        user = parsed.value("--user")
        policy = parsed.value("--policy") ?? PolicyRegistry.defaultPolicy
        prior = parsed.value("--prior")
        isJSON = parsed.flag("--json")
        for (name, value) in [("--db", database), ("--stack", stack), ("--at", at), ("--policy", policy), ("--user", user ?? "-"), ("--prior", prior ?? "-")]
        where value.isEmpty {
            throw UsageError("the value of '\(name)' is empty")
        }
    }

    /// Replays, ranks and prints.
    public func run(_ output: CommandOutput) throws -> Int32 {
        let time: EventTime
        do { time = try EventTime(rfc3339: at) } catch {
            throw CommandFailure("--at '\(at)': \(error.message), e.g. 2013-03-27T08:05:00-04:00")
        }
        let spec: PolicySpec
        do { spec = try PolicySpec(parsing: policy) } catch { throw CommandFailure("--policy: \(error.message)") }
        let population = try prior.map(ReplayArguments.loadPrior)?.prior
        let store = try openEventStoreForReading(at: database)
        let result: Engine.HistoricalRanking
        do {
            let engine = try Engine(store: store, policy: spec, prior: population)
            let who = try user ?? Self.onlyUser(of: store)
            defer { for notice in engine.notices { output.printError("notice: " + notice) } }
            result = try engine.ranking(stack: stack, user: who, before: time)
        } catch let error as EngineError {
            throw CommandFailure(error.message)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(describeStoreError(error, path: database, action: "cannot read database"))
        }
        output.print(isJSON ? Self.json(result.ranking) : Self.table(result.ranking))
        return CommandLineTool.exitSuccess
    }

    /// The single user of `store`, or a failure listing the users to choose from.
    static func onlyUser(of store: EventStore) throws -> String {
        let users = try store.users()
        if users.count == 1 { return users[0] }
        if users.isEmpty { throw CommandFailure("the database holds no events") }
        let shown = users.prefix(10).joined(separator: ", ") + (users.count > 10 ? ", ..." : "")
        throw CommandFailure("the database holds \(users.count) users; choose one with --user (\(shown))")
    }

    /// The `--json` object: keys in a fixed order, widgets top first (the JSON `smartstack_rank`
    /// returns too).
    ///
    /// - Complexity: O(widgets · reasons).
    public static func json(_ ranking: Ranking) -> String {
        RankingJSON.string(ranking)
    }

    /// The table for people: one row per widget, top first, columns aligned.
    ///
    /// ```
    /// RANK  WIDGET    SCORE  ELIGIBLE  REASONS
    ///    1  mail      1.234  yes       after com.slack (+0.80); 08:00 on weekdays (+0.41)
    /// ```
    /// - Complexity: O(widgets · reasons).
    public static func table(_ ranking: Ranking) -> String {
        let header = ["RANK", "WIDGET", "SCORE", "ELIGIBLE", "REASONS"]
        var rows: [[String]] = []
        for (i, widget) in ranking.widgets.enumerated() {
            let reasons = widget.reasons.prefix(2).map { "\($0.text) (\(signed($0.contribution)))" }
            rows.append([String(i + 1), widget.widget, fixed(widget.score), widget.isEligible ? "yes" : "no",
                         reasons.isEmpty ? "-" : reasons.joined(separator: "; ")])
        }
        var widths = header.map(\.count)
        for row in rows { for c in 0..<4 { widths[c] = max(widths[c], row[c].count) } }
        func line(_ cells: [String]) -> String {
            let rank = String(repeating: " ", count: widths[0] - cells[0].count) + cells[0]
            let widget = cells[1] + String(repeating: " ", count: widths[1] - cells[1].count)
            let score = String(repeating: " ", count: widths[2] - cells[2].count) + cells[2]
            let eligible = cells[3] + String(repeating: " ", count: widths[3] - cells[3].count)
            return [rank, widget, score, eligible, cells[4]].joined(separator: "  ")
        }
        var lines = ["\(ranking.stack) for \(ranking.user) at \(ranking.at.rfc3339) (policy \(ranking.policy))", ""]
        lines.append(line(header))
        lines += rows.map(line)
        if rows.isEmpty { lines.append("(the stack has no widgets)") }
        return lines.joined(separator: "\n")
    }

    /// A JSON string literal, escaped as event lines are (`JSONLWriter.string`).
    static func jsonString(_ text: String) -> String { JSONLWriter.string(text) }

    /// `x` with `digits` decimals, rounded (`-inf`/`inf`/`nan` as such).
    static func fixed(_ x: Double, digits: Int = 3) -> String {
        guard x.isFinite else { return x.isNaN ? "nan" : (x < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (x * scale).rounded()
        let magnitude = Int64(abs(scaled))
        let unit = Int64(scale)
        let fraction = String(magnitude % unit)
        return (scaled < 0 ? "-" : "") + "\(magnitude / unit)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// `+0.41` / `-0.12`.
    static func signed(_ x: Double) -> String {
        let text = fixed(x, digits: 2)
        return text.hasPrefix("-") ? text : "+" + text
    }
}
