import Foundation
import SmartStack
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What this machine allows for running the tool unprivileged or on a read-only mount.
enum ReadOnlyCLIEnvironment {
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }
    static var isRoot: Bool { geteuid() == 0 }
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: FileManager.default.isExecutableFile(atPath:))
    static let unshare = ["/usr/bin/unshare", "/bin/unshare"].first(where: FileManager.default.isExecutableFile(atPath:))
    static var canDropPrivileges: Bool { !isRoot || setpriv != nil }
    /// Whether a read-only bind mount can be made in a private mount namespace (root only).
    static let canMountReadOnly: Bool = {
        guard isRoot, let unshare, let probe = try? TemporaryDirectory() else { return false }
        defer { probe.cleanUp() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: unshare)
        process.arguments = ["-m", "/bin/sh", "-c", #"mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && ! touch "$1/x""#,
                             "sh", probe.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}

/// The commands that only read the log (`export`, `stats`, `rank`, `evaluate --db`,
/// `export-decisions --db`) run on a log the user may only read — a read-only file in a
/// read-only directory, a read-only file system — and print exactly what they print on a
/// writable copy; the commands that change it (`ingest`, `forget`, `rebuild`) fail with a clear
/// error and change nothing. Root ignores permission bits, so as root the tool runs as `nobody`
/// (`setpriv`), and the read-only file system is a read-only bind mount in a private mount
/// namespace (`unshare`).
@Suite(.enabled(if: ReadOnlyCLIEnvironment.canDropPrivileges || ReadOnlyCLIEnvironment.isCI,
                "running as root without setpriv: cannot run the tool as an unprivileged user"))
struct ReadOnlyCLITests {
    /// How the tool is run: as this user, as an unprivileged one, or with `directory` mounted
    /// read-only (visible to that run only).
    enum Runner {
        case unprivileged
        case readOnlyFileSystem(String)
    }

    /// Runs `smartstack <arguments>`; streams go through files in `scratch`.
    private func run(_ arguments: [String], _ runner: Runner? = nil, scratch: TemporaryDirectory) throws -> BinaryRun {
        let binary = try smartstackBinary().path
        let process = Process()
        switch runner {
        case nil:
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        case .unprivileged?:
            if ReadOnlyCLIEnvironment.isRoot {
                let setpriv = try #require(ReadOnlyCLIEnvironment.setpriv, "running as root: setpriv is needed to run the tool as nobody")
                process.executableURL = URL(fileURLWithPath: setpriv)
                process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + arguments
            } else {
                process.executableURL = URL(fileURLWithPath: binary)
                process.arguments = arguments
            }
        case .readOnlyFileSystem(let directory)?:
            let unshare = try #require(ReadOnlyCLIEnvironment.unshare)
            process.executableURL = URL(fileURLWithPath: unshare)
            process.arguments = ["-m", "/bin/sh", "-c", #"mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@""#,
                                 "sh", directory, binary] + arguments
        }
        // A fixed report time, so two runs' reports compare byte for byte.
        process.environment = ProcessInfo.processInfo.environment.merging(["SOURCE_DATE_EPOCH": "0"]) { _, new in new }
        let tag = UUID().uuidString
        let outPath = scratch.file("out-\(tag)"), errPath = scratch.file("err-\(tag)")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close(); try err.close()
        defer { for path in [outPath, errPath] { try? FileManager.default.removeItem(atPath: path) } }
        return BinaryRun(status: process.terminationStatus,
                         standardOutput: try Data(contentsOf: URL(fileURLWithPath: outPath)),
                         standardError: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    }

    /// Two users with a stack each and three days of launches and taps.
    private static let events: String = {
        var lines: [String] = []
        for user in ["u0", "u1"] {
            lines.append(#"{"time":"2013-03-25T07:00:00-04:00","type":"stack_config","user":"\#(user)","stack":"home","widgets":[{"id":"w1","app":"com.a1"},{"id":"w2","app":"com.a2"},{"id":"w3","app":"com.a3"}]}"#)
            for k in 0..<90 {
                let day = 25 + k / 30, minute = (k % 30) * 2
                let time = "2013-03-\(day)T\(user == "u0" ? "08" : "19"):\(minute < 10 ? "0" : "")\(minute):00-04:00"
                lines.append(#"{"time":"\#(time)","type":"app_launch","user":"\#(user)","id":"\#(user)-\#(k)","app":"com.a\#(1 + (k * 7 + (user == "u0" ? 0 : 1)) % 3)"}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    /// The reading commands, with `{db}` for the database path.
    private static let readingCommands: [[String]] = [
        ["export", "--db", "{db}"],
        ["export", "--db", "{db}", "--user", "u1", "--type", "app_launch"],
        ["stats", "--db", "{db}"],
        ["stats", "--db", "{db}", "--json"],
        ["rank", "--db", "{db}", "--stack", "home", "--at", "2013-03-27T08:30:00-04:00", "--user", "u0", "--json"],
        ["evaluate", "--db", "{db}", "--warmup-days", "0", "--json"],
        ["export-decisions", "--db", "{db}", "--warmup-days", "0", "--quiet"],
    ]

    private static func arguments(_ template: [String], db: String) -> [String] {
        template.map { $0 == "{db}" ? db : $0 }
    }

    /// A log ingested from ``events`` at `directory/events.db`.
    private func makeLog(in directory: String, scratch: TemporaryDirectory) throws -> String {
        let input = scratch.file("events-\(UUID().uuidString).jsonl")
        try Data(Self.events.utf8).write(to: URL(fileURLWithPath: input))
        let db = directory + "/events.db"
        let ingest = try run(["ingest", input, "--db", db], scratch: scratch)
        try #require(ingest.status == 0, "\(ingest.standardError)")
        return db
    }

    private func listing(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    private func bytes(_ path: String) -> Data { (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data() }

    private func setMode(_ mode: Int, _ path: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// The outputs of the reading commands on the writable log at `db`, the path replaced by `{db}`.
    private func referenceOutputs(_ db: String, scratch: TemporaryDirectory) throws -> [String] {
        try Self.readingCommands.map { template in
            let result = try run(Self.arguments(template, db: db), scratch: scratch)
            #expect(result.status == 0, "\(template[0]) on the writable copy: \(result.standardError)")
            #expect(!result.standardOutput.isEmpty, "\(template[0]) prints something")
            return result.outputText.replacingOccurrences(of: db, with: "{db}")
        }
    }

    @Test func readingCommandsOnReadOnlyFileInReadOnlyDirectoryPrintWhatAWritableCopyPrints() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanUp() }
        let writable = scratch.file("writable"), locked = scratch.file("locked")
        for directory in [writable, locked] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false) }
        let reference = try referenceOutputs(try makeLog(in: writable, scratch: scratch), scratch: scratch)
        let db = try makeLog(in: locked, scratch: scratch)
        try setMode(0o444, db)
        try setMode(0o555, locked)
        defer { try? setMode(0o755, locked) }
        let before = bytes(db), listed = listing(locked)
        for (template, expected) in zip(Self.readingCommands, reference) {
            let result = try run(Self.arguments(template, db: db), .unprivileged, scratch: scratch)
            #expect(result.status == 0, "\(template.joined(separator: " ")): \(result.standardError)")
            #expect(result.outputText.replacingOccurrences(of: db, with: "{db}") == expected,
                    "\(template.joined(separator: " ")) prints the same as on a writable copy")
        }
        #expect(bytes(db) == before, "reading never changes the file")
        #expect(listing(locked) == listed, "reading creates no file next to the log")
    }

    @Test func writingCommandsOnReadOnlyFileFailClearlyAndChangeNothing() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanUp() }
        let locked = scratch.file("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        let db = try makeLog(in: locked, scratch: scratch)
        let input = scratch.file("more.jsonl")
        try Data(#"{"time":"2013-03-28T08:00:00-04:00","type":"app_launch","user":"u0","id":"new","app":"com.a1"}"#.utf8 + [10])
            .write(to: URL(fileURLWithPath: input))
        try setMode(0o644, input)
        try setMode(0o444, db)
        try setMode(0o555, locked)
        defer { try? setMode(0o755, locked) }
        let before = bytes(db), listed = listing(locked)
        for arguments in [["ingest", input, "--db", db], ["forget", "--db", db, "--user", "u0"], ["rebuild", "--db", db]] {
            let result = try run(arguments, .unprivileged, scratch: scratch)
            #expect(result.status == 1, "\(arguments[0]): \(result.status) \(result.standardError)")
            #expect(result.standardError.hasPrefix("Error: \(db): the database file is read-only for this user"),
                    "\(arguments[0]): \(result.standardError)")
            #expect(result.standardOutput.isEmpty, "\(arguments[0])")
        }
        #expect(bytes(db) == before, "the file is not modified")
        #expect(listing(locked) == listed)
    }

    @Test func changesNotYetInTheFileAreAClearErrorNeverAnOlderLog() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanUp() }
        let source = scratch.file("source"), locked = scratch.file("locked")
        for directory in [source, locked] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false) }
        let db = try makeLog(in: source, scratch: scratch)
        // A writer that has not closed the log yet: its last append is only in events.db-wal.
        let store = try EventStore(path: db)
        try store.append([Event(time: try EventTime(rfc3339: "2013-03-28T08:00:00-04:00"), user: "u0",
                                           id: "late", payload: .appLaunch(app: "com.late"))])
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: db + suffix, toPath: locked + "/events.db" + suffix)
        }
        withExtendedLifetime(store) {}
        let copy = locked + "/events.db"
        for path in [copy, copy + "-wal"] { try setMode(0o444, path) }
        try setMode(0o555, locked)
        defer { try? setMode(0o755, locked) }
        for command in [["export"], ["stats"]] {
            let result = try run(command + ["--db", copy], .unprivileged, scratch: scratch)
            #expect(result.status == 1, "\(command[0]): \(result.standardError)")
            #expect(result.standardOutput.isEmpty, "\(command[0]) prints nothing rather than an older log")
            #expect(result.standardError.hasPrefix("Error: \(copy): cannot read the log read-only: '\(copy)-wal' holds changes not yet copied into the database file"),
                    "\(command[0]): \(result.standardError)")
            #expect(result.standardError.contains("'\(locked)' is read-only"), "\(command[0]): \(result.standardError)")
        }
        try setMode(0o755, locked)
        let export = try run(["export", "--db", copy], scratch: scratch)
        #expect(export.outputText.contains(#""id":"late""#), "the pending change was committed and is readable where allowed")
    }

    @Test func logOpenByAWriterIsReadThroughItsIndexOrNotAtAll() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanUp() }
        let shared = scratch.file("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        let db = try makeLog(in: shared, scratch: scratch)
        // This test process is the writer, another process than the tool; its last append is
        // only in events.db-wal.
        let writer = try EventStore(path: db)
        try writer.append([Event(time: try EventTime(rfc3339: "2013-03-28T08:00:00-04:00"), user: "u0", id: "late",
                                 payload: .appLaunch(app: "com.late"))])
        for suffix in ["", "-wal", "-shm"] { try setMode(0o644, db + suffix) }
        try setMode(0o555, shared)
        defer { try? setMode(0o755, shared) }
        let expected = try run(["export", "--db", db], scratch: scratch)
        #expect(expected.outputText.contains(#""id":"late""#))
        // The index can be read: the tool reads the live log, pending changes included.
        let shared1 = try run(["export", "--db", db], .unprivileged, scratch: scratch)
        #expect(shared1.status == 0, "\(shared1.standardError)")
        #expect(shared1.standardOutput == expected.standardOutput)
        // The index cannot be opened and nothing is pending, but the writer could change the
        // file at any moment: reading it without a lock would not be safe.
        try writer.deleteEvents(before: EventTime(nanosecondsSinceEpoch: 0, utcOffsetSeconds: 0))
        #expect(bytes(db + "-wal").isEmpty, "the writer checkpointed")
        try setMode(0o000, db + "-shm")
        let blocked = try run(["export", "--db", db], .unprivileged, scratch: scratch)
        #expect(blocked.status == 1)
        #expect(blocked.standardOutput.isEmpty)
        #expect(blocked.standardError.hasPrefix("Error: \(db): cannot read the log read-only: another program has it open"),
                "\(blocked.standardError)")
        try setMode(0o644, db + "-shm")
        withExtendedLifetime(writer) {}
    }

    @Test(.enabled(if: ReadOnlyCLIEnvironment.canMountReadOnly || (ReadOnlyCLIEnvironment.isRoot && ReadOnlyCLIEnvironment.isCI),
                   "needs root and mount namespaces (unshare) to mount a directory read-only"))
    func readOnlyFileSystemIsReadLikeAWritableCopyAndNeverWritten() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanUp() }
        let writable = scratch.file("writable"), mounted = scratch.file("mounted")
        for directory in [writable, mounted] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false) }
        let reference = try referenceOutputs(try makeLog(in: writable, scratch: scratch), scratch: scratch)
        let db = try makeLog(in: mounted, scratch: scratch)
        let before = bytes(db), listed = listing(mounted)
        for (template, expected) in zip(Self.readingCommands, reference) {
            let result = try run(Self.arguments(template, db: db), .readOnlyFileSystem(mounted), scratch: scratch)
            #expect(result.status == 0, "\(template.joined(separator: " ")): \(result.standardError)")
            #expect(result.outputText.replacingOccurrences(of: db, with: "{db}") == expected,
                    "\(template.joined(separator: " ")) prints the same as on a writable copy")
        }
        let input = scratch.file("more.jsonl")
        try Data(#"{"time":"2013-03-28T08:00:00-04:00","type":"app_launch","user":"u0","id":"new","app":"com.a1"}"#.utf8 + [10])
            .write(to: URL(fileURLWithPath: input))
        let ingest = try run(["ingest", input, "--db", db], .readOnlyFileSystem(mounted), scratch: scratch)
        #expect(ingest.status == 1)
        #expect(ingest.standardError.hasPrefix("Error: \(db): the database is on a read-only file system"), "\(ingest.standardError)")
        let forget = try run(["forget", "--db", db, "--user", "u0"], .readOnlyFileSystem(mounted), scratch: scratch)
        #expect(forget.status == 1)
        #expect(forget.standardError.hasPrefix("Error: \(db): the database is on a read-only file system"), "\(forget.standardError)")
        #expect(bytes(db) == before)
        #expect(listing(mounted) == listed)
    }
}
