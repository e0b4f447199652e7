import Foundation
import Testing
@testable import SmartStack

/// Runs the built `smartstack` binary for the reliability suites of this target (they test the
/// tool end to end as a user runs it, without linking the CLI module).
enum ReliabilityCLI {
    struct Run {
        var status: Int32
        var output: String
        var error: String
    }

    /// The `smartstack` executable next to the test bundle, else `<package>/.build/debug`.
    static func binary() throws -> String {
        var candidates: [String] = []
        if let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((me as NSString).deletingLastPathComponent + "/smartstack")
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/smartstack").path)
        guard let found = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            struct Missing: Error, CustomStringConvertible {
                var description = "the smartstack executable was not found; run `swift build` first"
            }
            throw Missing()
        }
        return found
    }

    /// Runs `smartstack <arguments>` (optionally through `/bin/sh -c` with `shellPrefix`
    /// before it, e.g. `ulimit -f 2048; exec`), with streams through files in `directory`.
    static func run(_ arguments: [String], in directory: String, shellPrefix: String? = nil) throws -> Run {
        let process = Process()
        let binary = try binary()
        if let shellPrefix {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            let quoted = ([binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            process.arguments = ["-c", shellPrefix + " " + quoted.joined(separator: " ")]
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        let tag = UUID().uuidString
        let outPath = directory + "/out-" + tag, errPath = directory + "/err-" + tag
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close(); try err.close()
        defer { try? FileManager.default.removeItem(atPath: outPath); try? FileManager.default.removeItem(atPath: errPath) }
        return Run(status: process.terminationStatus,
                   output: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                   error: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    /// `count` app launches with ids, JSONL.
    static func launches(_ count: Int, prefix: String = "e", app: String = "com.app") -> String {
        (0..<count).map { k in
            #"{"time":"2013-03-27T08:\#(String(format: "%02d", k / 60 % 60)):\#(String(format: "%02d", k % 60))-04:00","type":"app_launch","user":"u","id":"\#(prefix)\#(k)","app":"\#(app)\#(k)"}"#
        }.joined(separator: "\n") + "\n"
    }
}

/// Storage faults met by the tool: a full disk, a read-only file, a database locked by another
/// process, a damaged file. Each gets a clear error; nothing already stored is lost and nothing
/// is half written.
@Suite struct StorageFaultTests {
    private typealias S = StoreSamples

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func exported(_ db: String, in dir: String) throws -> String {
        let run = try ReliabilityCLI.run(["export", "--db", db], in: dir)
        #expect(run.status == 0, "\(run.error)")
        return run.output
    }

    @Test func fullDiskFailsTheIngestCleanlyAndKeepsEverythingStored() throws {
        let directory = try StoreTemporaryDirectory()
        let db = directory.file("full.db")
        let first = directory.file("first.jsonl")
        try write(ReliabilityCLI.launches(200, prefix: "a"), to: first)
        #expect(try ReliabilityCLI.run(["ingest", first, "--db", db], in: directory.path).status == 0)
        let before = try exported(db, in: directory.path)
        // A file size limit of 1 MiB for the ingest process (SIGXFSZ ignored, so writes past it
        // fail like a full disk) and 60,000 events that need far more.
        let big = directory.file("big.jsonl")
        try write(ReliabilityCLI.launches(60_000, prefix: "b", app: "com.example.a-rather-long-application-name."), to: big)
        let run = try ReliabilityCLI.run(["ingest", big, "--db", db], in: directory.path,
                                         shellPrefix: "trap '' XFSZ; ulimit -f 2048; exec")
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.error.hasPrefix("Error: \(db): "), "\(run.error)")
        #expect(run.error.contains("nothing was ingested"), "\(run.error)")
        #expect(try exported(db, in: directory.path) == before, "a failed ingest never damages what was stored")
        #expect(try EventStore(path: db).integrityCheck() == ["ok"])
    }

    @Test func sizeLimitOfTheStoreIsAFullErrorAndStoresNothing() throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("limited.sqlite")
        try EventStore(path: path).append([S.appLaunch("a", "1", at: 1)])
        let store = try EventStore(path: path, options: .init(maximumSize: 200 * 1024))
        let events = (0..<20_000).lazy.map { S.appLaunch("b", "\($0)", at: Int64($0), app: "com.example.\($0)") }
        #expect {
            try store.append(contentsOf: events, batchSize: 1_000)
        } throws: { error in
            (error as? StoreError)?.kind == .full && "\(error)".contains("nothing of the failed operation was stored")
        }
        #expect(try store.events(EventQuery()) == [S.appLaunch("a", "1", at: 1)], "no batch of the failed append is kept")
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func readOnlyDatabaseFileIsAClearErrorAndUntouched() throws {
        let directory = try StoreTemporaryDirectory()
        let db = directory.file("ro.db")
        let input = directory.file("in.jsonl")
        try write(ReliabilityCLI.launches(10), to: input)
        #expect(try ReliabilityCLI.run(["ingest", input, "--db", db], in: directory.path).status == 0)
        let before = S.fileBytes(db)
        // Root ignores permission bits: run the tool as `nobody` on a file it may read only.
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let more = directory.file("more.jsonl")
        try write(ReliabilityCLI.launches(5, prefix: "m"), to: more)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: more)
        let run = try ReliabilityCLI.run(["ingest", more, "--db", db], in: directory.path,
                                         shellPrefix: geteuid() == 0 ? "exec setpriv --reuid=65534 --regid=65534 --clear-groups" : nil)
        #expect(run.status == 1)
        #expect(run.error.contains("\(db)"), "\(run.error)")
        #expect(run.error.contains("read-only") || run.error.contains("permission denied"), "\(run.error)")
        #expect(S.fileBytes(db) == before, "the file is not modified")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: db)
        #expect(try EventStore(path: db).count(EventQuery()) == 10)
    }

    @Test func databaseLockedByAnotherProcessWaitsThenFailsClearly() throws {
        let directory = try StoreTemporaryDirectory()
        let db = directory.file("locked.db")
        let input = directory.file("in.jsonl")
        try write(ReliabilityCLI.launches(10), to: input)
        #expect(try ReliabilityCLI.run(["ingest", input, "--db", db], in: directory.path).status == 0)
        // This test process holds a write transaction; the tool is another process.
        let holder = try EventStore(path: db)
        try holder.connection.execute("BEGIN IMMEDIATE")
        try holder.connection.execute("DELETE FROM counters WHERE name = 'nothing'")
        let more = directory.file("more.jsonl")
        try write(ReliabilityCLI.launches(5, prefix: "m"), to: more)
        let started = Date()
        let run = try ReliabilityCLI.run(["ingest", more, "--db", db], in: directory.path)
        let waited = Date().timeIntervalSince(started)
        try holder.connection.execute("ROLLBACK")
        #expect(run.status == 1)
        #expect(run.error.contains("locked by another connection"), "\(run.error)")
        #expect(run.error.contains("nothing was ingested"), "\(run.error)")
        #expect(waited >= 4.5, "the tool waits for the busy timeout (5 s) before failing, waited \(waited) s")
        #expect(try holder.count(EventQuery()) == 10)
        #expect(try ReliabilityCLI.run(["ingest", more, "--db", db], in: directory.path).status == 0, "works once the lock is gone")
        #expect(try holder.count(EventQuery()) == 15)
    }

    @Test func damagedDatabaseIsReportedByEveryCommandNeverMisread() throws {
        let directory = try StoreTemporaryDirectory()
        let db = directory.file("damaged.db")
        let input = directory.file("in.jsonl")
        try write(ReliabilityCLI.launches(3_000), to: input)
        #expect(try ReliabilityCLI.run(["ingest", input, "--db", db], in: directory.path).status == 0)
        // Scribble over the middle of the file (the event pages), keeping the header.
        var bytes = S.fileBytes(db)
        try #require(bytes.count > 16 * 4096)
        for k in (8 * 4096)..<(12 * 4096) { bytes[k] = UInt8(truncatingIfNeeded: k &* 31 &+ 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: db))
        // (An ingest only touches the pages it writes, so it may not meet the damage: SQLite
        // checks pages as it reads them, and a full check on every ingest would cost O(size).)
        for arguments in [["export", "--db", db], ["stats", "--db", db], ["forget", "--db", db, "--user", "u"]] {
            let run = try ReliabilityCLI.run(arguments, in: directory.path)
            #expect(run.status == 1, "\(arguments[0]): \(run.status) \(run.error)")
            #expect(run.error.hasPrefix("Error: "), "\(arguments[0]): \(run.error)")
            #expect(run.error.contains(db), "\(arguments[0]): \(run.error)")
            #expect(run.error.contains("damaged") || run.error.contains("malformed"), "\(arguments[0]): \(run.error)")
        }
    }
}
