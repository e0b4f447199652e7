/// A JSONL problem located in its source: `path:line:column: message`.
///
/// ```swift
/// // events.jsonl:3:29: field 'time': time has no UTC offset (add Z or +HH:MM)
/// print(error)
/// ```
///
/// Problems with the file as a whole (missing, unreadable) have `line` 0 and print as
/// `path: message`.
public struct JSONLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file path, or `<stdin>`.
    public var file: String
    /// 1-based line number; 0 when the problem concerns the whole file (it cannot be opened).
    public var line: Int
    /// 1-based byte column where the problem was found; 0 with `line` 0.
    public var column: Int
    /// The JSON field concerned, if any (`time`, `widgets[2].id`, ...).
    public var field: String?
    /// What is wrong; names the field when there is one (`field 'lat': ...`).
    public var message: String

    /// Creates an error located at `file:line:column`.
    public init(file: String, line: Int, column: Int, field: String?, message: String) {
        self.file = file; self.line = line; self.column = column; self.field = field; self.message = message
    }

    /// Whether the input holds no event at all (empty, or only blank lines): what a caller for
    /// whom no events is a valid answer (`smartstack ingest`, a shard's `evaluate --partial`)
    /// treats as such, while a reader of one file reports it.
    public var isEmptyInput: Bool {
        line == 1 && column == 1 && field == nil && (message == Self.emptyInput || message.hasPrefix(Self.blankInput))
    }

    /// The message of an empty input, and the start of that of an input of blank lines.
    static let emptyInput = "file is empty: no events"
    static let blankInput = "file has no events: "

    /// `path:line:column: message`, or `path: message` for a whole-file problem (line 0).
    public var description: String {
        line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
    }
}
