// CONTRACT — the CLI helper may extend this file (keep these signatures).

/// Where a command writes. Tests capture both streams; the executable writes to the real ones.
public final class CommandOutput {
    public var standardOutput: (String) -> Void
    public var standardError: (String) -> Void
    /// Whether stderr is an interactive terminal (progress bars only then).
    public var standardErrorIsTerminal: Bool

    public init(standardOutput: @escaping (String) -> Void, standardError: @escaping (String) -> Void,
                standardErrorIsTerminal: Bool = false) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardErrorIsTerminal = standardErrorIsTerminal
    }

    /// Writes `text` and a newline to stdout.
    public func print(_ text: String) { standardOutput(text + "\n") }
    /// Writes `text` and a newline to stderr.
    public func printError(_ text: String) { standardError(text + "\n") }
}

/// A mistake in how the command was called: exit 64, with the usage line.
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A failure while running a well-formed command (bad input file, unknown stack...): exit 1.
public struct CommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A `smartstack` subcommand. Parsing is pure (`init(arguments:)`), running does the work.
public protocol SubcommandProtocol: Sendable {
    /// The subcommand's name, e.g. `ingest`.
    static var name: String { get }
    /// One line for the SUBCOMMANDS list.
    static var abstract: String { get }
    /// The full help text (OVERVIEW / USAGE / OPTIONS), printed by `--help` and `help <name>`.
    static var help: String { get }
    /// The single USAGE line, repeated under errors.
    static var usage: String { get }
    /// Parses the arguments after the subcommand name. `--help` is handled before this.
    init(arguments: [String]) throws(UsageError)
    /// Runs; throws `CommandFailure` (exit 1) or `UsageError` (exit 64). Returns the exit code.
    func run(_ output: CommandOutput) throws -> Int32
}

/// Splits arguments into options with values, flags and positionals, rejecting unknown ones.
public struct ParsedArguments: Sendable {
    public private(set) var positional: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// - Parameters:
    ///   - options: names (with dashes) that take a value, as `--db path` or `--db=path`.
    ///   - flags: names that take no value.
    public init(_ arguments: [String], options: Set<String>, flags: Set<String>) throws(UsageError) {
        var i = 0
        var onlyPositional = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositional || !arg.hasPrefix("-") || arg == "-" {
                positional.append(arg)
                continue
            }
            if arg == "--" { onlyPositional = true; continue }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            if options.contains(name) {
                if let inline {
                    values[name, default: []].append(inline)
                } else {
                    guard i < arguments.count else { throw UsageError("missing value for '\(name)'") }
                    values[name, default: []].append(arguments[i])
                    i += 1
                }
            } else if flags.contains(name), inline == nil {
                self.flags.insert(name)
            } else if flags.contains(name) {
                throw UsageError("'\(name)' takes no value")
            } else {
                throw UsageError("unknown option '\(name)'")
            }
        }
    }

    /// The last value given for `name`, if any.
    public func value(_ name: String) -> String? { values[name]?.last }
    /// All values given for `name`, in order.
    public func values(_ name: String) -> [String] { values[name] ?? [] }
    /// Whether the flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }
    /// The value of a required option.
    public func required(_ name: String) throws(UsageError) -> String {
        guard let v = value(name) else { throw UsageError("missing required option '\(name)'") }
        return v
    }
}
