import CSQLite

/// An open SQLite database handle, usable only inside the closure that receives it from
/// ``Connection/withDatabase(_:)`` or ``Connection/transaction(_:)``.
///
/// `Database` is deliberately not `Sendable`: the ``Connection`` that owns it hands it out under
/// its lock, and the compiler's region checks keep it (and its statements) from escaping.
///
/// ```swift
/// try connection.withDatabase { db in
///     try db.execute("CREATE TABLE t(a INTEGER, b TEXT)")
///     try db.transaction {
///         try db.execute("INSERT INTO t VALUES (?, ?)", [.integer(1), .text("one")])
///     }
/// }
/// ```
public final class Database {
    /// The path SQLite was given (`:memory:` for an in-memory database).
    public let path: String
    let handle: OpaquePointer
    private var statementCache: [String: Statement] = [:]
    /// Called once SQLite has closed the database (see ``Connection/init(path:options:whenClosed:)``).
    private let whenClosed: (@Sendable () -> Void)?

    init(handle: OpaquePointer, path: String, whenClosed: (@Sendable () -> Void)? = nil) {
        self.handle = handle
        self.path = path
        self.whenClosed = whenClosed
    }

    deinit {
        statementCache.removeAll()
        // close_v2 defers the close until any statement still alive is finalized; none is: the
        // cached ones were just finalized, and no other can outlive the closure it was made in.
        sqlite3_close_v2(handle)
        whenClosed?()
    }

    // MARK: Statements

    /// Prepares a statement. Use `persistent` for statements kept for a long time.
    public func makeStatement(_ sql: String, persistent: Bool = false) throws(SQLiteError) -> Statement {
        try Statement(database: handle, sql: sql, persistent: persistent)
    }

    /// The statement for `sql`, prepared once (persistent) and then reused; it comes back reset
    /// with its bindings cleared.
    ///
    /// - Complexity: O(length of `sql`) for the cache lookup.
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            statement.clearBindings()
            return statement
        }
        let statement = try Statement(database: handle, sql: sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// Finalizes every cached statement (they are prepared again on next use).
    public func clearStatementCache() {
        statementCache.removeAll()
    }

    /// Runs one or more SQL statements separated by `;`, with no parameters.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            var error = SQLiteError.current(handle, code: code, sql: sql)
            if let message {
                error.message = String(cString: message)
                sqlite3_free(message)
            }
            throw error
        }
    }

    /// Runs one statement with `arguments` bound to its parameters, ignoring any rows.
    ///
    /// The statement is prepared once and cached (see ``cachedStatement(_:)``): meant for a fixed
    /// set of SQL texts whose values vary, not for SQL built with values inside.
    public func execute(_ sql: String, _ arguments: [SQLiteValue]) throws(SQLiteError) {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        try statement.execute()
    }

    /// All rows of one statement.
    ///
    /// - Complexity: O(rows × columns).
    public func rows(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement = try makeStatement(sql)
        try statement.bind(arguments)
        var rows: [[SQLiteValue]] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    /// The first column of the first row, or `nil` when there is no row.
    public func scalar(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue? {
        let statement = try makeStatement(sql)
        try statement.bind(arguments)
        return try statement.step() ? statement.value(at: 0) : nil
    }

    // MARK: State

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The rowid of the last successful INSERT.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Whether the main database was opened read-only (by request or because the file is).
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// The current value of `PRAGMA name`.
    public func pragma(_ name: String) throws(SQLiteError) -> SQLiteValue? {
        try scalar("PRAGMA \(name)")
    }

    // MARK: Transactions

    /// How a transaction takes its locks.
    public enum TransactionKind: Sendable {
        /// Takes the write lock at once (waiting up to the busy timeout): the default for writes.
        case immediate
        /// Takes locks when first needed; a read that later writes may fail with `SQLITE_BUSY`.
        case deferred
        /// Like immediate; in WAL mode the same as immediate.
        case exclusive
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// Inside an open transaction this uses a savepoint, so transactions nest.
    ///
    /// ```swift
    /// try db.transaction {
    ///     try db.execute("INSERT INTO t VALUES (1)")
    ///     try db.execute("INSERT INTO t VALUES (2)")   // both or neither
    /// }
    /// ```
    @discardableResult
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if isInTransaction {
            return try savepoint(body)
        }
        try beginTransaction(kind)
        let result: T
        do {
            result = try body()
        } catch {
            rollbackIfOpen()
            throw error
        }
        try commitTransaction()
        return result
    }

    func beginTransaction(_ kind: TransactionKind) throws(SQLiteError) {
        switch kind {
        case .immediate: try execute("BEGIN IMMEDIATE")
        case .deferred: try execute("BEGIN DEFERRED")
        case .exclusive: try execute("BEGIN EXCLUSIVE")
        }
    }

    /// Commits; when the commit itself fails (busy, disk full) the transaction is rolled back.
    func commitTransaction() throws(SQLiteError) {
        do {
            try execute("COMMIT")
        } catch {
            rollbackIfOpen()
            throw error
        }
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT smartstack_nested")
        let result: T
        do {
            result = try body()
        } catch {
            if isInTransaction {
                try? execute("ROLLBACK TO smartstack_nested")
                try? execute("RELEASE smartstack_nested")
            }
            throw error
        }
        try execute("RELEASE smartstack_nested")
        return result
    }

    /// SQLite rolls some failures back by itself (disk full, I/O errors); only roll back what is open.
    func rollbackIfOpen() {
        if isInTransaction {
            try? execute("ROLLBACK")
        }
    }

    // MARK: Settings

    /// Switches to write-ahead logging and checks that SQLite agreed.
    ///
    /// Returns the journal mode now in force: `wal` for files, `memory` for in-memory databases.
    /// - Throws: ``SQLiteError`` when SQLite answers anything else (e.g. the file system cannot
    ///   support the shared-memory index WAL needs).
    @discardableResult
    public func enableWAL() throws(SQLiteError) -> String {
        let mode = try scalar("PRAGMA journal_mode=WAL")?.textValue?.lowercased() ?? ""
        let inMemory = path == ":memory:" || path.isEmpty || path.hasPrefix("file::memory:")
        guard mode == "wal" || (inMemory && mode == "memory") else {
            throw SQLiteError(resultCode: SQLITE_ERROR,
                              message: "write-ahead logging could not be enabled (journal_mode is '\(mode)')",
                              sql: "PRAGMA journal_mode=WAL")
        }
        return mode
    }

    /// WAL, `synchronous=NORMAL` (durable at checkpoints, never corrupt), `secure_delete=ON`
    /// (deleted content is overwritten) and foreign keys enforced.
    public func applyRecommendedSettings() throws(SQLiteError) {
        try enableWAL()
        try execute("PRAGMA synchronous=NORMAL; PRAGMA secure_delete=ON; PRAGMA foreign_keys=ON")
    }

    /// The result of `PRAGMA integrity_check`: `["ok"]` for a sound database.
    ///
    /// - Complexity: O(size of the database).
    public func integrityCheck() throws(SQLiteError) -> [String] {
        try rows("PRAGMA integrity_check").map { $0.first?.textValue ?? "" }
    }
}
