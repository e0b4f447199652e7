import SmartStackSQLite

/// The tables of the event log and the statements that touch them on hot paths.
///
/// Every event is one row of `events`; which typed column holds which field depends on `type`
/// (see ``EventColumns``). Numbers live in columns without a declared type so SQLite keeps them
/// as 8-byte IEEE doubles, bit for bit (a `REAL` column would store 2.0 as the integer 2 and lose
/// the sign of -0.0).
///
/// Sequence numbers are assigned by `append` (the largest stored or ever deleted, plus one), so
/// one is never given twice without paying for `AUTOINCREMENT` on every row; deletions record
/// the largest number they removed in `counters`. There is deliberately no index on `time_ns`
/// alone: it would cost every append, and reads are by user (or the log has a single user).
package enum StoreSchema {
    /// `PRAGMA application_id` of SmartStack databases ("SmSt").
    package static let applicationID: Int64 = 0x536D_5374

    /// Step 1: users and events.
    package static let createEvents = """
        CREATE TABLE users(
            user_key INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE
        );
        CREATE TABLE events(
            seq INTEGER PRIMARY KEY,
            user_key INTEGER NOT NULL,
            id TEXT,
            time_ns INTEGER NOT NULL,
            offset_s INTEGER NOT NULL,
            type INTEGER NOT NULL,
            s1 TEXT,
            s2 TEXT,
            s3 TEXT,
            n1,
            n2,
            n3,
            widgets BLOB
        );
        CREATE UNIQUE INDEX events_user_id ON events(user_key, id) WHERE id IS NOT NULL;
        CREATE INDEX events_user_time ON events(user_key, time_ns);
        CREATE TABLE counters(
            name TEXT PRIMARY KEY,
            value INTEGER NOT NULL
        ) WITHOUT ROWID;
        PRAGMA application_id = \(applicationID);
        """

    /// Step 2: derived engine state saved next to the log.
    package static let createEngineState = """
        CREATE TABLE engine_state(
            user TEXT NOT NULL,
            key TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            blob BLOB NOT NULL,
            PRIMARY KEY (user, key)
        ) WITHOUT ROWID;
        """

    /// The migrator of the event log: numbered, named steps recorded in `schema_migrations`.
    package static let migrator: Migrator = {
        var migrator = Migrator(product: "smartstack")
        migrator.registerMigration("create users and events", sql: createEvents)
        migrator.registerMigration("create engine_state", sql: createEngineState)
        return migrator
    }()

    /// The insert used by `append`: parameters ?1...?13 are seq, user_key, id, time_ns,
    /// offset_s, type, s1, s2, s3, n1, n2, n3, widgets. A (user, id) already stored is skipped.
    package static let insertEvent = """
        INSERT INTO events(seq, user_key, id, time_ns, offset_s, type, s1, s2, s3, n1, n2, n3, widgets) \
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) \
        ON CONFLICT (user_key, id) WHERE id IS NOT NULL DO NOTHING
        """

    /// The next sequence number to give: one more than the largest stored or ever deleted.
    static let nextSequence = """
        SELECT max(coalesce((SELECT max(seq) FROM events), 0),
                   coalesce((SELECT value FROM counters WHERE name = 'deleted_through'), 0)) + 1
        """

    /// Remembers the largest sequence number before a deletion, so it is never given again.
    static let recordDeletedThrough = """
        INSERT INTO counters(name, value) SELECT 'deleted_through', coalesce(max(seq), 0) FROM events WHERE true
        ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)
        """

    /// Page cache of the store's connection, in KiB (SQLite's default is 2 MiB): bulk appends
    /// touch several index pages per row.
    static let cacheKiB = 16 * 1024

    /// The columns read back for an event, in this order, after `FROM events`.
    package static let selectColumns =
        "seq, user_key, id, time_ns, offset_s, type, s1, s2, s3, n1, n2, n3, widgets"

    /// The values `append` binds for `event`, in the order of ``insertEvent``'s parameters
    /// (seq, user_key, id, time_ns, offset_s, type, s1, s2, s3, n1, n2, n3, widgets); a `nil`
    /// sequence binds `NULL` so SQLite picks the next one. Lets a benchmark insert exactly the
    /// rows the store inserts through raw SQLite calls.
    ///
    /// - Complexity: O(size of the event).
    package static func insertValues(for event: Event, sequence: Int64?, userKey: Int64) -> [SQLiteValue] {
        func text(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
        func number(_ value: Double?) -> SQLiteValue { value.map(SQLiteValue.real) ?? .null }
        var s: [String?] = [nil, nil, nil]
        var n: [Double?] = [nil, nil, nil]
        var widgets: [UInt8]?
        switch event.payload {
        case let .stackConfig(stack, list): s[0] = stack; widgets = EventColumns.encodeWidgets(list)
        case let .appLaunch(app): s[0] = app
        case let .widgetImpression(stack, widget, propensity, policy): s = [stack, widget, policy]; n[0] = propensity
        case let .widgetTap(widget, stack): s = [widget, stack, nil]
        case let .widgetSwipe(stack, from, to): s = [stack, from, to]
        case let .widgetPin(stack, widget), let .widgetUnpin(stack, widget): s = [stack, widget, nil]
        case .screenOn: break
        case let .location(lat, lon, accuracy): n = [lat, lon, accuracy]
        case let .place(place): s[0] = place
        case let .context(key, value): s = [key, value, nil]
        case let .relevance(widget, score, duration): s[0] = widget; n = [score, duration, nil]
        }
        return [sequence.map(SQLiteValue.integer) ?? .null, .integer(userKey), text(event.id),
                .integer(event.time.nanosecondsSinceEpoch), .integer(Int64(event.time.utcOffsetSeconds)),
                .integer(Int64(event.type.code)), text(s[0]), text(s[1]), text(s[2]),
                number(n[0]), number(n[1]), number(n[2]), widgets.map(SQLiteValue.blob) ?? .null]
    }

    static let findUser = "SELECT user_key FROM users WHERE name = ?1"
    static let insertUser = "INSERT INTO users(name) VALUES (?1)"
}
