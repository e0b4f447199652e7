import SmartStackSQLite

/// The durable event log: one SQLite file (WAL, `synchronous=NORMAL`, `secure_delete=ON`,
/// created with mode 0600).
///
/// ```swift
/// let store = try EventStore(path: "events.sqlite")
/// let result = try store.append(events)              // one transaction: all or nothing
/// try store.forEach(EventQuery(user: "u00")) { sequence, event in print(event.type) }
/// let stats = try store.statistics()
/// ```
///
/// Events with an `id` are unique per user: appending one whose (user, id) is already stored,
/// earlier or in the same batch, skips it and counts it as a duplicate, so ingest is idempotent.
/// Every event reads back exactly as appended: same instant, same UTC offset, same fields,
/// numbers bit for bit, optional fields present or absent as given.
///
/// The store is safe to use from several threads; calls are serialized on one connection.
/// Several stores may have the same log open, in this process and in others; opening one never
/// disturbs the file locks of another (see `DatabaseRegistry`). Closures given to ``forEach(_:_:)`` must not call back into the same store (that throws
/// ``StoreError`` with kind `misuse`).
public final class EventStore: Sendable {
    /// How to open the log.
    public struct Options: Sendable, Hashable {
        /// Open an existing log read-only; every change throws ``StoreError`` (kind `readOnly`).
        ///
        /// Works where this process may not write: a read-only file, directory or file system.
        /// There no file is created next to the log, and the open fails (kind `readOnly`) when a
        /// `-wal` file next to it holds changes that could not be read without creating one.
        public var isReadOnly: Bool
        /// How long to wait for another process's write lock before failing (kind `busy`).
        public var busyTimeout: Duration
        /// An upper bound on the database file's size in bytes; appends beyond it fail with kind
        /// `full` and store nothing. `nil` for no bound other than the disk.
        public var maximumSize: Int?
        /// Store `location` events coarsened to about 100 m: latitude and longitude rounded to
        /// 0.001° (at most 111 m) and an accuracy of at least 100 m, before they reach the disk.
        /// Such locations read back coarsened; every other field is still exact.
        public var coarsensLocations: Bool

        /// Creates options: read-write, 5 s busy timeout, no size bound, exact locations.
        public init(isReadOnly: Bool = false, busyTimeout: Duration = .seconds(5), maximumSize: Int? = nil,
                    coarsensLocations: Bool = false) {
            self.isReadOnly = isReadOnly
            self.busyTimeout = busyTimeout
            self.maximumSize = maximumSize
            self.coarsensLocations = coarsensLocations
        }
    }

    /// The database path (`:memory:` for a private in-memory log).
    public let path: String
    /// The options the log was opened with.
    public let options: Options
    let connection: Connection

    /// Opens or creates the log at `path` (`:memory:` for a private in-memory log).
    ///
    /// - Throws: ``StoreError`` naming `path`: a directory, a folder that cannot be written, a
    ///   file that is not a SmartStack database, a database written by a newer SmartStack.
    public convenience init(path: String) throws {
        try self.init(path: path, options: Options())
    }

    /// Opens or creates the log at `path` with `options`.
    ///
    /// A new file is created with mode 0600 before SQLite writes anything to it. An existing
    /// file is checked (SQLite format, SmartStack's application id, schema version) before
    /// anything is written to it, so a foreign or newer file is left untouched.
    /// - Throws: ``StoreError`` naming `path`.
    public init(path: String, options: Options) throws {
        self.path = path
        self.options = options
        let inMemory = DatabaseFile.isInMemory(path)
        let prepared = inMemory ? nil : try DatabaseFile.prepare(path, readOnly: options.isReadOnly)
        // The file stays registered while this init runs; the connection opened registers it
        // again for as long as it exists (see DatabaseRegistry).
        defer { if let prepared { DatabaseRegistry.release(prepared.identity) } }
        do {
            if options.isReadOnly, let prepared {
                connection = try Self.openReadOnly(path, options: options, prepared: prepared)
            } else {
                connection = try Self.openLockingConnection(DatabaseFile.sqliteName(for: path), of: prepared?.identity,
                    options: Connection.Options(isReadOnly: options.isReadOnly, createsFile: inMemory, busyTimeout: options.busyTimeout))
                try connection.withDatabase { db in try Self.prepare(db, path: path, options: options) }
            }
        } catch {
            throw Self.explainingWriteObstacle(StoreError.wrapping(error, path: path, busyTimeout: options.busyTimeout),
                                               path: path, options: options)
        }
    }

    /// Opens an SQLite connection to `name`, a path to the file `identity` (`nil` in memory),
    /// keeping the file registered in ``DatabaseRegistry`` until SQLite has closed it.
    ///
    /// The file must be registered already (by ``DatabaseFile/prepare(_:readOnly:)``).
    static func openLockingConnection(_ name: String, of identity: DatabaseRegistry.FileIdentity?,
                                      options: Connection.Options) throws -> Connection {
        guard let identity else { return try Connection(path: name, options: options) }
        DatabaseRegistry.retain(identity)
        do {
            return try Connection(path: name, options: options, whenClosed: { DatabaseRegistry.release(identity) })
        } catch {
            DatabaseRegistry.release(identity)
            throw error
        }
    }

    /// Checks what the connection opened and sets it up: identity, schema (migrated when
    /// writable, else required to be current), size bound, cache.
    static func prepare(_ db: Database, path: String, options: Options) throws {
        // Before anything else, so nothing can change a log opened read-only (also when the
        // connection itself is read-write, see `openReadOnly`). Setting it reads no file.
        if options.isReadOnly { try db.execute("PRAGMA query_only = ON") }
        try checkIdentity(of: db, path: path)
        let migrator = StoreSchema.migrator
        if options.isReadOnly {
            if try migrator.hasPendingMigrations(db) {
                throw StoreError(kind: .readOnly, path: path, message:
                    "database schema version \(try migrator.version(of: db)) is older than this smartstack's (\(migrator.latestVersion)) and the database is opened read-only; open it once read-write to upgrade it")
            }
        } else {
            try db.applyRecommendedSettings()
            try migrator.migrate(db)
        }
        if let maximumSize = options.maximumSize {
            let pageSize = try db.pragma("page_size")?.integerValue ?? 4096
            try db.execute("PRAGMA max_page_count = \(max(1, Int64(maximumSize) / pageSize))")
        }
        try db.execute("PRAGMA cache_size = -\(StoreSchema.cacheKiB)")
    }

    /// Refuses SQLite files of other programs and newer SmartStacks, using reads only.
    static func checkIdentity(of db: Database, path: String) throws {
        // The first read of the file: a non-SQLite file fails here with SQLITE_NOTADB.
        let applicationID = try db.pragma("application_id")?.integerValue ?? 0
        if applicationID != 0 && applicationID != StoreSchema.applicationID {
            throw StoreError(kind: .notADatabase, path: path, message:
                "not a SmartStack database: it belongs to another application (application_id \(applicationID))")
        }
        let tables = try db.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).compactMap { $0.first?.textValue }
        if applicationID == 0 && !tables.isEmpty && !tables.contains("schema_migrations") {
            let shown = tables.prefix(5).joined(separator: ", ")
            throw StoreError(kind: .notADatabase, path: path, message:
                "not a SmartStack database: it holds tables of another program (\(shown))")
        }
        try StoreSchema.migrator.checkCompatibility(of: db)
    }

    // MARK: Running

    /// Runs `body` on the connection, translating SQLite errors into ``StoreError``s.
    private func read<T>(_ body: (inout sending Database) throws -> sending T) throws -> sending T {
        do {
            return try connection.withDatabase(body)
        } catch {
            throw StoreError.wrapping(error, path: path, busyTimeout: options.busyTimeout)
        }
    }

    /// Runs `body` in one write transaction, translating SQLite errors into ``StoreError``s.
    private func write<T>(_ body: (inout sending Database) throws -> sending T) throws -> sending T {
        do {
            return try connection.transaction(body)
        } catch {
            throw StoreError.wrapping(error, path: path, busyTimeout: options.busyTimeout)
        }
    }

    // MARK: Appending

    /// Appends events in one transaction; events whose (user, id) is already stored — earlier or
    /// in this batch — are skipped and counted as duplicates.
    ///
    /// All or nothing: when anything fails (a NaN number, a full disk, a lock held too long),
    /// nothing of the batch is stored and the log is as it was.
    /// - Throws: ``StoreError``.
    /// - Complexity: O(n log N) for n events appended to a log of N.
    @discardableResult
    public func append(_ events: [Event]) throws -> AppendResult {
        guard !events.isEmpty else { return AppendResult(inserted: 0, duplicates: 0) }
        var pending: [Event]? = events
        return try append(batches: {
            defer { pending = nil }
            return pending
        })
    }

    // MARK: Reading

    /// Calls `body` with each matching event and its sequence number, in time order (ties in
    /// insertion order), streaming: only one event is in memory at a time.
    ///
    /// `body` must not call this store (that throws ``StoreError`` with kind `misuse`); errors
    /// it throws stop the iteration and are rethrown unchanged. Other threads' calls to the
    /// store wait until the iteration ends.
    /// - Complexity: O(log N + k) for k matching events when filtered by user or time.
    public func forEach(_ query: EventQuery, _ body: (Int64, Event) throws -> Void) throws {
        let path = self.path
        try read { db in
            guard let select = try Self.select(StoreSchema.selectColumns, query, in: db,
                                               suffix: " ORDER BY time_ns, seq") else { return }
            let statement = try db.cachedStatement(select.sql)
            defer { statement.reset() }
            try statement.bind(select.arguments)
            var names: [Int64: String] = [:]
            if let user = query.user, let key = select.userKey { names[key] = user }
            while try statement.step() {
                let sequence = statement.int64(at: 0)
                let userKey = statement.int64(at: 1)
                let user: String
                if let name = names[userKey] {
                    user = name
                } else {
                    guard let name = try db.scalar("SELECT name FROM users WHERE user_key = ?", [.integer(userKey)])?.textValue else {
                        throw StoreError(kind: .corrupt, path: path, message: "event \(sequence) refers to an unknown user (key \(userKey))")
                    }
                    names[userKey] = name
                    user = name
                }
                let payload: EventPayload
                do throws(EventColumns.RowError) {
                    payload = try EventColumns.payload(from: statement)
                } catch {
                    throw StoreError(kind: .corrupt, path: path, message: "event \(sequence) cannot be read: \(error.message)")
                }
                let offset = statement.int64(at: 4)
                guard let offsetSeconds = Int32(exactly: offset) else {
                    throw StoreError(kind: .corrupt, path: path, message: "event \(sequence) has an impossible UTC offset \(offset)")
                }
                let event = Event(time: EventTime(nanosecondsSinceEpoch: statement.int64(at: 3), utcOffsetSeconds: offsetSeconds),
                                  user: user, id: statement.optionalString(at: 2), payload: payload)
                try body(sequence, event)
            }
        }
    }

    /// Matching events in time order (ties in insertion order).
    ///
    /// - Complexity: O(log N + k) for k matching events when filtered by user or time.
    public func events(_ query: EventQuery) throws -> [Event] {
        var events: [Event] = []
        try forEach(query) { _, event in events.append(event) }
        return events
    }

    /// How many events match `query`.
    ///
    /// - Complexity: O(k) for k matching events when filtered by user or time, else O(N).
    public func count(_ query: EventQuery) throws -> Int {
        try read { db in
            guard let select = try Self.select("count(*)", query, in: db, suffix: "") else { return 0 }
            let statement = try db.cachedStatement(select.sql)
            defer { statement.reset() }
            try statement.bind(select.arguments)
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    /// The SQL and arguments selecting `columns` of the events matching `query`; `nil` when
    /// nothing can match (an unknown user, an empty type set).
    private static func select(_ columns: String, _ query: EventQuery, in db: Database, suffix: String)
        throws -> (sql: String, arguments: [SQLiteValue], userKey: Int64?)?
    {
        var conditions: [String] = []
        var arguments: [SQLiteValue] = []
        var userKey: Int64?
        if let user = query.user {
            guard let key = try db.scalar(StoreSchema.findUser, [.text(user)])?.integerValue else { return nil }
            userKey = key
        } else {
            // A log with a single user (the usual case on a phone) is read through the
            // (user_key, time_ns) index instead of being sorted.
            let keys = try db.rows("SELECT user_key FROM users LIMIT 2")
            if keys.count == 1 { userKey = keys[0][0].integerValue }
        }
        if let userKey {
            conditions.append("user_key = ?")
            arguments.append(.integer(userKey))
        }
        if let from = query.from {
            conditions.append("time_ns >= ?")
            arguments.append(.integer(from.nanosecondsSinceEpoch))
        }
        if let to = query.to {
            conditions.append("time_ns < ?")
            arguments.append(.integer(to.nanosecondsSinceEpoch))
        }
        if let types = query.types {
            guard !types.isEmpty else { return nil }
            let mask = types.reduce(Int64(0)) { $0 | (Int64(1) << Int64($1.code)) }
            conditions.append("((1 << type) & ?) != 0")
            arguments.append(.integer(mask))
        }
        if let after = query.afterSequence {
            conditions.append("seq > ?")
            arguments.append(.integer(after))
        }
        var sql = "SELECT \(columns) FROM events"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        return (sql + suffix, arguments, userKey)
    }

    /// The ids among `ids` that `user` already has stored (an unknown user has none).
    ///
    /// - Complexity: O(k log N) for k ids.
    package func storedIDs(user: String, among ids: [String]) throws -> Set<String> {
        try read { db in
            guard let key = try db.scalar(StoreSchema.findUser, [.text(user)])?.integerValue else { return [] }
            let statement = try db.cachedStatement("SELECT 1 FROM events WHERE user_key = ?1 AND id = ?2")
            var found: Set<String> = []
            for id in ids {
                defer { statement.reset() }
                try statement.bind([.integer(key), .text(id)])
                if try statement.step() { found.insert(id) }
            }
            return found
        }
    }

    /// The instant, id and type of `user`'s latest stored event of a type not in `excluded`
    /// (ties: the last stored), `nil` when there is none.
    ///
    /// - Complexity: O(log N + k) for the user's k events of the excluded types at the end.
    package func latestEvent(user: String, excluding excluded: Set<EventType>) throws
        -> (time: EventTime, id: String?, type: EventType)? {
        try read { db in
            guard let key = try db.scalar(StoreSchema.findUser, [.text(user)])?.integerValue else { return nil }
            let mask = excluded.reduce(Int64(0)) { $0 | (Int64(1) << Int64($1.code)) }
            let rows = try db.rows("""
                SELECT time_ns, offset_s, id, type FROM events WHERE user_key = ?1 AND ((1 << type) & ?2) = 0
                ORDER BY time_ns DESC, seq DESC LIMIT 1
                """, [.integer(key), .integer(mask)])
            guard let row = rows.first, let ns = row[0].integerValue, let offset = row[1].integerValue.flatMap({ Int32(exactly: $0) }),
                  let code = row[3].integerValue, let type = EventType(code: Int(code)) else { return nil }
            return (EventTime(nanosecondsSinceEpoch: ns, utcOffsetSeconds: offset), row[2].textValue, type)
        }
    }

    /// Counts, users and bounds of the whole log.
    ///
    /// - Complexity: O(N).
    public func statistics() throws -> EventStatistics {
        try read { db in
            var byType: [EventType: Int] = [:]
            var total = 0
            for row in try db.rows("SELECT type, count(*) FROM events GROUP BY type") {
                let code = Int(row[0].integerValue ?? 0)
                let count = Int(row[1].integerValue ?? 0)
                total += count
                if let type = EventType(code: code) { byType[type] = count }
            }
            let users = Int(try db.scalar("SELECT count(DISTINCT user_key) FROM events")?.integerValue ?? 0)
            func time(_ order: String) throws -> EventTime? {
                guard let row = try db.rows("SELECT time_ns, offset_s FROM events ORDER BY \(order) LIMIT 1").first,
                      let instant = row[0].integerValue, let offset = row[1].integerValue,
                      let offsetSeconds = Int32(exactly: offset) else { return nil }
                return EventTime(nanosecondsSinceEpoch: instant, utcOffsetSeconds: offsetSeconds)
            }
            return EventStatistics(events: total, users: users, byType: byType,
                                   first: try time("time_ns, seq"), last: try time("time_ns DESC, seq DESC"))
        }
    }

    /// Users with at least one event, sorted.
    ///
    /// - Complexity: O(U log U) for U users.
    public func users() throws -> [String] {
        try read { db in
            try db.rows("""
                SELECT name FROM users
                WHERE EXISTS (SELECT 1 FROM events WHERE events.user_key = users.user_key)
                """).compactMap { $0.first?.textValue }.sorted()
        }
    }

    /// The largest sequence number stored (0 when empty). Sequence numbers only grow: one is
    /// never given to a second event, even after the first was deleted.
    public func lastSequence() throws -> Int64 {
        try read { db in try db.scalar("SELECT max(seq) FROM events")?.integerValue ?? 0 }
    }

    // MARK: Deleting

    /// Deletes events strictly before `time` (retention) and returns how many.
    ///
    /// The saved state of every user who lost events is cleared too (it was derived from them),
    /// so the engine rebuilds it from what remains; users left without events are forgotten.
    /// Deleted content is overwritten (`secure_delete`) and the write-ahead log is checkpointed.
    /// - Complexity: O(k log N) for k deleted events.
    @discardableResult
    public func deleteEvents(before time: EventTime) throws -> Int {
        let deleted = try write { db in
            let bound = SQLiteValue.integer(time.nanosecondsSinceEpoch)
            try db.execute(StoreSchema.recordDeletedThrough)
            let affected = try db.rows("""
                SELECT name FROM users WHERE user_key IN (SELECT DISTINCT user_key FROM events WHERE time_ns < ?)
                """, [bound]).compactMap { $0.first?.textValue }
            try db.execute("DELETE FROM events WHERE time_ns < ?", [bound])
            let deleted = db.changes
            for user in affected {
                try db.execute("DELETE FROM engine_state WHERE user = ?", [.text(user)])
            }
            try db.execute("""
                DELETE FROM users WHERE NOT EXISTS (SELECT 1 FROM events WHERE events.user_key = users.user_key)
                """)
            return deleted
        }
        checkpoint()
        return deleted
    }

    /// Erases every event and saved state of `user`, and the user's name; returns how many events.
    ///
    /// Deleted content is overwritten (`secure_delete`) and the write-ahead log is checkpointed.
    /// - Complexity: O(k log N) for the user's k events.
    @discardableResult
    public func erase(user: String) throws -> Int {
        let deleted = try write { db in
            var deleted = 0
            if let key = try db.scalar(StoreSchema.findUser, [.text(user)])?.integerValue {
                try db.execute(StoreSchema.recordDeletedThrough)
                try db.execute("DELETE FROM events WHERE user_key = ?", [.integer(key)])
                deleted = db.changes
                try db.execute("DELETE FROM users WHERE user_key = ?", [.integer(key)])
            }
            try db.execute("DELETE FROM engine_state WHERE user = ?", [.text(user)])
            return deleted
        }
        checkpoint()
        return deleted
    }

    /// Copies the write-ahead log into the database file and truncates it, so deleted content
    /// does not linger in the log. Best effort: skipped while another connection reads.
    private func checkpoint() {
        _ = try? read { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    // MARK: Derived state

    /// Saves a derived-state blob for (user, key), valid through `sequence`, replacing any
    /// previous one.
    package func saveState(user: String, key: String, sequence: Int64, blob: [UInt8]) throws {
        try write { db in
            try db.execute("""
                INSERT INTO engine_state(user, key, sequence, blob) VALUES (?, ?, ?, ?)
                ON CONFLICT (user, key) DO UPDATE SET sequence = excluded.sequence, blob = excluded.blob
                """, [.text(user), .text(key), .integer(sequence), .blob(blob)])
        }
    }

    /// Loads a derived-state blob for (user, key) with the sequence it is valid through.
    package func loadState(user: String, key: String) throws -> (sequence: Int64, blob: [UInt8])? {
        try read { db in
            let statement = try db.cachedStatement("SELECT sequence, blob FROM engine_state WHERE user = ? AND key = ?")
            defer { statement.reset() }
            try statement.bind(user, at: 1)
            try statement.bind(key, at: 2)
            guard try statement.step() else { return nil }
            return (statement.int64(at: 0), statement.blob(at: 1))
        }
    }

    /// Deletes all saved derived state (for rebuild).
    package func clearState() throws {
        try write { db in try db.execute("DELETE FROM engine_state") }
    }

    /// Deletes the saved derived state of `user` (for rebuild).
    package func clearState(user: String) throws {
        try write { db in try db.execute("DELETE FROM engine_state WHERE user = ?", [.text(user)]) }
    }

    // MARK: Health

    /// The result of SQLite's `PRAGMA integrity_check`: `["ok"]` for a sound file.
    ///
    /// - Complexity: O(size of the database).
    public func integrityCheck() throws -> [String] {
        try read { db in try db.integrityCheck() }
    }
}
