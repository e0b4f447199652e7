import SmartStack

/// The `smartstack` command line: dispatches to a subcommand, prints help, version and errors,
/// and turns the outcome into an exit code. It touches no global state, so tests run it in-process.
///
/// ```swift
/// var out = ""
/// let output = CommandOutput(standardOutput: { out += $0 }, standardError: { _ in })
/// let code = CommandLineTool.run(arguments: ["--version"], output: output)
/// // code == 0, out == "smartstack 0.1.0\n"
/// ```
public enum CommandLineTool {
    /// The version printed by `smartstack --version`.
    public static let version = "0.1.0"

    /// The executable's name as shown in help and errors.
    public static let name = "smartstack"

    /// Exit code for a successful run.
    public static let exitSuccess: Int32 = 0
    /// Exit code for a failure while running a well-formed command (bad input, missing database...).
    public static let exitFailure: Int32 = 1
    /// Exit code for a command line that is not understood (BSD `EX_USAGE`).
    public static let exitUsage: Int32 = 64

    /// The top-level USAGE line.
    public static let usage = "\(name) <subcommand> [<options>]"

    /// Runs one command line and returns its exit code.
    ///
    /// - Parameters:
    ///   - arguments: the arguments after the executable name (`CommandLine.arguments.dropFirst()`).
    ///   - output: where to write; help, `--version` and results go to stdout, errors to stderr.
    ///   - subcommands: the subcommands offered (every one by default).
    /// - Returns: 0 on success, 1 when the command failed, 64 when it was not understood.
    /// Runs with the arguments as the operating system gives them, bytes: one that is not UTF-8
    /// is a usage error naming it and its first bad byte (as the C API refuses such a name),
    /// never repaired into U+FFFD and looked up as another name.
    public static func run(argumentBytes: [[UInt8]], output: CommandOutput,
                           subcommands: [any SubcommandProtocol.Type] = allSubcommands) -> Int32 {
        var arguments: [String] = []
        for (i, bytes) in argumentBytes.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                let what = i > 0 && arguments[i - 1].hasPrefix("--") ? "the value of '\(arguments[i - 1])'" : "argument \(i + 1)"
                return topLevelUsageError("\(what) is not valid UTF-8: \(invalidUTF8(bytes) ?? "an invalid byte")", output: output)
            }
            arguments.append(text)
        }
        return run(arguments: arguments, output: output, subcommands: subcommands)
    }

    public static func run(arguments: [String], output: CommandOutput,
                           subcommands: [any SubcommandProtocol.Type] = allSubcommands) -> Int32 {
        guard let first = arguments.first else {
            output.standardOutput(help(subcommands: subcommands))
            return exitSuccess
        }
        switch first {
        case "-h", "--help":
            output.standardOutput(help(subcommands: subcommands))
            return exitSuccess
        case "--version":
            guard arguments.count == 1 else {
                return topLevelUsageError("unexpected argument '\(arguments[1])'", output: output)
            }
            output.print("\(name) \(version)")
            return exitSuccess
        case "help":
            guard arguments.count > 1, !["-h", "--help"].contains(arguments[1]) else {
                output.standardOutput(help(subcommands: subcommands))
                return exitSuccess
            }
            guard let command = subcommands.first(where: { $0.name == arguments[1] }) else {
                return unknownSubcommand(arguments[1], subcommands: subcommands, output: output)
            }
            guard arguments.count == 2 else {
                return topLevelUsageError("unexpected argument '\(arguments[2])'", output: output)
            }
            output.standardOutput(terminated(command.help))
            return exitSuccess
        default:
            break
        }
        if first.hasPrefix("-") {
            return topLevelUsageError("unknown option '\(first)'", output: output)
        }
        guard let command = subcommands.first(where: { $0.name == first }) else {
            return unknownSubcommand(first, subcommands: subcommands, output: output)
        }
        return run(command, arguments: Array(arguments.dropFirst()), output: output)
    }

    /// The top-level help: OVERVIEW, USAGE, OPTIONS and the aligned SUBCOMMANDS list.
    ///
    /// - Complexity: O(n) in the number of subcommands.
    public static func help(subcommands: [any SubcommandProtocol.Type] = allSubcommands) -> String {
        var text = """
            OVERVIEW: SmartStack picks, on the device, which widget each smart stack shows on top.

            USAGE: \(usage)

            OPTIONS:
            \(helpRows([("-h, --help", "Show help information."), ("--version", "Show the version.")]))

            SUBCOMMANDS:

            """
        text += helpRows(subcommands.map { ($0.name, $0.abstract) })
        text += "\n\n  See '\(name) help <subcommand>' for detailed help.\n"
        return text
    }

    /// Rows of a help section: two-space indent, names padded to one column, then the text,
    /// wrapped at 80 columns under its own column. A row with an empty name continues the text.
    ///
    /// ```swift
    /// helpRows([("--db <path>", "The event log.")])  // "  --db <path>           The event log."
    /// ```
    /// - Complexity: O(total length of the rows).
    public static func helpRows(_ rows: [(name: String, text: String)]) -> String {
        let column = max(24, (rows.map { $0.name.count }.max() ?? 0) + 4)
        let width = max(40, 80 - column)
        var lines: [String] = []
        for row in rows {
            var wrapped: [String] = []
            var line = ""
            for word in row.text.split(separator: " ") {
                if !line.isEmpty && line.count + 1 + word.count > width {
                    wrapped.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            wrapped.append(line)
            for (i, text) in wrapped.enumerated() {
                let name = i == 0 ? row.name : ""
                lines.append("  " + name + String(repeating: " ", count: column - 2 - name.count) + text)
            }
        }
        return lines.joined(separator: "\n")
    }

    // MARK: - Internals

    private static func run(_ command: any SubcommandProtocol.Type, arguments: [String],
                            output: CommandOutput) -> Int32 {
        if isHelpRequest(arguments) {
            output.standardOutput(terminated(command.help))
            return exitSuccess
        }
        do {
            let instance = try command.init(arguments: arguments)
            return try instance.run(output)
        } catch let error as UsageError {
            output.printError("Error: \(error.message)")
            output.printError("USAGE: \(command.usage)")
            output.printError("  See '\(name) \(command.name) --help' for more information.")
            return exitUsage
        } catch {
            output.printError("Error: \(describe(error))")
            return exitFailure
        }
    }

    private static func topLevelUsageError(_ message: String, output: CommandOutput) -> Int32 {
        output.printError("Error: \(message)")
        output.printError("USAGE: \(usage)")
        output.printError("  See '\(name) --help' for more information.")
        return exitUsage
    }

    private static func unknownSubcommand(_ given: String, subcommands: [any SubcommandProtocol.Type],
                                          output: CommandOutput) -> Int32 {
        output.printError("Error: unknown subcommand '\(given)'")
        let close = subcommands.map { $0.name }.filter { editDistance($0, given) <= 2 }
        if !close.isEmpty {
            output.printError("Did you mean \(close.map { "'\($0)'" }.joined(separator: " or "))?")
        }
        output.printError("USAGE: \(usage)")
        output.printError("  See '\(name) --help' for the list of subcommands.")
        return exitUsage
    }

    private static func terminated(_ text: String) -> String {
        text.hasSuffix("\n") ? text : text + "\n"
    }

    /// Levenshtein distance, for "did you mean" hints.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1,
                                 previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
