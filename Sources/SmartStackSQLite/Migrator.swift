import CSQLite

/// Numbered, named schema changes, applied in order and recorded in the database itself.
///
/// Each applied step is a row of `schema_migrations(version, name)`, and `PRAGMA user_version`
/// holds the highest version, so a database written by a newer program is recognized and
/// refused instead of being misread.
///
/// ```swift
/// var migrator = Migrator(product: "smartstack")
/// migrator.registerMigration("create notes", sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
/// migrator.registerMigration("index notes") { db in try db.execute("CREATE INDEX notes_body ON notes(body)") }
/// try connection.withDatabase { db in try migrator.migrate(db) }
/// ```
public struct Migrator: Sendable {
    /// One schema step.
    public struct Migration: Sendable {
        /// 1 for the first step registered, 2 for the next, ...
        public let version: Int
        /// What the step does, recorded in the database next to its number.
        public let name: String
        let apply: @Sendable (Database) throws -> Void
    }

    /// The program name used in error messages ("upgrade smartstack").
    public let product: String
    /// The registered steps, in order.
    public private(set) var migrations: [Migration] = []

    /// Creates an empty migrator for `product`.
    public init(product: String) {
        self.product = product
    }

    /// The version a database has once every registered step is applied.
    public var latestVersion: Int { migrations.count }

    /// Registers the next step as a closure.
    public mutating func registerMigration(_ name: String, _ apply: @escaping @Sendable (Database) throws -> Void) {
        migrations.append(Migration(version: migrations.count + 1, name: name, apply: apply))
    }

    /// Registers the next step as an SQL script.
    public mutating func registerMigration(_ name: String, sql: String) {
        registerMigration(name) { db in try db.execute(sql) }
    }

    /// The steps recorded in `db`, in order (empty for a new database).
    ///
    /// - Complexity: O(number of recorded steps).
    public func appliedMigrations(in db: Database) throws -> [(version: Int, name: String)] {
        let hasTable = try db.scalar(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'") != nil
        guard hasTable else { return [] }
        return try db.rows("SELECT version, name FROM schema_migrations ORDER BY version").map {
            (Int($0[0].integerValue ?? 0), $0[1].textValue ?? "")
        }
    }

    /// The schema version of `db`: the highest of `user_version` and the recorded steps.
    public func version(of db: Database) throws -> Int {
        let userVersion = Int(try db.pragma("user_version")?.integerValue ?? 0)
        let recorded = try appliedMigrations(in: db).map(\.version).max() ?? 0
        return max(userVersion, recorded)
    }

    /// Throws when `db` was written by a newer schema or its recorded steps are not ours.
    public func checkCompatibility(of db: Database) throws {
        let version = try version(of: db)
        if version > latestVersion {
            throw MigrationError.newerSchema(found: version, supported: latestVersion, product: product)
        }
        for applied in try appliedMigrations(in: db) {
            let index = applied.version - 1
            guard index >= 0, index < migrations.count, migrations[index].name == applied.name else {
                let expected = index >= 0 && index < migrations.count ? migrations[index].name : nil
                throw MigrationError.unknownMigration(version: applied.version, name: applied.name, expected: expected)
            }
        }
    }

    /// Whether some registered step is not yet applied to `db`.
    public func hasPendingMigrations(_ db: Database) throws -> Bool {
        try version(of: db) < latestVersion
    }

    /// Applies every pending step, each in its own transaction, and returns those applied.
    ///
    /// A step that throws is rolled back completely and nothing after it runs.
    /// - Throws: ``MigrationError`` for a newer or foreign schema, or the step's error.
    /// - Complexity: the cost of the pending steps.
    @discardableResult
    public func migrate(_ db: Database) throws -> [Migration] {
        try checkCompatibility(of: db)
        var applied: [Migration] = []
        for migration in migrations {
            let ran = try db.transaction(.immediate) { () throws -> Bool in
                // Read again inside the write lock: another process may have migrated meanwhile.
                let current = try version(of: db)
                if current > latestVersion {
                    throw MigrationError.newerSchema(found: current, supported: latestVersion, product: product)
                }
                guard current < migration.version else { return false }
                try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations(version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
                try migration.apply(db)
                try db.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)",
                               [.integer(Int64(migration.version)), .text(migration.name)])
                try db.execute("PRAGMA user_version = \(migration.version)")
                return true
            }
            if ran { applied.append(migration) }
        }
        return applied
    }
}

/// Why a database's schema cannot be used by this program.
public enum MigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database was written by a newer version of the program.
    case newerSchema(found: Int, supported: Int, product: String)
    /// A recorded step does not match the step this program has under that number.
    case unknownMigration(version: Int, name: String, expected: String?)

    /// A sentence saying what is wrong and what to do.
    public var description: String {
        switch self {
        case let .newerSchema(found, supported, product):
            "database schema version \(found) is newer than this \(product) supports (\(supported)); upgrade \(product)"
        case let .unknownMigration(version, name, expected?):
            "database schema step \(version) is '\(name)' but this program's step \(version) is '\(expected)'; the database was written by a different program"
        case let .unknownMigration(version, name, nil):
            "database schema step \(version) '\(name)' is unknown to this program"
        }
    }
}
