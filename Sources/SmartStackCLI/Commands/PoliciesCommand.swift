import SmartStack

/// `smartstack policies [--json]`: every built-in policy with a one-line description and its
/// parameters.
///
/// ```swift
/// let policies = try PoliciesCommand(arguments: ["--json"])
/// // policies.isJSON == true
/// ```
public struct PoliciesCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "policies"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "List the ranking policies and their parameters."
    /// The USAGE line.
    public static let usage = "smartstack policies [--json]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        A policy is chosen as name[:key=value,...], e.g. contextual:half_life=14d; durations take
        a unit (45s, 30m, 2h, 14d, 1w). With --json prints one array:
          [{"name":"<name>","summary":"<text>","default":<bool>,
            "parameters":[{"name":"<key>","default":"<value>","summary":"<text>"},...]},...]

        USAGE: \(usage)

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("--json", "Print one JSON array on standard output."),
            ("-h, --help", "Show help information."),
        ]))
        """

    /// Whether to print JSON instead of a list.
    public var isJSON: Bool

    /// Parses `[--json]`.
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: [], flags: ["--json"])
        try parsed.expectNoPositional()
        isJSON = parsed.flag("--json")
    }

    /// Prints the policies.
    public func run(_ output: CommandOutput) throws -> Int32 {
        output.print(isJSON ? Self.json(PolicyRegistry.policies) : Self.list(PolicyRegistry.policies))
        return CommandLineTool.exitSuccess
    }

    /// The list for people: each policy and its summary, then its parameters indented, with
    /// names and defaults aligned.
    ///
    /// - Complexity: O(policies · parameters).
    public static func list(_ policies: [PolicyInfo]) -> String {
        var rows: [(name: String, text: String)] = []
        for (i, policy) in policies.enumerated() {
            if i > 0 { rows.append(("", "")) }
            let marker = policy.name == PolicyRegistry.defaultPolicy ? " (default)" : ""
            rows.append((policy.name, policy.summary + marker))
            rows += policy.parameters.map { ("  \($0.name)=\($0.defaultValue)", $0.summary) }
        }
        let text = CommandLineTool.helpRows(rows).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.allSatisfy { $0 == " " } ? "" : String($0) }.joined(separator: "\n")
        return "POLICIES (name[:key=value,...]; parameters shown with their defaults):\n\n" + text
    }

    /// The `--json` array, policies in listing order.
    ///
    /// - Complexity: O(policies · parameters).
    public static func json(_ policies: [PolicyInfo]) -> String {
        let items = policies.map { policy in
            let parameters = policy.parameters.map {
                "{\"name\":\(RankCommand.jsonString($0.name)),\"default\":\(RankCommand.jsonString($0.defaultValue)),"
                    + "\"summary\":\(RankCommand.jsonString($0.summary))}"
            }.joined(separator: ",")
            return "{\"name\":\(RankCommand.jsonString(policy.name)),\"summary\":\(RankCommand.jsonString(policy.summary)),"
                + "\"default\":\(policy.name == PolicyRegistry.defaultPolicy),\"parameters\":[\(parameters)]}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }
}
