import Foundation
import SmartStack
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `smartstack ingest` killed with SIGKILL at random (seeded) moments: the database always
/// opens, passes `PRAGMA integrity_check`, holds either nothing or all of the file (ingest is
/// one transaction), everything reported committed before is still there, and re-running the
/// same ingest ends with exactly the file's events.
@Suite(.serialized) struct CrashSafetyTests {

    /// Kills that must land mid-ingest (runs that finish before their kill are extra trials).
    static let kills = 20

    /// `count` events of several types with ids, three users, starting at `start` seconds.
    private static func jsonl(count: Int, prefix: String, start: Int) -> String {
        var lines: [String] = []
        lines.reserveCapacity(count)
        for k in 0..<count {
            let t = EventTime(nanosecondsSinceEpoch: Int64(start + k) * 1_000_000_000, utcOffsetSeconds: -14_400).rfc3339
            let user = "u\(k % 3)"
            switch k % 4 {
            case 0: lines.append(#"{"time":"\#(t)","type":"app_launch","user":"\#(user)","id":"\#(prefix)\#(k)","app":"com.app\#(k % 97)"}"#)
            case 1: lines.append(#"{"time":"\#(t)","type":"location","user":"\#(user)","id":"\#(prefix)\#(k)","lat":40.7,"lon":-74.0,"accuracy":\#(k % 50)}"#)
            case 2: lines.append(#"{"time":"\#(t)","type":"widget_tap","user":"\#(user)","id":"\#(prefix)\#(k)","widget":"w\#(k % 7)","stack":"home"}"#)
            default: lines.append(#"{"time":"\#(t)","type":"context","user":"\#(user)","id":"\#(prefix)\#(k)","key":"charging","value":"\#(k % 2 == 0)"}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Opens the database the way a user would next time and checks it.
    private static func check(_ path: String) throws -> (count: Int, integrity: [String]) {
        let store = try EventStore(path: path)
        return (try store.count(EventQuery()), try store.integrityCheck())
    }

    @Test func sigkillDuringIngestNeverCorruptsOrHalfStores() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let binary = try smartstackBinary()
        // A committed base the kills must never damage, then a large file to kill ingests of.
        let baseCount = 1_000, bigCount = 15_000
        let base = try dir.write("base.jsonl", Self.jsonl(count: baseCount, prefix: "base", start: 0))
        let big = try dir.write("big.jsonl", Self.jsonl(count: bigCount, prefix: "big", start: 10_000))

        // How long a whole ingest takes here, to spread the kills over it.
        let timingDB = dir.file("timing.db")
        let started = Date()
        let timing = try runBinary(["ingest", big, "--db", timingDB], in: dir)
        let duration = Date().timeIntervalSince(started)
        #expect(timing.status == 0, "\(timing.standardError)")
        #expect(try Self.check(timingDB).count == bigCount)

        let baseDB = dir.file("base.db")
        try #require(try runBinary(["ingest", base, "--db", baseDB], in: dir).status == 0)
        var generator = SeededGenerator(seed: 0x5EED_C0DE)
        var outcomes: [String: Int] = [:]
        // The kill moment is a seeded random fraction of `scale`, which starts at the measured
        // duration and shrinks whenever a run finishes first (the machine got faster), so at
        // least `kills` trials really kill mid-ingest whatever the load.
        var scale = duration
        var trial = 0
        while outcomes["killed", default: 0] < Self.kills && trial < 4 * Self.kills {
            defer { trial += 1 }
            let db = dir.file("trial\(trial).db")
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: baseDB + suffix) {
                try FileManager.default.copyItem(atPath: baseDB + suffix, toPath: db + suffix)
            }
            let delay = Double(generator.next() % 1_000) / 1_000 * scale + 0.005
            let process = Process()
            process.executableURL = binary
            process.arguments = ["ingest", big, "--db", db]
            let outPath = dir.file("out\(trial)")
            _ = FileManager.default.createFile(atPath: outPath, contents: nil)
            let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try out.close()
            let reported = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            let killed = process.terminationReason == .uncaughtSignal
            let completed = !killed && process.terminationStatus == 0
            outcomes[killed ? "killed" : "completed", default: 0] += 1
            if !killed { scale *= 0.7 }

            // The database opens and is sound.
            let after = try Self.check(db)
            #expect(after.integrity == ["ok"], "trial \(trial): \(after.integrity)")
            // All or nothing of the file, and the committed base always there.
            #expect(after.count == baseCount || after.count == baseCount + bigCount,
                    "trial \(trial): \(after.count) events after a kill at \(delay) s")
            if completed || reported.hasPrefix("ingested ") {
                #expect(after.count == baseCount + bigCount, "trial \(trial): reported committed but missing")
            }
            let store = try EventStore(path: db)
            #expect(try store.count(EventQuery(user: "u0")) >= baseCount / 3)
            // Re-running the same ingest ends with exactly the file's events (ids make it idempotent).
            let rerun = try runBinary(["ingest", big, "--db", db], in: dir)
            #expect(rerun.status == 0, "trial \(trial): \(rerun.standardError)")
            let final = try Self.check(db)
            #expect(final.count == baseCount + bigCount, "trial \(trial)")
            #expect(final.integrity == ["ok"])
            try? FileManager.default.removeItem(atPath: db)
            try? FileManager.default.removeItem(atPath: db + "-wal")
            try? FileManager.default.removeItem(atPath: db + "-shm")
        }
        print("crash safety: \(trial) SIGKILL trials over a \(bigCount)-event ingest of \(String(format: "%.2f", duration)) s: \(outcomes)")
        #expect(outcomes["killed", default: 0] >= Self.kills, "at least \(Self.kills) kills must land mid-ingest: \(outcomes)")
    }

    @Test func sigkillDuringForgetLeavesTheUserWholeOrGone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let binary = try smartstackBinary()
        let input = try dir.write("log.jsonl", Self.jsonl(count: 30_000, prefix: "e", start: 0))
        var generator = SeededGenerator(seed: 42)
        for trial in 0..<4 {
            let db = dir.file("forget\(trial).db")
            try #require(try runBinary(["ingest", input, "--db", db], in: dir).status == 0)
            try EventStore(path: db).saveState(user: "u1", key: "model", sequence: 30_000, blob: [1, 2, 3])
            let process = Process()
            process.executableURL = binary
            process.arguments = ["forget", "--db", db, "--user", "u1"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: Double(generator.next() % 300) / 1_000)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let store = try EventStore(path: db)
            #expect(try store.integrityCheck() == ["ok"])
            let left = try store.count(EventQuery(user: "u1"))
            #expect(left == 0 || left == 10_000, "trial \(trial): \(left) events of the user left")
            let state = try store.loadState(user: "u1", key: "model")
            #expect((left == 0) == (state == nil), "trial \(trial): saved state must go with the events, in the same transaction")
            #expect(try store.count(EventQuery(user: "u0")) == 10_000)
        }
    }

    /// `smartstack rebuild` killed at random (seeded) moments: the saved engine state is either
    /// the old one or the new one, never a torn mix; an engine opened afterwards ranks exactly
    /// as one that learned the whole log from scratch (a stale state is caught up from the log,
    /// an inconsistent one rebuilt with a notice).
    @Test func sigkillDuringRebuildLeavesAStateConsistentWithTheLog() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let binary = try smartstackBinary()
        let data = dir.file("people.jsonl")
        try #require(try runBinary(["generate", "--persona", "commuter", "--days", "14", "--users", "2",
                                    "--seed", "3", "--out", data], in: dir).status == 0)
        let events = try EventStore(path: ":memory:")
        var reader = try JSONLReader(path: data)
        var all: [Event] = []
        while let e = try reader.next() { all.append(e) }
        _ = try events.append(all)
        let users = try events.users()
        let at = all.map(\.time).max()!.adding(seconds: 60)
        // What a fresh engine that learned the whole log answers.
        var expected: [String: [String]] = [:]
        for user in users {
            let fresh = try UserEngine(user: user, policy: PolicySpec(parsing: "contextual"))
            for e in all where e.user == user { fresh.record(e) }
            for stack in fresh.stacks.keys.sorted() {
                expected[user + "/" + stack] = try fresh.ranking(stack: stack, at: at).widgets.map(\.widget)
            }
        }
        var generator = SeededGenerator(seed: 7)
        for trial in 0..<5 {
            let db = dir.file("rebuild\(trial).db")
            try #require(try runBinary(["ingest", data, "--db", db], in: dir).status == 0)
            // A saved state already exists: the kill lands while the rebuild replaces it.
            try #require(try runBinary(["rebuild", "--db", db], in: dir).status == 0)
            let process = Process()
            process.executableURL = binary
            process.arguments = ["rebuild", "--db", db]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: Double(generator.next() % 400) / 1_000)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let engine = try Engine(path: db)
            #expect(try engine.store.integrityCheck() == ["ok"])
            #expect(try engine.store.count(EventQuery()) == all.count, "trial \(trial): the log lost events")
            for (key, order) in expected {
                let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                let ranking = try engine.ranking(stack: parts[1], user: parts[0], at: at, explained: false)
                #expect(ranking.widgets.map(\.widget) == order, "trial \(trial) \(key): restarted engine differs from the log")
            }
            try engine.close()
        }
    }
}
