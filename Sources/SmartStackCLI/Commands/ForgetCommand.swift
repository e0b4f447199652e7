import SmartStack

/// `smartstack forget --db <path> (--user <name> | --app <id>)...`: erases people or apps from
/// the event log everywhere, including the engine state derived from their events.
///
/// `--user U` deletes every event of U, U's name and U's saved engine state. `--app A` deletes
/// the launches of A, removes A's widgets from every stack configuration, deletes every event
/// naming one of those widgets (impressions, taps, swipes, pins, unpins, relevance hints) and
/// clears the saved state of every user who used A (see ``EventStore/erase(app:)``). Erased
/// content is overwritten on disk (`secure_delete`) and the write-ahead log is checkpointed.
///
/// ```swift
/// let forget = try ForgetCommand(arguments: ["--db", "events.db", "--user", "u07"])
/// // forget.users == ["u07"], forget.apps == []
/// ```
public struct ForgetCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "forget"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Erase a person or an app from an event log, everywhere."
    /// The USAGE line.
    public static let usage = "smartstack forget --db <path> (--user <name> | --app <id>)..."
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        --user deletes every event of that person, their name and the engine state derived
        from their events. --app deletes the app's launches, removes its widgets from every
        stack configuration, deletes every event naming one of those widgets (impressions,
        taps, swipes, pins, unpins, relevance hints) and clears the engine state of everyone
        who used it. A widget belongs to an app when a stack_config lists it with that "app".
        Erased content is overwritten on disk, not just unlinked. Give --user and --app as
        many times as needed; each person or app is erased whole (one transaction) or not
        at all, and an error says which were already erased. Given together, --user and
        --app are separate erasures: the app is erased for everyone, not only for that
        person. A name the log does not hold erases nothing, and a note says so (with the
        log's users for --user), so that a misspelt name is not taken for an erasure.

        USAGE: \(usage)

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("--db <path>", "The event log (an SQLite file)."),
            ("--user <name>", "Erase this person (repeatable)."),
            ("--app <id>", "Erase every trace of using this app (repeatable)."),
            ("-h, --help", "Show help information."),
        ]))

        EXAMPLES:
          smartstack forget --db events.db --user u07
          smartstack forget --db events.db --app com.example.diary --app com.example.bank
        """

    /// The event log's path.
    public var database: String
    /// People to erase, in the order given.
    public var users: [String]
    /// Apps to erase, in the order given.
    public var apps: [String]

    /// Creates the command from its parts.
    public init(database: String, users: [String] = [], apps: [String] = []) {
        self.database = database
        self.users = users
        self.apps = apps
    }

    /// Parses `--db <path> (--user <name> | --app <id>)...`.
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: ["--db", "--user", "--app"], flags: [])
        try parsed.expectNoPositional()
        database = try parsed.required("--db")
        if database.isEmpty { throw UsageError("the value of '--db' is empty") }
        users = parsed.values("--user")
        apps = parsed.values("--app")
        if users.isEmpty && apps.isEmpty {
            throw UsageError("say what to forget: give --user <name> or --app <id> (or both)")
        }
        if users.contains("") { throw UsageError("the value of '--user' is empty") }
        if apps.contains("") { throw UsageError("the value of '--app' is empty") }
    }

    /// Erases the users and apps, then prints one line per erasure on stdout.
    ///
    /// Each erasure is one transaction; a failure stops before the next one and says which
    /// were done.
    /// - Complexity: O(N) in the events of the log.
    public func run(_ output: CommandOutput) throws -> Int32 {
        let store = try openEventStore(at: database, .existing)
        var done: [String] = []
        func fail(_ error: any Error, _ what: String) -> CommandFailure {
            let previous = done.isEmpty ? "nothing was erased" : "already erased: " + done.joined(separator: ", ")
            return CommandFailure(describeStoreError(error, path: database, action: "cannot erase \(what) from")
                + "\n\(what) was not erased; \(previous)")
        }
        for user in users {
            let erased: Int
            do {
                erased = try store.erase(user: user)
            } catch {
                throw fail(error, "user '\(user)'")
            }
            done.append("user '\(user)'")
            output.print("forgot user '\(user)': \(counted(erased, "event")) erased, engine state cleared")
            if erased == 0 {
                let known = (try? store.users()) ?? []
                let list = known.isEmpty ? "it holds no events" : "its users: " + known.prefix(10).joined(separator: ", ")
                    + (known.count > 10 ? ", and \(known.count - 10) more" : "")
                output.printError("note: the log holds no events of user '\(user)' (\(list)): check the name if you expected some")
            }
        }
        for app in apps {
            let erasure: AppErasure
            do {
                erasure = try store.erase(app: app)
            } catch {
                throw fail(error, "app '\(app)'")
            }
            done.append("app '\(app)'")
            output.print("forgot app '\(app)': \(counted(erasure.deletedEvents, "event")) erased, "
                + "its widgets removed from \(counted(erasure.rewrittenStackConfigs, "stack configuration")), "
                + "engine state of \(counted(erasure.affectedUsers.count, "user")) cleared")
            if erasure.deletedEvents == 0 && erasure.rewrittenStackConfigs == 0 {
                output.printError("note: the log names no app '\(app)' (no launch of it, and no widget of it in a stack "
                    + "configuration): check the id (as in app_launch events and the 'app' of stack_config widgets) if you expected some")
            }
        }
        return CommandLineTool.exitSuccess
    }
}
