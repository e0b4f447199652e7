import Foundation
import SmartStack
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two stores of this process on one log, and other processes (the built `smartstack`) using it
/// meanwhile: opening the second store must not cancel the locks the first one's SQLite connection
/// holds (POSIX locks belong to the process, and closing any descriptor of the file drops them
/// all). Without those locks another process closing the log believes it is the last one: it
/// checkpoints and deletes `-wal` and `-shm` while this process still commits through them, so
/// its later commits are invisible to every other process and finally overwrite theirs.
@Suite struct StoreLockTests {
    /// `count` app launches of `u00` with ids `<prefix><k>`, one second apart from `start`.
    private static func events(_ prefix: String, count: Int, start: Int) -> [Event] {
        (0..<count).map { k in
            Event(time: EventTime(nanosecondsSinceEpoch: Int64(start + k) * 1_000_000_000, utcOffsetSeconds: -14_400),
                  user: "u00", id: "\(prefix)\(k)", payload: .appLaunch(app: "com.example.app\(k % 17)"))
        }
    }

    /// The number of events `smartstack stats` run as another process finds in `path`.
    private static func countSeenByAnotherProcess(_ path: String, in dir: TemporaryDirectory) throws -> Int? {
        let run = try runBinary(["stats", "--db", path, "--json"], in: dir)
        #expect(run.status == 0, "smartstack stats failed: \(run.standardError)")
        let object = try JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any]
        return object?["events"] as? Int
    }

    @Test(arguments: [false, true])
    func openingASecondStoreKeepsTheFirstStoresLocks(secondIsReadOnly: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("events.db")
        var expectedIDs: Set<String> = []

        // Store A commits; its changes stay in the write-ahead log (far below SQLite's automatic
        // checkpoint at 1000 pages), where only the -wal/-shm pair shared by all processes has them.
        var storeA: EventStore? = try EventStore(path: path)
        let first = Self.events("a", count: 300, start: 0)
        try storeA?.append(first)
        expectedIDs.formUnion(first.compactMap(\.id))
        #expect((DatabaseFileProbe.size(path + "-wal") ?? 0) > 0, "the first commits should be in the write-ahead log")

        // Store B opens the same file in this process (the faulty open closed a descriptor of
        // the file here, which dropped A's locks).
        var storeB: EventStore? = try EventStore(path: path, options: EventStore.Options(isReadOnly: secondIsReadOnly))
        #expect(try storeB?.count(EventQuery()) == 300)

        // Another process opens and closes the log. With A's shared lock in place it cannot take
        // the exclusive lock on close, so it leaves the write-ahead log alone.
        #expect(try Self.countSeenByAnotherProcess(path, in: dir) == 300)
        #expect(DatabaseFileProbe.size(path + "-wal") != nil,
                "another process deleted the write-ahead log while this process has the log open: it could take the exclusive lock, so this process's locks are gone")

        // A commits more: other processes must see it.
        let second = Self.events("b", count: 300, start: 1_000)
        try storeA?.append(second)
        expectedIDs.formUnion(second.compactMap(\.id))
        #expect(try Self.countSeenByAnotherProcess(path, in: dir) == 600,
                "a commit of this process is invisible to another process")

        // Another process writes, then A again.
        let third = Self.events("c", count: 200, start: 2_000)
        let input = try dir.write("third.jsonl", third.map { event in
            #"{"time":"\#(event.time.rfc3339)","type":"app_launch","user":"u00","id":"\#(event.id ?? "")","app":"com.example.other"}"#
        }.joined(separator: "\n") + "\n")
        let ingest = try runBinary(["ingest", input, "--db", path], in: dir)
        #expect(ingest.status == 0, "smartstack ingest failed: \(ingest.standardError)")
        expectedIDs.formUnion(third.compactMap(\.id))
        let fourth = Self.events("d", count: 300, start: 3_000)
        try storeA?.append(fourth)
        expectedIDs.formUnion(fourth.compactMap(\.id))
        #expect(try storeA?.count(EventQuery()) == expectedIDs.count)

        storeB = nil
        storeA = nil

        // Every committed event of every process is in the log, and the file is sound.
        let reopened = try EventStore(path: path)
        let stored = try reopened.events(EventQuery())
        let lost = expectedIDs.subtracting(stored.compactMap(\.id)).sorted()
        #expect(lost.count == 0, "\(lost.count) committed events are lost, among them \(lost.prefix(5).joined(separator: ", "))")
        #expect(stored.count == expectedIDs.count)
        #expect(try reopened.integrityCheck() == ["ok"])
        #expect(try Self.countSeenByAnotherProcess(path, in: dir) == expectedIDs.count)
    }
}

/// File sizes read with `stat`, which opens no descriptor (closing one would drop this process's
/// locks on the file, the very thing tested).
private enum DatabaseFileProbe {
    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }
}
