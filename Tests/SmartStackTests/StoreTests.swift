import Foundation
import SmartStackSQLite
import Testing
@testable import SmartStack

@Suite struct StoreTests {
    typealias S = StoreSamples

    // MARK: Round trip

    @Test(arguments: [false, true])
    func everyEventTypeRoundTripsExactly(onDisk: Bool) throws {
        let directory = try StoreTemporaryDirectory()
        let path = onDisk ? directory.file("log.sqlite") : ":memory:"
        let events = S.everyType()
        let store = try EventStore(path: path)
        let result = try store.append(events)
        #expect(result == AppendResult(inserted: events.count, duplicates: 0))
        let back = try store.events(EventQuery())
        #expect(S.firstBitDifference(back, events) == nil, "numbers must come back bit for bit, including -0.0")
        if onDisk {
            let reopened = try EventStore(path: path)
            #expect(S.firstBitDifference(try reopened.events(EventQuery()), events) == nil, "the file alone holds everything")
        }
    }

    @Test func injectionTextsAreStoredAsData() throws {
        let store = try EventStore(path: ":memory:")
        let evil = "'); DROP TABLE events; --"
        try store.append([S.appLaunch(evil, evil, at: 1, app: evil)])
        try store.append([S.appLaunch("u", "x", at: 2)])
        let back = try store.events(EventQuery(user: evil))
        #expect(back == [S.appLaunch(evil, evil, at: 1, app: evil)])
        #expect(try store.users() == [evil, "u"].sorted())
        #expect(try store.statistics().events == 2)
    }

    @Test func coarsenedLocationsNeverReachTheDiskExactly() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("coarse.sqlite")
        let store = try EventStore(path: path, options: .init(coarsensLocations: true))
        let exact = EventTime(nanosecondsSinceEpoch: 1_000_000_000, utcOffsetSeconds: 3600)
        try store.append([
            Event(time: exact, user: "a", id: "l1", payload: .location(lat: 48.858_370_1, lon: 2.294_481_3, accuracy: 5)),
            Event(time: exact, user: "a", id: "l2", payload: .location(lat: -33.856_78, lon: 151.215_29, accuracy: nil)),
            Event(time: exact, user: "a", id: "p1", payload: .place("home")),
        ])
        let back = try store.events(EventQuery())
        #expect(back.map(\.payload) == [
            .location(lat: 48.858, lon: 2.294, accuracy: 100),
            .location(lat: -33.857, lon: 151.215, accuracy: nil),
            .place("home"),
        ])
        #expect(back.map(\.time) == [exact, exact, exact])
        let bytes = S.fileBytes(path) + S.fileBytes(path + "-wal")
        let fine = withUnsafeBytes(of: (48.858_370_1).bitPattern.littleEndian) { Array($0) }
        let fineBigEndian = withUnsafeBytes(of: (48.858_370_1).bitPattern.bigEndian) { Array($0) }
        #expect(bytes.firstRange(of: fine) == nil && bytes.firstRange(of: fineBigEndian) == nil,
                "the exact latitude must not be written anywhere")
    }

    // MARK: Dedupe

    @Test func duplicateIdsAreSkippedAcrossAndWithinBatches() throws {
        let store = try EventStore(path: ":memory:")
        let first = try store.append([S.appLaunch("a", "1", at: 1), S.appLaunch("a", "2", at: 2)])
        #expect(first == AppendResult(inserted: 2, duplicates: 0))
        let second = try store.append([
            S.appLaunch("a", "1", at: 1),             // stored before
            S.appLaunch("a", "3", at: 3),
            S.appLaunch("a", "3", at: 4, app: "x"),   // same id within this batch
            S.appLaunch("b", "1", at: 5),             // same id, another user: distinct
            S.appLaunch("a", nil, at: 6),             // no id: never a duplicate
            S.appLaunch("a", nil, at: 6),
        ])
        #expect(second == AppendResult(inserted: 4, duplicates: 2))
        let stored = try store.events(EventQuery(user: "a"))
        #expect(stored.map(\.id) == ["1", "2", "3", nil, nil])
        #expect(stored[2].payload == .appLaunch(app: "com.app"), "the first of two same-id events wins")
        #expect(try store.append(S.everyType()).inserted == S.everyType().count)
        #expect(try store.append(S.everyType()).inserted == S.everyType().filter { $0.id == nil }.count,
                "re-ingesting a file is a no-op for events with ids")
    }

    // MARK: Queries

    @Test func queriesFilterByUserTimeTypeAndSequence() throws {
        let store = try EventStore(path: ":memory:")
        try store.append([
            S.appLaunch("a", "1", at: 10),
            Event(time: EventTime(nanosecondsSinceEpoch: 20_000_000_000, utcOffsetSeconds: 3600), user: "a", payload: .screenOn),
            S.appLaunch("b", "1", at: 20),
            S.appLaunch("a", "2", at: 30),
        ])
        let afterFirst = try store.lastSequence()
        try store.append([S.appLaunch("a", "0", at: 5), S.appLaunch("b", "2", at: 40)])

        #expect(try store.events(EventQuery(user: "a")).map(\.time.nanosecondsSinceEpoch)
                == [5, 10, 20, 30].map { $0 * 1_000_000_000 }, "time order, not insertion order")
        #expect(try store.events(EventQuery(user: "nobody")).isEmpty)
        let window = EventQuery(from: EventTime(nanosecondsSinceEpoch: 10_000_000_000, utcOffsetSeconds: 0),
                                to: EventTime(nanosecondsSinceEpoch: 30_000_000_000, utcOffsetSeconds: 0))
        #expect(try store.events(window).map(\.time.nanosecondsSinceEpoch)
                == [10, 20, 20].map { $0 * 1_000_000_000 }, "from is inclusive, to exclusive")
        #expect(try store.count(window) == 3)
        #expect(try store.events(EventQuery(types: [.screenOn])).map(\.type) == [.screenOn])
        #expect(try store.events(EventQuery(types: [])).isEmpty)
        #expect(try store.count(EventQuery(user: "b", types: [.appLaunch, .place])) == 2)
        #expect(try store.events(EventQuery(afterSequence: afterFirst)).map(\.id) == ["0", "2"])
        var sequences: [Int64] = []
        try store.forEach(EventQuery()) { sequence, _ in sequences.append(sequence) }
        #expect(Set(sequences).count == 6)
        #expect(sequences.max() == (try store.lastSequence()))
    }

    @Test func tiesAreInInsertionOrder() throws {
        let store = try EventStore(path: ":memory:")
        let instant: Int64 = 1_000_000_000
        let events = (0..<5).map { k in
            Event(time: EventTime(nanosecondsSinceEpoch: instant, utcOffsetSeconds: Int32(3600 * (4 - k))),
                  user: "a", id: "t\(k)", payload: .place("p\(k)"))
        }
        try store.append(events)
        #expect(try store.events(EventQuery()) == events)
        #expect(try store.events(EventQuery(user: "a")) == events)
    }

    @Test func forEachStopsOnTheCallersErrorAndRefusesReentry() throws {
        struct Stop: Error {}
        let store = try EventStore(path: ":memory:")
        try store.append((0..<10).map { S.appLaunch("a", "\($0)", at: Int64($0)) })
        var seen = 0
        #expect(throws: Stop.self) {
            try store.forEach(EventQuery()) { _, _ in
                seen += 1
                if seen == 3 { throw Stop() }
            }
        }
        #expect(seen == 3)
        do {
            try store.forEach(EventQuery()) { _, _ in _ = try store.count(EventQuery()) }
            Issue.record("calling the store from inside forEach must throw, not deadlock")
        } catch let error as StoreError {
            #expect(error.kind == .misuse)
        }
        #expect(try store.count(EventQuery()) == 10, "the store stays usable")
    }

    // MARK: Statistics

    @Test func statisticsCountTypesUsersAndBounds() throws {
        let store = try EventStore(path: ":memory:")
        let empty = try store.statistics()
        #expect(empty == EventStatistics(events: 0, users: 0, byType: [:], first: nil, last: nil))
        let events = S.everyType()
        try store.append(events)
        let stats = try store.statistics()
        #expect(stats.events == events.count)
        #expect(stats.users == Set(events.map(\.user)).count)
        #expect(stats.byType == Dictionary(grouping: events, by: \.type).mapValues(\.count))
        #expect(stats.first == events.min { $0.time < $1.time }?.time)
        #expect(stats.last == events.max { $0.time < $1.time }?.time)
        #expect(try store.users() == Set(events.map(\.user)).sorted())
    }

    // MARK: Retention, erase, state

    @Test func retentionDeletesOlderEventsAndTheStateDerivedFromThem() throws {
        let store = try EventStore(path: ":memory:")
        try store.append([S.appLaunch("old", "1", at: 1), S.appLaunch("mixed", "1", at: 2),
                          S.appLaunch("mixed", "2", at: 200), S.appLaunch("new", "1", at: 300)])
        for user in ["old", "mixed", "new"] {
            try store.saveState(user: user, key: "model", sequence: 4, blob: [1, 2, 3])
        }
        let deleted = try store.deleteEvents(before: EventTime(nanosecondsSinceEpoch: 200_000_000_000, utcOffsetSeconds: 0))
        #expect(deleted == 2)
        #expect(try store.events(EventQuery()).map(\.time.nanosecondsSinceEpoch) == [200_000_000_000, 300_000_000_000])
        #expect(try store.users() == ["mixed", "new"])
        #expect(try store.loadState(user: "old", key: "model") == nil)
        #expect(try store.loadState(user: "mixed", key: "model") == nil, "state derived from deleted events goes too")
        #expect(try store.loadState(user: "new", key: "model")?.blob == [1, 2, 3])
    }

    @Test func eraseRemovesAUserEverywhereAndSequencesNeverRepeat() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("erase.sqlite")
        let store = try EventStore(path: path)
        let secret = "zelda-secret-person"
        let secretApp = "com.secret.diary.app"
        try store.append([S.appLaunch("keep", "1", at: 1)])
        try store.append((0..<50).map { S.appLaunch(secret, "s\($0)", at: Int64(10 + $0), app: secretApp) })
        try store.saveState(user: secret, key: "model", sequence: 51, blob: Array(secretApp.utf8))
        let before = try store.lastSequence()
        #expect(try store.erase(user: secret) == 50)
        #expect(try store.erase(user: "nobody") == 0)
        #expect(try store.users() == ["keep"])
        #expect(try store.events(EventQuery(user: secret)).isEmpty)
        #expect(try store.loadState(user: secret, key: "model") == nil)
        #expect(try store.events(EventQuery()) == [S.appLaunch("keep", "1", at: 1)])
        try store.append([S.appLaunch("keep", "2", at: 100)])
        #expect(try store.lastSequence() > before, "a sequence number is never given twice")
        // secure_delete + checkpoint: the erased texts are gone from the bytes on disk.
        let bytes = S.fileBytes(path) + S.fileBytes(path + "-wal")
        for text in [secret, secretApp] {
            #expect(bytes.firstRange(of: Array(text.utf8)) == nil, "'\(text)' must not remain on disk")
        }
    }

    @Test func savedStateRoundTripsAndClears() throws {
        let store = try EventStore(path: ":memory:")
        #expect(try store.loadState(user: "a", key: "k") == nil)
        try store.saveState(user: "a", key: "k", sequence: 7, blob: [])
        #expect(try store.loadState(user: "a", key: "k")?.sequence == 7)
        #expect(try store.loadState(user: "a", key: "k")?.blob == [])
        try store.saveState(user: "a", key: "k", sequence: 9, blob: [0, 255, 1])
        try store.saveState(user: "b", key: "k", sequence: 1, blob: [5])
        let loaded = try store.loadState(user: "a", key: "k")
        #expect(loaded?.sequence == 9 && loaded?.blob == [0, 255, 1])
        try store.clearState(user: "a")
        #expect(try store.loadState(user: "a", key: "k") == nil)
        #expect(try store.loadState(user: "b", key: "k") != nil)
        try store.clearState()
        #expect(try store.loadState(user: "b", key: "k") == nil)
    }

    // MARK: File

    @Test func newFileIsPrivateWALAndMigrationsAreRecorded() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("private.sqlite")
        let store = try EventStore(path: path)
        try store.append(S.everyType())
        #expect(S.mode(path) == 0o600)
        #expect(S.mode(path + "-wal") == 0o600, "SQLite gives its companion files the database's mode")
        let (mode, secureDelete, synchronous, migrations, applicationID) = try store.connection.withDatabase { db in
            (try db.pragma("journal_mode")?.textValue, try db.pragma("secure_delete")?.integerValue,
             try db.pragma("synchronous")?.integerValue,
             try db.rows("SELECT version, name FROM schema_migrations ORDER BY version"),
             try db.pragma("application_id")?.integerValue)
        }
        #expect(mode == "wal")
        #expect(secureDelete == 1)
        #expect(synchronous == 1)
        #expect(migrations == [[.integer(1), .text("create users and events")], [.integer(2), .text("create engine_state")]])
        #expect(applicationID == StoreSchema.applicationID)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func existingFileKeepsItsMode() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("shared.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640]))
        _ = try EventStore(path: path)
        #expect(S.mode(path) == 0o640, "the store does not change the mode of a file it did not create")
    }

    // MARK: Bad input

    private func expectStoreError(_ kind: StoreError.Kind, containing text: String, path: String,
                                  _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("expected a \(kind) error", sourceLocation: sourceLocation)
        } catch let error as StoreError {
            #expect(error.kind == kind, sourceLocation: sourceLocation)
            #expect(error.path == path, sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix(path + ": "), sourceLocation: sourceLocation)
            #expect(error.description.contains(text), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected StoreError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func directoryPathIsRefused() throws {
        let directory = try StoreTemporaryDirectory()
        expectStoreError(.cannotOpen, containing: "is a directory", path: directory.path) {
            _ = try EventStore(path: directory.path)
        }
    }

    @Test func missingDirectoryIsRefused() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("no/such/dir/log.sqlite")
        expectStoreError(.cannotOpen, containing: "directory does not exist", path: path) {
            _ = try EventStore(path: path)
        }
    }

    @Test func unwritableDirectoryIsRefused() throws {
        // Root ignores permission bits, so as root use sysfs, which nobody can create files in.
        let directory = try StoreTemporaryDirectory()
        let parent: String
        if geteuid() == 0 {
            parent = "/sys"
        } else {
            parent = directory.file("locked")
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o555])
        }
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: parent) }
        let path = parent + "/smartstack-test.sqlite"
        expectStoreError(.readOnly, containing: "permission denied", path: path) {
            _ = try EventStore(path: path)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func readOnlyStoreRefusesChangesAndKeepsData() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("ro.sqlite")
        try EventStore(path: path).append([S.appLaunch("a", "1", at: 1)])
        let readOnly = try EventStore(path: path, options: .init(isReadOnly: true))
        #expect(try readOnly.count(EventQuery()) == 1)
        expectStoreError(.readOnly, containing: "read-only", path: path) {
            try readOnly.append([S.appLaunch("a", "2", at: 2)])
        }
        expectStoreError(.readOnly, containing: "read-only", path: path) { try readOnly.erase(user: "a") }
        #expect(try EventStore(path: path).events(EventQuery()) == [S.appLaunch("a", "1", at: 1)])
        let missing = directory.file("missing.sqlite")
        expectStoreError(.cannotOpen, containing: "no such database file", path: missing) {
            _ = try EventStore(path: missing, options: .init(isReadOnly: true))
        }
    }

    @Test func fileThatIsNotADatabaseIsRefusedUntouched() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("notes.txt")
        let content = Array(String(repeating: "these are my notes, not a database\n", count: 200).utf8)
        try Data(content).write(to: URL(fileURLWithPath: path))
        expectStoreError(.notADatabase, containing: "not a SmartStack database: file is not a database", path: path) {
            _ = try EventStore(path: path)
        }
        #expect(S.fileBytes(path) == content, "the file must not be changed")
    }

    @Test func sqliteDatabaseOfAnotherProgramIsRefusedUntouched() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("other.sqlite")
        try Connection(path: path).execute("CREATE TABLE recipes(name TEXT); INSERT INTO recipes VALUES ('soup')")
        let before = S.fileBytes(path)
        expectStoreError(.notADatabase, containing: "tables of another program (recipes)", path: path) {
            _ = try EventStore(path: path)
        }
        #expect(S.fileBytes(path) == before)
    }

    @Test func newerSchemaIsRefusedUntouched() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("future.sqlite")
        do {
            let store = try EventStore(path: path)
            try store.append([S.appLaunch("a", "1", at: 1)])
            try store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA user_version = 7")
            try store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let before = S.fileBytes(path)
        let supported = StoreSchema.migrator.latestVersion
        expectStoreError(.newerSchema, containing:
            "database schema version 7 is newer than this smartstack supports (\(supported)); upgrade smartstack", path: path) {
            _ = try EventStore(path: path)
        }
        #expect(S.fileBytes(path) == before)
    }

    @Test func damagedFileIsReportedNotMisread() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("damaged.sqlite")
        do {
            let store = try EventStore(path: path)
            try store.append((0..<5000).map { S.appLaunch("u\($0 % 3)", "e\($0)", at: Int64($0), app: "com.example.\($0)") })
        }
        // Overwrite pages 3...10 (after the schema) with garbage.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 2 * 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 8 * 4096))
        try handle.close()
        do {
            let store = try EventStore(path: path)
            let problems = try store.integrityCheck()
            #expect(problems != ["ok"] && !problems.isEmpty, "integrity_check must report the damage")
            do {
                _ = try store.events(EventQuery())
                Issue.record("reading damaged pages must fail, not return made-up events")
            } catch let error as StoreError {
                #expect(error.kind == .corrupt, "\(error)")
                #expect(error.description.hasPrefix(path + ": database file is damaged"), "\(error)")
            }
        } catch let error as StoreError {
            #expect(error.kind == .corrupt, "\(error)")
            #expect(error.path == path)
        }
    }

    @Test func failedAppendMidBatchStoresNothingAndKeepsEarlierData() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("atomic.sqlite")
        let store = try EventStore(path: path)
        let kept = (0..<10).map { S.appLaunch("a", "k\($0)", at: Int64($0)) }
        try store.append(kept)
        var batch = (0..<500).map { S.appLaunch("b", "n\($0)", at: Int64(100 + $0)) }
        batch[250] = Event(time: batch[250].time, user: "b", id: "bad",
                           payload: .relevance(widget: "w", score: .nan, duration: nil))
        expectStoreError(.invalidEvent, containing: "event 251 of the batch (relevance id bad): field 'score' is NaN", path: path) {
            try store.append(batch)
        }
        #expect(try store.events(EventQuery()) == kept)
        #expect(try store.users() == ["a"])
        batch[250] = S.appLaunch("b", "n250", at: 350)
        #expect(try store.append(batch).inserted == 500, "nothing of the failed batch was kept, so all of it goes in now")
    }

    @Test func fullDiskStoresNothingOfTheBatch() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("full.sqlite")
        let kept = (0..<100).map { S.appLaunch("a", "k\($0)", at: Int64($0)) }
        try EventStore(path: path).append(kept)
        let limited = try EventStore(path: path, options: .init(maximumSize: 256 * 1024))
        let big = (0..<20_000).map { S.appLaunch("b", "big-\($0)", at: Int64(1000 + $0), app: "com.example.\($0)") }
        expectStoreError(.full, containing: "full", path: path) { try limited.append(big) }
        #expect(try limited.events(EventQuery()) == kept)
        #expect(try limited.integrityCheck() == ["ok"])
        #expect(try limited.append([S.appLaunch("a", "after", at: 500)]).inserted == 1, "small appends still fit")
    }

    @Test func lockHeldTooLongIsAClearBusyError() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("busy.sqlite")
        let holder = try EventStore(path: path)
        let waiter = try EventStore(path: path, options: .init(busyTimeout: .milliseconds(50)))
        try holder.connection.execute("BEGIN IMMEDIATE")
        expectStoreError(.busy, containing: "locked by another connection", path: path) {
            try waiter.append([S.appLaunch("a", "1", at: 1)])
        }
        try holder.connection.execute("ROLLBACK")
        #expect(try waiter.append([S.appLaunch("a", "1", at: 1)]).inserted == 1)
    }

    @Test func benchmarkBaselineRowsAreTheStoresOwnRows() throws {
        // The ingest benchmark inserts StoreSchema.insertValues through raw SQLite; reading
        // those rows back through the store must give the same events as appending them.
        let events = S.everyType()
        let appended = try EventStore(path: ":memory:")
        try appended.append(events)
        let raw = try EventStore(path: ":memory:")
        try raw.connection.transaction { db in
            let insert = try db.makeStatement(StoreSchema.insertEvent)
            var keys: [String: Int64] = [:]
            for event in events {
                let key: Int64
                if let known = keys[event.user] {
                    key = known
                } else {
                    try db.execute("INSERT INTO users(name) VALUES (?)", [.text(event.user)])
                    key = db.lastInsertedRowID
                    keys[event.user] = key
                }
                try insert.bind(StoreSchema.insertValues(for: event, sequence: nil, userKey: key))
                try insert.execute()
            }
        }
        let back = try raw.events(EventQuery())
        #expect(S.firstBitDifference(back, try appended.events(EventQuery())) == nil)
        #expect(S.firstBitDifference(back, events) == nil)
    }

    @Test func concurrentAppendsAreAllStored() async throws {
        let store = try EventStore(path: ":memory:")
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for k in 0..<100 {
                        _ = try? store.append([S.appLaunch("u\(writer)", "\(k)", at: Int64(k)),
                                               S.appLaunch("u\(writer)", "\(k)", at: Int64(k))])
                    }
                }
            }
        }
        #expect(try store.count(EventQuery()) == 800)
        #expect(try store.users().count == 8)
    }
}
