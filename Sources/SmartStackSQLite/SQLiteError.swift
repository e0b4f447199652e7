import CSQLite

/// An error reported by SQLite, with the statement that failed.
///
/// ```swift
/// do { try db.execute("INSERT INTO t VALUES (1)") }
/// catch let error as SQLiteError where error.primaryResultCode == SQLITE_CONSTRAINT { ... }
/// ```
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_IOERR_WRITE`, ...).
    public var resultCode: Int32
    /// SQLite's own message for the failure (`sqlite3_errmsg`), or ours for misuse.
    public var message: String
    /// The SQL being prepared or run when it failed, if any.
    public var sql: String?

    /// Creates an error from a result code, a message and the SQL that failed.
    public init(resultCode: Int32, message: String, sql: String? = nil) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, ...): the low 8 bits.
    public var primaryResultCode: Int32 { resultCode & 0xFF }

    /// SQLite's English name for the result code, e.g. `database is locked`.
    public var codeDescription: String { String(cString: sqlite3_errstr(resultCode)) }

    /// `SQLite error 19 (constraint failed): UNIQUE constraint failed: t.a — in: INSERT ...`
    public var description: String {
        var text = "SQLite error \(resultCode) (\(codeDescription)): \(message)"
        if let sql { text += " — in: \(sql)" }
        return text
    }

    /// The error SQLite reports for `handle`'s last failure, given the code the call returned.
    static func current(_ handle: OpaquePointer?, code: Int32, sql: String?) -> SQLiteError {
        let message: String
        if let handle, let text = sqlite3_errmsg(handle) {
            message = String(cString: text)
        } else {
            message = String(cString: sqlite3_errstr(code))
        }
        // The handle's extended code is more precise than the primary one most calls return.
        var resultCode = code
        if let handle {
            let extended = sqlite3_extended_errcode(handle)
            if extended & 0xFF == code & 0xFF { resultCode = extended }
        }
        return SQLiteError(resultCode: resultCode, message: message, sql: sql)
    }

    /// An API misuse detected by this layer (not by SQLite).
    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(resultCode: SQLITE_MISUSE, message: message, sql: sql)
    }
}
