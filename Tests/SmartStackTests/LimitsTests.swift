import Foundation
import Testing
@testable import SmartStack
#if canImport(Glibc)
import Glibc
#endif

/// The documented limits: a line of at most 1 MiB (a clear error beyond), stacks of 10,000
/// widgets, a huge number of distinct apps, and ingest memory bounded by one batch whatever
/// the file's size.
@Suite struct LimitsTests {
    private static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func lineOverOneMebibyteIsAClearErrorNamingItsLine() throws {
        let directory = try StoreTemporaryDirectory()
        let input = directory.file("long.jsonl")
        let long = #"{"time":"2013-03-27T08:00:01Z","type":"place","place":""# + String(repeating: "x", count: 1 << 20) + #""}"#
        try Self.write(#"{"time":"2013-03-27T08:00:00Z","type":"screen_on"}"# + "\n" + long + "\n"
                       + #"{"time":"2013-03-27T08:00:02Z","type":"screen_on"}"# + "\n", to: input)
        let db = directory.file("events.db")
        let strict = try ReliabilityCLI.run(["ingest", input, "--db", db], in: directory.path)
        #expect(strict.status == 1)
        #expect(strict.error.hasPrefix("Error: \(input):2:1048577: line is longer than the limit of 1048576 bytes"), "\(strict.error)")
        #expect(strict.error.contains("nothing was ingested"))
        #expect(!FileManager.default.fileExists(atPath: db))
        let skipping = try ReliabilityCLI.run(["ingest", input, "--db", db, "--skip-invalid"], in: directory.path)
        #expect(skipping.status == 0, "\(skipping.error)")
        #expect(skipping.output.hasPrefix("ingested 2 events"), "the lines after the long one are read: \(skipping.output)")
    }

    @Test func lineOfJustUnderOneMebibyteIsAccepted() throws {
        let directory = try StoreTemporaryDirectory()
        let input = directory.file("big.jsonl")
        let head = #"{"time":"2013-03-27T08:00:01Z","type":"place","place":""#
        let line = head + String(repeating: "y", count: (1 << 20) - head.utf8.count - 2) + #""}"#
        #expect(line.utf8.count == 1 << 20)
        try Self.write(line + "\n", to: input)
        let db = directory.file("events.db")
        let run = try ReliabilityCLI.run(["ingest", input, "--db", db], in: directory.path)
        #expect(run.status == 0, "\(run.error)")
        let back = try ReliabilityCLI.run(["export", "--db", db], in: directory.path)
        let exported = head.replacingOccurrences(of: #""type":"place","#, with: #""type":"place","user":"default","#)
            + String(repeating: "y", count: (1 << 20) - head.utf8.count - 2) + "\"}\n"
        let isExact = back.output == exported   // not inside #expect: it would print a megabyte
        #expect(isExact, "the 1 MiB line exports back exactly (\(back.output.utf8.count) bytes)")
    }

    @Test func stackOfTenThousandWidgetsRoundTrips() throws {
        let directory = try StoreTemporaryDirectory()
        let widgets = (0..<10_000).map { #"{"id":"w\#($0)","app":"com.example.app\#($0)"}"# }.joined(separator: ",")
        let line = #"{"time":"2013-03-27T08:05:00-04:00","type":"stack_config","user":"u","id":"c","stack":"home","widgets":[\#(widgets)]}"#
        let input = directory.file("stack.jsonl")
        try Self.write(line + "\n", to: input)
        let db = directory.file("events.db")
        #expect(try ReliabilityCLI.run(["ingest", input, "--db", db], in: directory.path).status == 0)
        let store = try EventStore(path: db)
        guard case let .stackConfig(_, stored)? = try store.events(EventQuery()).first?.payload else {
            Issue.record("no stack_config stored")
            return
        }
        #expect(stored.count == 10_000)
        #expect(stored.last == WidgetConfig(id: "w9999", app: "com.example.app9999"))
        #expect(try ReliabilityCLI.run(["export", "--db", db], in: directory.path).output == line + "\n")
        // Erasing one app from such a stack rewrites it without that widget only.
        let erased = try store.erase(app: "com.example.app5000")
        #expect(erased.rewrittenStackConfigs == 1)
        guard case let .stackConfig(_, after)? = try store.events(EventQuery()).first?.payload else { return }
        #expect(after.count == 9_999 && !after.contains(WidgetConfig(id: "w5000", app: "com.example.app5000")))
    }

    /// 250,000 here (a debug build); docs/reliability.md's manual run does a million through the tool.
    @Test func manyDistinctAppsStreamIntoTheStore() throws {
        let directory = try StoreTemporaryDirectory()
        let store = try EventStore(path: directory.file("apps.sqlite"))
        let count = 250_000
        let events = (0..<count).lazy.map { k in
            Event(time: EventTime(nanosecondsSinceEpoch: Int64(k) * 1_000_000, utcOffsetSeconds: 0), user: "u", id: nil,
                  payload: .appLaunch(app: "com.example.app\(k)"))
        }
        let result = try store.append(contentsOf: events)
        #expect(result.inserted == count)
        #expect(try store.count(EventQuery(types: [.appLaunch])) == count)
        let distinct = try store.connection.withDatabase { db in try db.scalar("SELECT count(DISTINCT s1) FROM events")?.integerValue }
        #expect(distinct == Int64(count))
    }

    /// Runs `smartstack <arguments>` as a child of this process, output discarded, and returns
    /// its exit status and its peak resident set in bytes, read from `/proc/<pid>/status`
    /// (`VmHWM`, only the child's own pages: `ru_maxrss` can carry this test process's peak
    /// into a spawned child) every 10 ms while it runs.
    private static func runMeasuringMemory(_ arguments: [String]) throws -> (status: Int32, peakBytes: Int) {
        let binary = try ReliabilityCLI.binary()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, binary, &actions, nil, argv, environ)
        guard code == 0 else {
            struct SpawnFailed: Error { var code: Int32 }
            throw SpawnFailed(code: code)
        }
        var status: Int32 = 0
        var peakKiB = 0
        while true {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
                peakKiB = max(peakKiB, kib)
            }
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            usleep(10_000)
        }
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : -1, peakKiB * 1024)
    }
    @Test func ingestMemoryIsBoundedByABatchNotByTheFile() throws {
        let directory = try StoreTemporaryDirectory()
        let input = directory.file("many.jsonl")
        // 300,000 events of distinct apps: ~36 MB of JSONL; parsed all at once they would take
        // ~100 MB, streamed they take one 10,000-event batch.
        let count = 300_000
        try #require(FileManager.default.createFile(atPath: input, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: input))
        var chunk = ""
        for k in 0..<count {
            chunk += #"{"time":"2013-03-27T08:05:00.\#(String(format: "%06d", k))-04:00","type":"app_launch","user":"u\#(k % 10)","id":"e\#(k)","app":"com.example.application.number.\#(k)"}"#
            chunk += "\n"
            if k % 10_000 == 9_999 {
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        try handle.close()
        let db = directory.file("events.db")
        let (status, peak) = try Self.runMeasuringMemory(["ingest", input, "--db", db])
        #expect(status == 0)
        #expect(try EventStore(path: db).count(EventQuery()) == count)
        print("limits: ingest of \(count) events (\(count / 10) per user, distinct apps) peaked at \(peak / 1_048_576) MiB resident")
        #expect(peak < 80 * 1_048_576, "ingest resident memory \(peak / 1_048_576) MiB: it must not grow with the file")
    }
}
