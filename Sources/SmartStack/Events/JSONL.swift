// CONTRACT STUB — owned by the JSONL helper, who replaces the bodies (signatures are the contract).

/// A JSONL problem located in its source: `path:line:column: message`.
public struct JSONLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file path, or `<stdin>`.
    public var file: String
    /// 1-based line number.
    public var line: Int
    /// 1-based byte column where the problem was found.
    public var column: Int
    /// The JSON field concerned, if any (`time`, `widgets[2].id`, ...).
    public var field: String?
    /// What is wrong.
    public var message: String

    public init(file: String, line: Int, column: Int, field: String?, message: String) {
        self.file = file; self.line = line; self.column = column; self.field = field; self.message = message
    }

    public var description: String { "\(file):\(line):\(column): \(message)" }
}

/// Streams events out of SmartStack JSONL v1 text, one line at a time.
public struct JSONLReader {
    /// Opens a file (`-` for standard input). Throws a `JSONLError` (line 0) if it cannot be read.
    public init(path: String) throws(JSONLError) { fatalError("contract stub") }
    /// Reads from bytes already in memory; `name` is used in error messages.
    public init(bytes: [UInt8], name: String) { fatalError("contract stub") }
    /// The next event, or `nil` at the end. On an invalid line, throws its error and moves past
    /// it, so a caller may continue (`--skip-invalid`). An empty input throws once.
    public mutating func next() throws(JSONLError) -> Event? { fatalError("contract stub") }
    /// 1-based number of the line last returned or rejected.
    public var lineNumber: Int { fatalError("contract stub") }
}

/// Writes events as canonical SmartStack JSONL v1 (one object per line, `\n`-terminated).
public enum JSONLWriter {
    /// The canonical line for `event`, without the trailing newline.
    public static func line(for event: Event) -> String { fatalError("contract stub") }
    /// Appends the canonical line for `event` and a newline to `buffer` (the fast path).
    public static func append(_ event: Event, to buffer: inout [UInt8]) { fatalError("contract stub") }
}
