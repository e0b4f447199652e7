import SmartStackSQLite

/// The tables of the event log and the statements that touch them on hot paths.
///
/// Every event is one row of `events`; which typed column holds which field depends on `type`
/// (see ``EventColumns``). Numbers live in columns without a declared type so SQLite keeps them
/// as 8-byte IEEE doubles, bit for bit (a `REAL` column would store 2.0 as the integer 2 and lose
/// the sign of -0.0).
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
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
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
        CREATE INDEX events_time ON events(time_ns);
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

    /// The insert used by `append`: parameters ?1...?12 are user_key, id, time_ns, offset_s,
    /// type, s1, s2, s3, n1, n2, n3, widgets. A (user, id) already stored is skipped.
    package static let insertEvent = """
        INSERT INTO events(user_key, id, time_ns, offset_s, type, s1, s2, s3, n1, n2, n3, widgets) \
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
        ON CONFLICT (user_key, id) WHERE id IS NOT NULL DO NOTHING
        """

    /// The columns read back for an event, in this order, after `FROM events`.
    package static let selectColumns =
        "seq, user_key, id, time_ns, offset_s, type, s1, s2, s3, n1, n2, n3, widgets"

    static let findUser = "SELECT user_key FROM users WHERE name = ?1"
    static let insertUser = "INSERT INTO users(name) VALUES (?1)"
    static let userName = "SELECT name FROM users WHERE user_key = ?1"
}
