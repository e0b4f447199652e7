import Foundation
import Testing
@testable import SmartStack

/// What a person relies on to stay private: a private file, overwritten deletions, retention,
/// erasing a person or an app everywhere, coarse locations.
@Suite struct PrivacyTests {
    private typealias S = StoreSamples

    private static func time(_ seconds: Int64) -> EventTime {
        EventTime(nanosecondsSinceEpoch: seconds * 1_000_000_000, utcOffsetSeconds: -14_400)
    }

    private static func event(_ user: String, _ id: String, at seconds: Int64, _ payload: EventPayload) -> Event {
        Event(time: time(seconds), user: user, id: id, payload: payload)
    }

    @Test func newDatabaseIsOwnerOnlyAndOverwritesDeletions() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("private.sqlite")
        let old = umask(0)   // the most permissive umask: the store must still restrict the file
        defer { umask(old) }
        let store = try EventStore(path: path)
        try store.append([S.appLaunch("a", "1", at: 1)])
        #expect(S.mode(path) == 0o600)
        let secureDelete = try store.connection.withDatabase { db in try db.pragma("secure_delete")?.integerValue }
        #expect(secureDelete == 1)
    }

    // MARK: Retention

    @Test func retentionKeepsTheLastDaysRelativeToTheNewestEvent() throws {
        let store = try EventStore(path: ":memory:")
        let day: Int64 = 86_400
        // Events 0, 10, 20, 29, 30 days (and a second) before the newest, in 2013.
        let base: Int64 = 1_364_385_900
        let ages: [Int64] = [30 * day + 1, 30 * day, 29 * day, 20 * day, 10 * day, 0]
        try store.append(ages.enumerated().map { S.appLaunch($0.offset < 2 ? "old" : "recent", "\($0.offset)", at: base - $0.element) })
        try store.saveState(user: "old", key: "model", sequence: 6, blob: [9])
        try store.saveState(user: "recent", key: "model", sequence: 6, blob: [9])
        #expect(try store.deleteEvents(olderThanDays: 30) == 1, "exactly 30 days old is kept; older goes")
        #expect(try store.loadState(user: "old", key: "model") == nil, "state derived from deleted events goes")
        #expect(try store.loadState(user: "recent", key: "model")?.blob == [9])
        #expect(try store.deleteEvents(olderThanDays: 25) == 2)
        #expect(try store.users() == ["recent"])
        #expect(try store.events(EventQuery()).map(\.time.nanosecondsSinceEpoch)
                == [base - 20 * day, base - 10 * day, base].map { $0 * 1_000_000_000 })
        #expect(try store.deleteEvents(olderThanDays: 0) == 2, "0 days keeps only the newest instant")
        #expect(try store.count(EventQuery()) == 1)
        #expect(try store.deleteEvents(olderThanDays: Int.max) == 0, "a huge window deletes nothing, never overflows")
        #expect(throws: StoreError.self) { try store.deleteEvents(olderThanDays: -1) }
        #expect(try EventStore(path: ":memory:").deleteEvents(olderThanDays: 1) == 0, "an empty log is fine")
    }

    // MARK: Erasing an app

    /// Two users; `com.secret.diary` is used by `ann` through a launch and a widget, and by `bob`
    /// through launches only.
    private static func diaryLog() -> [Event] {
        [
            event("ann", "c1", at: 1, .stackConfig(stack: "home", widgets: [
                WidgetConfig(id: "w.mail", app: "com.mail"), WidgetConfig(id: "w.diary-secret", app: "com.secret.diary"),
                WidgetConfig(id: "w.note")])),
            event("ann", "l1", at: 2, .appLaunch(app: "com.secret.diary")),
            event("ann", "l2", at: 3, .appLaunch(app: "com.mail")),
            event("ann", "i1", at: 4, .widgetImpression(stack: "home", widget: "w.diary-secret", propensity: 0.5, policy: "p")),
            event("ann", "i2", at: 5, .widgetImpression(stack: "home", widget: "w.mail", propensity: 0.5, policy: "p")),
            event("ann", "t1", at: 6, .widgetTap(widget: "w.diary-secret", stack: "home")),
            event("ann", "s1", at: 7, .widgetSwipe(stack: "home", from: "w.mail", to: "w.diary-secret")),
            event("ann", "s2", at: 8, .widgetSwipe(stack: "home", from: "w.mail", to: "w.note")),
            event("ann", "p1", at: 9, .widgetPin(stack: "home", widget: "w.diary-secret")),
            event("ann", "p2", at: 10, .widgetUnpin(stack: "home", widget: "w.diary-secret")),
            event("ann", "r1", at: 11, .relevance(widget: "w.diary-secret", score: 0.9, duration: nil)),
            event("ann", "r2", at: 12, .relevance(widget: "w.mail", score: 0.1, duration: nil)),
            event("ann", "x1", at: 13, .place("home")),
            event("bob", "l1", at: 14, .appLaunch(app: "com.secret.diary")),
            event("bob", "l2", at: 15, .appLaunch(app: "com.secret.diary")),
            event("bob", "t1", at: 16, .widgetTap(widget: "w.diary-secret", stack: nil)),   // bob never configured it
            event("cat", "l1", at: 17, .appLaunch(app: "com.mail")),
        ]
    }

    @Test func erasingAnAppRemovesEveryTraceAndOnlyThat() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("apps.sqlite")
        let store = try EventStore(path: path)
        try store.append(Self.diaryLog())
        for user in ["ann", "bob", "cat"] {
            try store.saveState(user: user, key: "model", sequence: 17, blob: Array("state-\(user)".utf8))
        }
        let erasure = try store.erase(app: "com.secret.diary")
        #expect(erasure == AppErasure(deletedEvents: 9, rewrittenStackConfigs: 1, affectedUsers: ["ann", "bob"]))
        let kept = try store.events(EventQuery()).map { "\($0.user)/\($0.id ?? "")" }
        #expect(kept == ["ann/c1", "ann/l2", "ann/i2", "ann/s2", "ann/r2", "ann/x1", "bob/t1", "cat/l1"])
        let config = try store.events(EventQuery(user: "ann", types: [.stackConfig])).first
        #expect(config?.payload == .stackConfig(stack: "home", widgets: [WidgetConfig(id: "w.mail", app: "com.mail"),
                                                                         WidgetConfig(id: "w.note")]),
                "the person's other widgets stay configured, in order")
        #expect(try store.loadState(user: "ann", key: "model") == nil)
        #expect(try store.loadState(user: "bob", key: "model") == nil)
        #expect(try store.loadState(user: "cat", key: "model") != nil, "users who never used the app keep their state")
        // Overwritten on disk, not just unlinked.
        let bytes = S.fileBytes(path) + S.fileBytes(path + "-wal")
        #expect(bytes.firstRange(of: Array("com.secret.diary".utf8)) == nil, "the app's name must not remain on disk")
        #expect(try store.erase(app: "com.secret.diary") == AppErasure(deletedEvents: 0, rewrittenStackConfigs: 0, affectedUsers: []))
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func erasingTheOnlyAppOfAUserForgetsTheUser() throws {
        let store = try EventStore(path: ":memory:")
        try store.append([S.appLaunch("solo", "1", at: 1, app: "com.only"), S.appLaunch("other", "1", at: 2)])
        try store.erase(app: "com.only")
        #expect(try store.users() == ["other"])
        let names = try store.connection.withDatabase { db in try db.rows("SELECT name FROM users").compactMap { $0.first?.textValue } }
        #expect(names == ["other"], "the name of a user left without events is gone too")
    }

    @Test func erasingTheOnlyWidgetOfAStackLeavesAnEmptyStack() throws {
        let store = try EventStore(path: ":memory:")
        try store.append([Self.event("u", "c", at: 1, .stackConfig(stack: "s", widgets: [WidgetConfig(id: "w", app: "com.a")])),
                          Self.event("u", "t", at: 2, .widgetTap(widget: "w", stack: "s"))])
        #expect(try store.erase(app: "com.a") == AppErasure(deletedEvents: 1, rewrittenStackConfigs: 1, affectedUsers: ["u"]))
        #expect(try store.events(EventQuery()).map(\.payload) == [.stackConfig(stack: "s", widgets: [])])
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func erasingAUserRemovesTheirNameAndStateFromDisk() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("user.sqlite")
        let store = try EventStore(path: path)
        let secret = "person-to-forget-7f3a"
        try store.append((0..<200).map { S.appLaunch(secret, "\($0)", at: Int64($0), app: "com.app.of.\(secret)") }
                         + [S.appLaunch("stay", "1", at: 1)])
        try store.saveState(user: secret, key: "model", sequence: 200, blob: Array(secret.utf8))
        #expect(try store.erase(user: secret) == 200)
        let bytes = S.fileBytes(path) + S.fileBytes(path + "-wal")
        #expect(bytes.firstRange(of: Array(secret.utf8)) == nil, "nothing of the person remains in the file's bytes")
        #expect(try store.users() == ["stay"])
    }

    // MARK: Coarse locations

    @Test func coarseLocationsGoThroughTheStreamingPathToo() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("coarse.sqlite")
        let store = try EventStore(path: path, options: .init(coarsensLocations: true))
        let exact = (0..<50).map { k in
            Self.event("u", "\(k)", at: Int64(k), .location(lat: 40.712_776_1 + Double(k) * 1e-5, lon: -74.005_974_3, accuracy: 5))
        }
        try store.append(contentsOf: exact, batchSize: 8)
        for event in try store.events(EventQuery()) {
            guard case let .location(lat, lon, accuracy) = event.payload else { Issue.record("not a location"); continue }
            #expect(abs(lat * 1000 - (lat * 1000).rounded()) < 1e-6 && abs(lon * 1000 - (lon * 1000).rounded()) < 1e-6)
            #expect((accuracy ?? 0) >= 100)
        }
        let bytes = S.fileBytes(path) + S.fileBytes(path + "-wal")
        var exactBits = withUnsafeBytes(of: (-74.005_974_3).bitPattern.littleEndian) { Array($0) }
        #expect(bytes.firstRange(of: exactBits) == nil, "the exact longitude never reaches the disk")
        exactBits = withUnsafeBytes(of: (-74.005_974_3).bitPattern.bigEndian) { Array($0) }
        #expect(bytes.firstRange(of: exactBits) == nil, "the exact longitude never reaches the disk")
    }

    // MARK: The tool

    @Test func ingestCreatesAPrivateFileAppliesRetentionAndCoarsensLocations() throws {
        let directory = try StoreTemporaryDirectory()
        let input = directory.file("log.jsonl")
        try Data("""
            {"time":"2013-01-01T08:00:00-05:00","type":"app_launch","user":"ann","id":"old","app":"com.old"}
            {"time":"2013-03-01T08:00:00-05:00","type":"location","user":"ann","id":"loc","lat":40.7127761,"lon":-74.0059743,"accuracy":4}
            {"time":"2013-03-27T08:00:00-04:00","type":"app_launch","user":"bob","id":"new","app":"com.new"}

            """.utf8).write(to: URL(fileURLWithPath: input))
        let db = directory.file("private.db")
        let old = umask(0o022)
        defer { umask(old) }
        let run = try ReliabilityCLI.run(["ingest", input, "--db", db, "--retain-days", "30", "--coarse-locations"],
                                         in: directory.path)
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "ingested 3 events (0 duplicates skipped) into \(db); retention 30 days: 1 older event deleted\n")
        #expect(S.mode(db) == 0o600)
        let store = try EventStore(path: db)
        #expect(try store.events(EventQuery()).compactMap(\.id) == ["loc", "new"], "only events within 30 days of the newest stay")
        guard case let .location(lat, lon, accuracy)? = try store.events(EventQuery(types: [.location])).first?.payload else {
            Issue.record("location missing")
            return
        }
        #expect(lat == 40.713 && lon == -74.006 && accuracy == 100)
        let bytes = S.fileBytes(db) + S.fileBytes(db + "-wal")
        #expect(bytes.firstRange(of: Array("com.old".utf8)) == nil, "the expired event is overwritten on disk")
    }

    /// The diary log ingested through the tool into `events.db` of `directory`; its path.
    static func ingestedDiaryLog(in directory: StoreTemporaryDirectory) throws -> String {
        let input = directory.file("log.jsonl")
        let lines = diaryLog().map { JSONLWriter.line(for: $0) }.joined(separator: "\n") + "\n"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: input))
        let db = directory.file("events.db")
        #expect(try ReliabilityCLI.run(["ingest", input, "--db", db], in: directory.path).status == 0)
        return db
    }

    @Test func forgetEraseThroughTheTool() throws {
        let directory = try StoreTemporaryDirectory()
        let db = try Self.ingestedDiaryLog(in: directory)
        try EventStore(path: db).saveState(user: "cat", key: "model", sequence: 17, blob: [7])
        let run = try ReliabilityCLI.run(["forget", "--db", db, "--app", "com.secret.diary", "--user", "cat"], in: directory.path)
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == """
            forgot user 'cat': 1 event erased, engine state cleared
            forgot app 'com.secret.diary': 9 events erased, its widgets removed from 1 stack configuration, engine state of 2 users cleared

            """)
        let store = try EventStore(path: db)
        #expect(try store.users() == ["ann", "bob"])
        #expect(try store.loadState(user: "cat", key: "model") == nil)
        #expect(try store.count(EventQuery()) == 7)
        let export = try ReliabilityCLI.run(["export", "--db", db], in: directory.path)
        #expect(!export.output.contains("com.secret.diary"))
    }

    /// A name the log does not hold erases nothing and says so, naming the log's users: a
    /// misspelt name is not taken for an erasure. A name erased before gives the same note.
    @Test func forgettingANameTheLogDoesNotHoldSaysSo() throws {
        let directory = try StoreTemporaryDirectory()
        let db = try Self.ingestedDiaryLog(in: directory)
        let count = try EventStore(path: db).count(EventQuery())
        let run = try ReliabilityCLI.run(["forget", "--db", db, "--user", "kat", "--app", "com.secret.dairy"], in: directory.path)
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasPrefix("forgot user 'kat': 0 events erased"))
        #expect(run.error.contains("note: the log holds no events of user 'kat' (its users: ann, bob, cat)"), "\(run.error)")
        #expect(run.error.contains("note: the log names no app 'com.secret.dairy'"), "\(run.error)")
        #expect(try EventStore(path: db).count(EventQuery()) == count)
        // A real erasure gives no note.
        let real = try ReliabilityCLI.run(["forget", "--db", db, "--user", "cat"], in: directory.path)
        #expect(real.status == 0 && real.error.isEmpty, "\(real.error)")
    }

    @Test(arguments: [
        (["forget", "--db", "x.db"], "say what to forget"),
        (["forget", "--db", "x.db", "--user", ""], "the value of '--user' is empty"),
        (["forget", "--user", "u"], "missing required option '--db'"),
        (["ingest", "in.jsonl", "--db", "x.db", "--retain-days", "-3"], "the value of '--retain-days' must be a whole number"),
        (["ingest", "in.jsonl", "--db", "x.db", "--retain-days", "week"], "the value of '--retain-days' must be a whole number"),
    ])
    func privacyOptionsRejectBadValuesAsUsageErrors(arguments: [String], message: String) throws {
        let directory = try StoreTemporaryDirectory()
        let run = try ReliabilityCLI.run(arguments, in: directory.path)
        #expect(run.status == 64)
        #expect(run.error.hasPrefix("Error: \(message)"), "\(run.error)")
    }

    @Test func forgetOnAMissingDatabaseCreatesNothing() throws {
        let directory = try StoreTemporaryDirectory()
        let db = directory.file("none.db")
        let run = try ReliabilityCLI.run(["forget", "--db", db, "--user", "u"], in: directory.path)
        #expect(run.status == 1)
        #expect(run.error == "Error: no database at \(db)\n")
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}
