import Foundation
import SmartStack

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

    /// A fast path for bulk output (`export`): raw UTF-8 bytes to stdout. When `nil`, bytes are
    /// decoded and passed to ``standardOutput``.
    public var standardOutputBytes: ((UnsafeRawBufferPointer) -> Void)?

    /// Writes `text` and a newline to stdout.
    public func print(_ text: String) { standardOutput(text + "\n") }
    /// Writes UTF-8 `bytes` to stdout as they are (no newline added).
    ///
    /// - Complexity: O(n) in the number of bytes.
    public func write(bytes: [UInt8]) {
        if let standardOutputBytes {
            bytes.withUnsafeBytes { standardOutputBytes($0) }
        } else {
            standardOutput(String(decoding: bytes, as: UTF8.self))
        }
    }
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

// MARK: - Helpers shared by subcommands

extension ParsedArguments {
    /// The single positional argument, or a usage error naming what is missing or extra.
    ///
    /// - Parameter what: how the help text names it, e.g. `<file>`.
    func singlePositional(_ what: String) throws(UsageError) -> String {
        guard let first = positional.first else { throw UsageError("missing argument \(what)") }
        if positional.count > 1 { throw UsageError("unexpected argument '\(positional[1])'") }
        return first
    }

    /// Fails when positional arguments were given to a subcommand that takes none.
    func expectNoPositional() throws(UsageError) {
        if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
    }
}

/// Formats counts for people: `12345` → `12,345` (the same in every locale, for stable output).
func formatCount(_ n: Int) -> String {
    let digits = String(n.magnitude)
    var out = n < 0 ? "-" : ""
    for (i, c) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return out
}

/// `1 event`, `2 events`, with the count formatted by ``formatCount(_:)``.
func counted(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(formatCount(n)) \(n == 1 ? singular : (plural ?? singular + "s"))"
}

/// Whether `args` asks for help (`-h` or `--help` before any `--`).
func isHelpRequest(_ args: [String]) -> Bool {
    for a in args {
        if a == "--" { return false }
        if a == "-h" || a == "--help" { return true }
    }
    return false
}

/// How a subcommand needs its database: an existing log (`export`, `stats`) or one that may be
/// created (`ingest`).
enum DatabaseAccess {
    case existing
    case createIfMissing
}

/// Checks `path` can hold the event log before any work is done, so a wrong path fails fast
/// with a clear message instead of an SQLite code after a long parse.
func checkDatabasePath(_ path: String, _ access: DatabaseAccess) throws(CommandFailure) {
    let files = FileManager.default
    var isDirectory: ObjCBool = false
    if files.fileExists(atPath: path, isDirectory: &isDirectory) {
        if isDirectory.boolValue { throw CommandFailure("'\(path)' is a directory, not a database file") }
        return
    }
    switch access {
    case .existing:
        throw CommandFailure("no database at \(path)")
    case .createIfMissing:
        let parent = (path as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        var parentIsDirectory: ObjCBool = false
        guard files.fileExists(atPath: directory, isDirectory: &parentIsDirectory), parentIsDirectory.boolValue else {
            throw CommandFailure("cannot create database \(path): no directory '\(directory)'")
        }
        guard files.isWritableFile(atPath: directory) else {
            throw CommandFailure("cannot create database \(path): directory '\(directory)' is not writable")
        }
    }
}

/// Opens the event log at `path` after ``checkDatabasePath(_:_:)``; store errors (not a SQLite
/// file, newer schema, ...) are reported with the path.
func openEventStore(at path: String, _ access: DatabaseAccess) throws(CommandFailure) -> EventStore {
    try checkDatabasePath(path, access)
    do {
        return try EventStore(path: path)
    } catch {
        throw CommandFailure(describeStoreError(error, path: path, action: "cannot open database"))
    }
}

/// A store error as one message that names the database: store errors that already do
/// (`path: what`) are kept as they are; anything else gets `<action> <path>: ` in front.
func describeStoreError(_ error: any Error, path: String, action: String) -> String {
    let text = describe(error)
    if text.hasPrefix(path + ":") { return text }
    return "\(action) \(path): \(text)"
}

/// A readable one-line description of any error (Foundation errors by their localized text).
func describe(_ error: any Error) -> String {
    if let failure = error as? CommandFailure { return failure.message }
    if let usage = error as? UsageError { return usage.message }
    if let cocoa = error as? CocoaError { return cocoa.localizedDescription }
    if type(of: error) is NSError.Type { return (error as NSError).localizedDescription }
    return String(describing: error)
}

/// Opens the existing event log at `path` read-only, for the commands that only read it
/// (`export`, `stats`, `rank`): they then work on a log this user may only read (a read-only
/// file, directory or file system) and never create or change a file there. Errors name `path`.
func openEventStoreForReading(at path: String) throws(CommandFailure) -> EventStore {
    try checkDatabasePath(path, .existing)
    do {
        return try EventStore(path: path, options: EventStore.Options(isReadOnly: true))
    } catch {
        throw CommandFailure(describeStoreError(error, path: path, action: "cannot open database"))
    }
}
