import CSQLite

/// A prepared SQL statement: bind values by index (1-based), step, read columns (0-based).
///
/// Statements belong to the ``Database`` that prepared them and are only usable inside the
/// closure that received that database. A statement is finalized when released.
///
/// ```swift
/// let insert = try db.cachedStatement("INSERT INTO t(a, b) VALUES (?, ?)")
/// for (a, b) in rows {
///     try insert.bind(a, at: 1)
///     try insert.bind(b, at: 2)
///     try insert.execute()   // steps to completion and resets
/// }
/// ```
public final class Statement {
    /// The SQL text this statement was prepared from.
    public let sql: String
    let handle: OpaquePointer

    init(database: OpaquePointer, sql: String, persistent: Bool) throws(SQLiteError) {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sql.withCString { text in
            sqlite3_prepare_v3(database, text, -1, flags, &statement, &tail)
        }
        guard code == SQLITE_OK else {
            sqlite3_finalize(statement)
            throw SQLiteError.current(database, code: code, sql: sql)
        }
        guard let statement else {
            throw SQLiteError.misuse("the SQL text contains no statement", sql: sql)
        }
        if let tail, tail.pointee != 0,
           String(cString: tail).contains(where: { !$0.isWhitespace && $0 != ";" }) {
            sqlite3_finalize(statement)
            throw SQLiteError.misuse("a prepared statement holds exactly one SQL statement; use execute(_:) for scripts", sql: sql)
        }
        self.sql = sql
        self.handle = statement
    }

    deinit {
        sqlite3_finalize(handle)
    }

    private func check(_ code: Int32) throws(SQLiteError) {
        if code != SQLITE_OK {
            throw SQLiteError.current(sqlite3_db_handle(handle), code: code, sql: sql)
        }
    }

    // MARK: Binding

    /// The number of `?` parameters.
    public var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// Binds an integer to parameter `index` (1-based).
    @inline(__always)
    public func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds an integer to parameter `index` (1-based).
    @inline(__always)
    public func bind(_ value: Int, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, Int64(value)))
    }

    /// Binds a double to parameter `index` (1-based). SQLite stores NaN as `NULL`.
    @inline(__always)
    public func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds UTF-8 text to parameter `index` (1-based); SQLite copies it, nothing is allocated
    /// on the Swift side for native strings.
    @inline(__always)
    public func bind(_ value: String, at index: Int32) throws(SQLiteError) {
        let code = value.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                smartstack_sqlite3_bind_text_copy(handle, index, text.baseAddress, Int32(text.count))
            }
        } ?? Array(value.utf8).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                smartstack_sqlite3_bind_text_copy(handle, index, text.baseAddress, Int32(text.count))
            }
        }
        try check(code)
    }

    /// Binds a blob to parameter `index` (1-based); an empty array is an empty blob, not `NULL`.
    @inline(__always)
    public func bind(_ value: [UInt8], at index: Int32) throws(SQLiteError) {
        let code = value.withUnsafeBytes { bytes in
            smartstack_sqlite3_bind_blob_copy(handle, index, bytes.baseAddress, Int32(bytes.count))
        }
        try check(code)
    }

    /// Binds `NULL` to parameter `index` (1-based).
    @inline(__always)
    public func bindNull(at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Binds the text, or `NULL` when `value` is `nil`.
    @inline(__always)
    public func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds the double, or `NULL` when `value` is `nil`.
    @inline(__always)
    public func bind(_ value: Double?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds the integer, or `NULL` when `value` is `nil`.
    @inline(__always)
    public func bind(_ value: Int64?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds the bytes, or `NULL` when `value` is `nil`.
    @inline(__always)
    public func bind(_ value: [UInt8]?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds any value to parameter `index` (1-based).
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let v): try bind(v, at: index)
        case .real(let v): try bind(v, at: index)
        case .text(let v): try bind(v, at: index)
        case .blob(let v): try bind(v, at: index)
        }
    }

    /// Binds `values` to parameters 1, 2, ... in order.
    ///
    /// - Complexity: O(n) in the number of values.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        guard values.count == Int(parameterCount) else {
            throw SQLiteError.misuse("statement has \(parameterCount) parameters but \(values.count) values were given", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    // MARK: Running

    /// Runs one step: `true` when a row is available, `false` when the statement is done.
    @inline(__always)
    public func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = SQLiteError.current(sqlite3_db_handle(handle), code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Steps to completion, ignoring rows, then resets (bindings stay).
    public func execute() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Rewinds the statement so it can run again; bindings stay.
    @inline(__always)
    public func reset() {
        // The code returned repeats the last step's error, which step() already reported.
        sqlite3_reset(handle)
    }

    /// Sets every parameter back to `NULL`.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Reading the current row

    /// The number of columns of a result row.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of column `index` (0-based).
    public func columnName(at index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    /// Whether column `index` (0-based) of the current row is `NULL`.
    @inline(__always)
    public func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` (0-based) as an integer (`NULL` reads as 0).
    @inline(__always)
    public func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` (0-based) as a double (`NULL` reads as 0).
    @inline(__always)
    public func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Column `index` (0-based) as text (`NULL` reads as the empty string).
    @inline(__always)
    public func string(at index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Column `index` (0-based) as bytes (`NULL` reads as empty).
    @inline(__always)
    public func blob(at index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Calls `body` with column `index`'s bytes without copying them; the buffer is valid only
    /// during the call.
    @inline(__always)
    public func withBlob<R>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// The text, or `nil` when column `index` (0-based) is `NULL`.
    @inline(__always)
    public func optionalString(at index: Int32) -> String? {
        isNull(at: index) ? nil : string(at: index)
    }

    /// The double, or `nil` when column `index` (0-based) is `NULL`.
    @inline(__always)
    public func optionalDouble(at index: Int32) -> Double? {
        isNull(at: index) ? nil : double(at: index)
    }

    /// The integer, or `nil` when column `index` (0-based) is `NULL`.
    @inline(__always)
    public func optionalInt64(at index: Int32) -> Int64? {
        isNull(at: index) ? nil : int64(at: index)
    }

    /// Column `index` (0-based) as whatever type it holds.
    public func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(string(at: index))
        case SQLITE_BLOB: .blob(blob(at: index))
        default: .null
        }
    }

    /// The current row as values.
    ///
    /// - Complexity: O(columns).
    public func row() -> [SQLiteValue] {
        (0..<columnCount).map { value(at: $0) }
    }
}
