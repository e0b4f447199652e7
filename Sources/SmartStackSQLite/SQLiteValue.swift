/// One SQLite value, for binding and reading rows where speed does not matter.
///
/// ```swift
/// try db.execute("INSERT INTO t(a, b) VALUES (?, ?)", [.integer(1), .text("x")])
/// ```
public enum SQLiteValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// The integer, or `nil` for any other kind of value.
    public var integerValue: Int64? { if case .integer(let v) = self { v } else { nil } }
    /// The double, or `nil` for any other kind of value.
    public var realValue: Double? { if case .real(let v) = self { v } else { nil } }
    /// The text, or `nil` for any other kind of value.
    public var textValue: String? { if case .text(let v) = self { v } else { nil } }
    /// The bytes, or `nil` for any other kind of value.
    public var blobValue: [UInt8]? { if case .blob(let v) = self { v } else { nil } }
    /// Whether this is SQL `NULL`.
    public var isNull: Bool { self == .null }
}
