import CSQLite
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread-safe SQLite connection: one handle, used by one thread at a time.
///
/// `Connection` is `Sendable` by construction: the handle lives inside a `Mutex`, and the
/// ``Database`` handed to closures cannot escape them (`inout sending` makes the compiler check
/// that nothing derived from it is kept). Calling back into the same connection from inside one
/// of its closures is reported as an error instead of deadlocking.
///
/// ```swift
/// let connection = try Connection(path: "/tmp/log.sqlite")
/// try connection.withDatabase { db in try db.applyRecommendedSettings() }
/// let count = try connection.withDatabase { db in
///     try db.scalar("SELECT count(*) FROM sqlite_schema")?.integerValue ?? 0
/// }
/// ```
public final class Connection: Sendable {
    /// How to open a database.
    public struct Options: Sendable, Hashable {
        /// Open read-only: every write fails with `SQLITE_READONLY`.
        public var isReadOnly: Bool
        /// Create the file when it does not exist (ignored when read-only).
        public var createsFile: Bool
        /// How long to wait for another connection's lock before failing with `SQLITE_BUSY`.
        public var busyTimeout: Duration
        /// Interpret a path starting with `file:` as an SQLite URI (`file:data.db?mode=ro`).
        public var interpretsURI: Bool

        /// Creates options; by default read-write, creating the file, waiting up to 5 s for
        /// locks, paths taken literally.
        public init(isReadOnly: Bool = false, createsFile: Bool = true, busyTimeout: Duration = .seconds(5),
                    interpretsURI: Bool = false) {
            self.isReadOnly = isReadOnly
            self.createsFile = createsFile
            self.busyTimeout = busyTimeout
            self.interpretsURI = interpretsURI
        }
    }

    /// The path the connection was opened with.
    public let path: String
    /// The options the connection was opened with.
    public let options: Options
    private let database: Mutex<Database>
    /// The thread currently inside `withDatabase` (0 when none), to report re-entrant calls.
    private let owner = Atomic<UInt>(0)

    /// Opens (or creates) the database at `path`; `:memory:` gives a private in-memory database.
    ///
    /// The file is not read until the first statement runs, so a file that is not a database is
    /// reported by the first query (`SQLITE_NOTADB`), not here.
    ///
    /// `whenClosed` is called once, when the connection is released, after SQLite has closed the
    /// database (`sqlite3_close_v2` returned); it is not called when the init throws.
    public init(path: String, options: Options = Options(), whenClosed: (@Sendable () -> Void)? = nil) throws(SQLiteError) {
        _ = sqliteConfiguration
        var flags = SQLITE_OPEN_NOMUTEX  // the Mutex below serializes every use of the handle
        if options.isReadOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if options.createsFile { flags |= SQLITE_OPEN_CREATE }
        }
        if options.interpretsURI { flags |= SQLITE_OPEN_URI }
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError.current(handle, code: code, sql: nil)
            sqlite3_close_v2(handle)
            throw SQLiteError(resultCode: error.resultCode, message: "cannot open '\(path)': \(error.message)")
        }
        sqlite3_extended_result_codes(handle, 1)
        let (seconds, attoseconds) = options.busyTimeout.components
        let milliseconds = max(0, min(Int64(Int32.max), seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        sqlite3_busy_timeout(handle, Int32(milliseconds))
        self.path = path
        self.options = options
        self.database = Mutex(Database(handle: handle, path: path, whenClosed: whenClosed))
    }

    /// Runs `body` with exclusive use of the database.
    ///
    /// `body` must not call this connection again (that is reported as `SQLITE_MISUSE`).
    /// Nothing derived from `db` may outlive the closure; the compiler enforces it.
    @discardableResult
    public func withDatabase<T>(_ body: (inout sending Database) throws -> sending T) throws -> sending T {
        let me = currentThreadID()
        if owner.load(ordering: .relaxed) == me {
            throw SQLiteError.misuse("re-entrant use of the connection to '\(path)' from inside one of its own closures")
        }
        return try database.withLock { db throws -> sending T in
            owner.store(me, ordering: .relaxed)
            defer { owner.store(0, ordering: .relaxed) }
            return try body(&db)
        }
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`): commits on return, rolls back on throw.
    ///
    /// ```swift
    /// try connection.transaction { db in
    ///     try db.execute("DELETE FROM t WHERE a < ?", [.integer(10)])
    /// }
    /// ```
    @discardableResult
    public func transaction<T>(_ body: (inout sending Database) throws -> sending T) throws -> sending T {
        try withDatabase { db throws -> sending T in
            if db.isInTransaction {
                throw SQLiteError.misuse("a transaction is already open on '\(path)'")
            }
            try db.beginTransaction(.immediate)
            let result: T
            do {
                result = try body(&db)
            } catch {
                db.rollbackIfOpen()
                throw error
            }
            try db.commitTransaction()
            return result
        }
    }

    /// Runs one or more SQL statements with no parameters.
    public func execute(_ sql: String) throws {
        try withDatabase { db in try db.execute(sql) }
    }
}

/// Process-wide SQLite configuration, applied once before the first connection opens.
/// If something else in the process initialized SQLite first, the defaults stay (harmless).
private let sqliteConfiguration: Void = {
    _ = smartstack_sqlite3_disable_memory_statistics()
    _ = sqlite3_initialize()
}()

/// An identifier of the calling thread, never 0.
private func currentThreadID() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
