import SmartStack

/// `smartstack rebuild --db <path> [--policy P]`: recomputes the saved engine state of every
/// user from the event log.
///
/// ```swift
/// let rebuild = try RebuildCommand(arguments: ["--db", "events.db", "--policy", "mru"])
/// // rebuild.policy == "mru"
/// ```
public struct RebuildCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "rebuild"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Recompute the saved engine state from the event log."
    /// The USAGE line.
    public static let usage = "smartstack rebuild --db <path> [--policy <policy>]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Deletes every saved user state, replays the whole log in the order events were stored
        and saves each user's state for the policy (default rotation parameters, seed 0).
        Rankings afterwards equal those of an engine that learned the events one by one. An
        engine also rebuilds a user's state by itself, with a notice, when the saved state does
        not match the log. Prints the number of users and events replayed.

        USAGE: \(usage)

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("--db <path>", "The event log (an SQLite file)."),
            ("--policy <policy>", "The policy whose state to save (default: \(PolicyRegistry.defaultPolicy))."),
            ("-h, --help", "Show help information."),
        ]))
        """

    /// The event log's path.
    public var database: String
    /// The policy as given (validated when run).
    public var policy: String

    /// Parses `--db <path> [--policy P]`.
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: ["--db", "--policy"], flags: [])
        try parsed.expectNoPositional()
        database = try parsed.required("--db")
        policy = parsed.value("--policy") ?? PolicyRegistry.defaultPolicy
        if database.isEmpty { throw UsageError("the value of '--db' is empty") }
        if policy.isEmpty { throw UsageError("the value of '--policy' is empty") }
    }

    /// Rebuilds and prints what was replayed.
    public func run(_ output: CommandOutput) throws -> Int32 {
        let spec: PolicySpec
        do { spec = try PolicySpec(parsing: policy) } catch { throw CommandFailure("--policy: \(error.message)") }
        let store = try openEventStore(at: database, .existing)
        do {
            let engine = try Engine(store: store, policy: spec)
            let summary = try engine.rebuild()
            try engine.close()
            output.print("rebuilt the \(spec) state of \(counted(summary.users, "user")) from \(counted(summary.events, "event"))")
        } catch let error as EngineError {
            throw CommandFailure(error.message)
        } catch {
            throw CommandFailure(describeStoreError(error, path: database, action: "cannot rebuild state in"))
        }
        return CommandLineTool.exitSuccess
    }
}
