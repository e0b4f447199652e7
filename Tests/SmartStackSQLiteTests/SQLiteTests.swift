import CSQLite
import Foundation
import Synchronization
import Testing
@testable import SmartStackSQLite

/// A temporary directory removed when the value is released.
final class SQLiteTemporaryDirectory {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("smartstack-sqlite-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

@Suite struct SQLiteTests {
    @Test func bindsAndReadsEveryTypeExactly() throws {
        let connection = try Connection(path: ":memory:")
        let doubles: [Double] = [-0.0, 0.0, 1.0, -2.5, .pi, 0.1 + 0.2, .leastNonzeroMagnitude,
                                 .greatestFiniteMagnitude, .infinity, -.infinity, 1e-300]
        let texts = ["", "plain", "naïve café", "😀 four-byte 𝄞", "'); DROP TABLE t; --", "quote \" and '", "tab\tnewline\n"]
        func integer(_ k: Int) -> Int64 { k == 5 ? Int64.min : Int64.max - Int64(k) }
        try connection.withDatabase { db in
            try db.execute("CREATE TABLE t(i INTEGER, r, s TEXT, b BLOB)")
            let insert = try db.cachedStatement("INSERT INTO t VALUES (?, ?, ?, ?)")
            for (k, d) in doubles.enumerated() {
                try insert.bind(integer(k), at: 1)
                try insert.bind(d, at: 2)
                try insert.bind(texts[k % texts.count], at: 3)
                try insert.bind(k == 0 ? [] : [UInt8(k), 0, 255], at: 4)
                try insert.execute()
            }
            try insert.bindNull(at: 1)
            try insert.bind(nil as Double?, at: 2)
            try insert.bind(nil as String?, at: 3)
            try insert.bind(nil as [UInt8]?, at: 4)
            try insert.execute()

            let select = try db.makeStatement("SELECT i, r, s, b, typeof(r), typeof(s), typeof(b) FROM t ORDER BY rowid")
            for (k, d) in doubles.enumerated() {
                #expect(try select.step())
                #expect(select.int64(at: 0) == integer(k))
                #expect(select.double(at: 1).bitPattern == d.bitPattern, "double \(d) must round-trip bit for bit")
                #expect(select.string(at: 2) == texts[k % texts.count])
                #expect(select.blob(at: 3) == (k == 0 ? [] : [UInt8(k), 0, 255]))
                #expect(select.string(at: 4) == "real")
                #expect(select.string(at: 5) == "text", "empty text must stay text, not NULL")
                #expect(select.string(at: 6) == "blob", "an empty blob must stay a blob, not NULL")
            }
            #expect(try select.step())
            #expect(select.isNull(at: 0) && select.isNull(at: 1) && select.isNull(at: 2) && select.isNull(at: 3))
            #expect(select.optionalString(at: 2) == nil)
            #expect(select.optionalDouble(at: 1) == nil)
            #expect(try select.step() == false)
        }
    }

    @Test func textWithEmbeddedNULRoundTrips() throws {
        let connection = try Connection(path: ":memory:")
        let text = "a\u{0}b\u{0}"
        let back = try connection.withDatabase { db in
            try db.scalar("SELECT ?", [.text(text)])?.textValue
        }
        #expect(back == text)
    }

    @Test func cachedStatementIsPreparedOnceAndComesBackReset() throws {
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db in
            let first = try db.cachedStatement("SELECT ?")
            try first.bind(Int64(7), at: 1)
            #expect(try first.step())
            let second = try db.cachedStatement("SELECT ?")
            #expect(first === second)
            #expect(try second.step())
            #expect(second.isNull(at: 0), "a cached statement comes back with its bindings cleared")
        }
    }

    @Test func transactionCommitsOnReturnAndRollsBackOnThrow() throws {
        struct Boom: Error {}
        let connection = try Connection(path: ":memory:")
        try connection.execute("CREATE TABLE t(a INTEGER)")
        try connection.transaction { db in try db.execute("INSERT INTO t VALUES (1)") }
        #expect(throws: Boom.self) {
            try connection.transaction { db in
                try db.execute("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        let nested = try connection.withDatabase { db in
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (3)")
                try? db.transaction { () throws -> Void in
                    try db.execute("INSERT INTO t VALUES (4)")
                    throw Boom()
                }
            }
            return try db.rows("SELECT a FROM t ORDER BY a").map { $0[0].integerValue ?? -1 }
        }
        #expect(nested == [1, 3], "the failed transaction and the failed nested one leave no rows")
    }

    @Test func errorsCarryCodeMessageAndSQL() throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute("CREATE TABLE t(a INTEGER UNIQUE)")
        try connection.execute("INSERT INTO t VALUES (1)")
        do {
            try connection.withDatabase { db in try db.execute("INSERT INTO t VALUES (?)", [.integer(1)]) }
            Issue.record("a unique violation must throw")
        } catch let error as SQLiteError {
            #expect(error.resultCode == 2067, "SQLITE_CONSTRAINT_UNIQUE")
            #expect(error.primaryResultCode == SQLITE_CONSTRAINT)
            #expect(error.message.contains("UNIQUE constraint failed: t.a"))
            #expect(error.sql == "INSERT INTO t VALUES (?)")
            #expect(error.description.contains("INSERT INTO t VALUES (?)"))
        }
        do {
            try connection.withDatabase { db in _ = try db.makeStatement("SELEC 1") }
            Issue.record("a syntax error must throw")
        } catch let error as SQLiteError {
            #expect(error.primaryResultCode == SQLITE_ERROR)
            #expect(error.message.contains("syntax error"))
            #expect(error.sql == "SELEC 1")
        }
        #expect(throws: SQLiteError.self) {
            try connection.withDatabase { db in _ = try db.makeStatement("SELECT 1; SELECT 2") }
        }
    }

    @Test func walIsOnForFilesAndSettingsApplied() throws {
        let directory = try SQLiteTemporaryDirectory()
        let connection = try Connection(path: directory.file("wal.sqlite"))
        let (mode, synchronous, secureDelete) = try connection.withDatabase { db in
            try db.applyRecommendedSettings()
            return (try db.pragma("journal_mode")?.textValue, try db.pragma("synchronous")?.integerValue,
                    try db.pragma("secure_delete")?.integerValue)
        }
        #expect(mode == "wal")
        #expect(synchronous == 1, "synchronous=NORMAL is 1")
        #expect(secureDelete == 1)
        let memory = try Connection(path: ":memory:")
        #expect(try memory.withDatabase { db in try db.enableWAL() } == "memory")
    }

    @Test func busyTimeoutThenClearError() throws {
        let directory = try SQLiteTemporaryDirectory()
        let path = directory.file("busy.sqlite")
        let holder = try Connection(path: path)
        try holder.withDatabase { db in
            try db.applyRecommendedSettings()
            try db.execute("CREATE TABLE t(a INTEGER); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        }
        let waiter = try Connection(path: path, options: .init(busyTimeout: .milliseconds(50)))
        do {
            try waiter.transaction { db in try db.execute("INSERT INTO t VALUES (2)") }
            Issue.record("a write while another connection holds the lock must fail after the timeout")
        } catch let error as SQLiteError {
            #expect(error.primaryResultCode == SQLITE_BUSY)
        }
        try holder.execute("COMMIT")
        try waiter.transaction { db in try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try waiter.withDatabase { db in try db.scalar("SELECT count(*) FROM t")?.integerValue } == 2)
    }

    @Test func readOnlyConnectionRefusesWrites() throws {
        let directory = try SQLiteTemporaryDirectory()
        let path = directory.file("ro.sqlite")
        try Connection(path: path).execute("CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1)")
        let readOnly = try Connection(path: path, options: .init(isReadOnly: true))
        #expect(try readOnly.withDatabase { db in db.isReadOnly })
        do {
            try readOnly.execute("INSERT INTO t VALUES (2)")
            Issue.record("writing a read-only connection must fail")
        } catch let error as SQLiteError {
            #expect(error.primaryResultCode == SQLITE_READONLY)
        }
        #expect(try readOnly.withDatabase { db in try db.scalar("SELECT count(*) FROM t")?.integerValue } == 1)
    }

    @Test func reentrantUseIsAnErrorNotADeadlock() throws {
        let connection = try Connection(path: ":memory:")
        do {
            try connection.withDatabase { _ in try connection.execute("SELECT 1") }
            Issue.record("re-entrant use must throw")
        } catch let error as SQLiteError {
            #expect(error.primaryResultCode == SQLITE_MISUSE)
            #expect(error.message.contains("re-entrant"))
        }
        try connection.execute("SELECT 1")  // still usable afterwards
    }

    @Test func concurrentWritersAreSerialized() async throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute("CREATE TABLE t(a INTEGER)")
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for k in 0..<200 {
                        try? connection.transaction { db in
                            try db.execute("INSERT INTO t VALUES (?)", [.integer(Int64(writer * 1000 + k))])
                        }
                    }
                }
            }
        }
        #expect(try connection.withDatabase { db in try db.scalar("SELECT count(DISTINCT a) FROM t")?.integerValue } == 1600)
    }
}

@Suite struct MigratorTests {
    static func migrator(steps: Int = 2) -> Migrator {
        var migrator = Migrator(product: "smartstack")
        migrator.registerMigration("create notes", sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
        if steps >= 2 {
            migrator.registerMigration("index notes") { db in try db.execute("CREATE INDEX notes_body ON notes(body)") }
        }
        return migrator
    }

    @Test func stepsAreAppliedOnceAndRecorded() throws {
        let connection = try Connection(path: ":memory:")
        let migrator = Self.migrator()
        let first = try connection.withDatabase { db in try migrator.migrate(db).map(\.name) }
        #expect(first == ["create notes", "index notes"])
        let second = try connection.withDatabase { db in try migrator.migrate(db).count }
        #expect(second == 0)
        let (recorded, userVersion) = try connection.withDatabase { db in
            (try db.rows("SELECT version, name FROM schema_migrations ORDER BY version"),
             try db.pragma("user_version")?.integerValue)
        }
        #expect(recorded == [[.integer(1), .text("create notes")], [.integer(2), .text("index notes")]])
        #expect(userVersion == 2)
    }

    @Test func laterStepsApplyToAnOlderDatabase() throws {
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db in try Self.migrator(steps: 1).migrate(db) }
        let applied = try connection.withDatabase { db in try Self.migrator().migrate(db).map(\.version) }
        #expect(applied == [2])
    }

    @Test func newerDatabaseIsRefusedWithAClearMessage() throws {
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db in try Self.migrator().migrate(db) }
        try connection.execute("PRAGMA user_version = 7")
        do {
            try connection.withDatabase { db in try Self.migrator().migrate(db) }
            Issue.record("a newer schema must be refused")
        } catch let error as MigrationError {
            #expect(error.description == "database schema version 7 is newer than this smartstack supports (2); upgrade smartstack")
        }
    }

    @Test func failingStepIsRolledBackAndNotRecorded() throws {
        struct Broken: Error {}
        var migrator = Self.migrator(steps: 1)
        migrator.registerMigration("half done") { db in
            try db.execute("CREATE TABLE half(a INTEGER)")
            throw Broken()
        }
        let connection = try Connection(path: ":memory:")
        #expect(throws: Broken.self) { try connection.withDatabase { db in try migrator.migrate(db) } }
        let (version, half) = try connection.withDatabase { db in
            (try migrator.version(of: db), try db.scalar("SELECT 1 FROM sqlite_schema WHERE name = 'half'"))
        }
        #expect(version == 1)
        #expect(half == nil)
    }

    @Test func foreignStepNamesAreRefused() throws {
        let connection = try Connection(path: ":memory:")
        var other = Migrator(product: "other")
        other.registerMigration("something else", sql: "CREATE TABLE x(a)")
        try connection.withDatabase { db in try other.migrate(db) }
        #expect(throws: MigrationError.self) { try connection.withDatabase { db in try Self.migrator().migrate(db) } }
    }
}
