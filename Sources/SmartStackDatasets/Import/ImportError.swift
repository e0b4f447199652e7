/// Why an import failed, located in its source: `file:line: column 'name': message`.
///
/// ```swift
/// ImportError(file: "gps.csv", line: 12, column: "latitude", message: "not a number: 'abc'")
///     .description   // "gps.csv:12: column 'latitude': not a number: 'abc'"
/// ```
public struct ImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file concerned, as given by the caller (empty when the error is not about one file).
    public var file: String
    /// 1-based line number of the offending record, if the problem is inside the file.
    public var line: Int?
    /// The column (header name) concerned, if any.
    public var column: String?
    /// What is wrong, and when useful what was expected.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int? = nil, column: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line: column 'name': message`, omitting the parts that are unknown.
    public var description: String {
        var text = file
        if let line { text += text.isEmpty ? "line \(line)" : ":\(line)" }
        if !text.isEmpty { text += ": " }
        if let column { text += "column '\(column)': " }
        return text + message
    }
}
