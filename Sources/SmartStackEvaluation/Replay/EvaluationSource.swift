import Foundation
import SmartStack
import SmartStackDatasets

/// Where the recorded sessions come from.
public enum EvaluationSource: Sendable {
    /// SmartStack JSONL v1 files, any number of users each, sorted or not.
    case files([String])
    /// An event database written by `smartstack ingest`.
    case database(String)
    /// Events already in memory (benchmarks, tests, embedding hosts); `name` names the dataset.
    case events([Event], name: String)

    /// A short dataset name for reports.
    var name: String {
        switch self {
        case .files(let paths):
            guard let p = paths.first else { return "events" }
            var base = (p as NSString).lastPathComponent
            for ext in [".gz", ".jsonl"] where base.hasSuffix(ext) { base.removeLast(ext.count) }
            return base
        case .database(let path): return (path as NSString).lastPathComponent
        case .events(_, let name): return name
        }
    }

    /// The sources as printed in reports.
    var descriptions: [String] {
        switch self {
        case .files(let paths): paths
        case .database(let path): [path]
        case .events(let events, let name): ["\(name) (\(events.count) events in memory)"]
        }
    }
}

/// Hands each user's events, whole, to `deliver`, one user at a time with bounded memory.
///
/// Files (plain or gzip JSONL) are read once when each user's events form one contiguous run
/// (files sorted by user, or one user per file): each run is handed over as it ends, so memory
/// holds the users being replayed plus a few waiting. If a user turns up again after others
/// (e.g. files sorted globally by time), what was handed over is withdrawn (`restart`), the
/// rest of the files is counted, and a second read spills the events into temporary JSONL
/// files, each holding whole users and at most `ReplayOptions.spillBudget` events (a bigger
/// single user gets its own file); then one spill file at a time is read and grouped by user.
/// `readsTwice` keeps the older behaviour for consumers that cannot withdraw what they were
/// given (a decision export already printed): count first, then stream or spill. Within a
/// user, events are put in time order (stable, so ties keep file order).
struct UserEventReader {
    let options: ReplayOptions
    let counters: ProgressCounters
    var readsTwice = false

    /// What the first pass learned.
    struct Scan {
        var totalEvents = 0
        var users: [String] = []
        var counts: [String: Int] = [:]
        var isContiguous = true
        var first: EventTime?
        var last: EventTime?
    }

    /// Streams `source`, calling `deliver(index, user, events)` for each user in the order met.
    /// In-memory events sorted by user are handed over as slices of the source (no copy).
    /// `restart` is called when everything delivered so far is withdrawn and will be delivered
    /// again (files not grouped by user, found out while reading them once).
    func read(_ source: EvaluationSource, restart: () -> Void = {},
              deliver: (Int, String, ArraySlice<Event>) throws -> Void) throws -> Scan {
        switch source {
        case .events(let events, _):
            if let scan = try readContiguousRuns(events, deliver: deliver) { return scan }
            var scan = Scan()
            var groups: [[Event]] = []
            var groupOfUser: [String: Int] = [:]
            // Consecutive events of one user (the usual layout) skip the dictionary look-up.
            var lastUser: String?
            var lastGroup = 0
            for e in events {
                if e.user != lastUser {
                    if let g = groupOfUser[e.user] {
                        lastGroup = g
                    } else {
                        lastGroup = groups.count
                        groupOfUser[e.user] = lastGroup
                        groups.append([])
                        scan.users.append(e.user)
                    }
                    lastUser = e.user
                }
                groups[lastGroup].append(e)
                note(e, in: &scan)
            }
            scan.totalEvents = events.count
            counters.total.store(events.count, ordering: .relaxed)
            for (i, u) in scan.users.enumerated() {
                let userEvents = groups[i]
                groups[i] = []
                try deliver(i, u, userEvents[...])
            }
            return scan
        case .database(let path):
            guard FileManager.default.fileExists(atPath: path) else {
                throw EvaluationError("cannot open database '\(path)': no such file")
            }
            let store: EventStore
            // Read-only: evaluating never changes the log, and works where it may only be read.
            do { store = try EventStore(path: path, options: EventStore.Options(isReadOnly: true)) } catch {
                throw EvaluationError("cannot open database '\(path)': \(error)")
            }
            var scan = Scan()
            let stats = try store.statistics()
            scan.totalEvents = stats.events
            scan.first = stats.first
            scan.last = stats.last
            counters.total.store(stats.events, ordering: .relaxed)
            scan.users = try store.users()
            for (i, u) in scan.users.enumerated() {
                let events = try store.events(EventQuery(user: u))
                scan.counts[u] = events.count
                try deliver(i, u, events[...])
            }
            return scan
        case .files(let paths):
            for path in paths {
                guard FileManager.default.isReadableFile(atPath: path) else {
                    let exists = FileManager.default.fileExists(atPath: path)
                    throw EvaluationError("cannot read dataset '\(path)': \(exists ? "permission denied" : "no such file")")
                }
            }
            counters.totalBytes.store(paths.reduce(0) { $0 + Self.fileSize($1) }, ordering: .relaxed)
            var scan: Scan
            if readsTwice {
                scan = try scanFiles(paths)
                if scan.isContiguous {
                    try streamContiguous(paths, scan: scan, deliver: deliver)
                    return scan
                }
            } else {
                scan = try streamOnce(paths, deliver: deliver)
                if scan.isContiguous { return scan }
                restart()
            }
            counters.totalBytes.store(0, ordering: .relaxed)
            counters.events.store(0, ordering: .relaxed)
            counters.phase.store(1, ordering: .relaxed)
            try spillAndGroup(paths, scan: &scan, deliver: deliver)
            return scan
        }
    }

    /// Delivers in-memory events whose users each form one contiguous run (the usual layout)
    /// as slices copied one user at a time, so replay starts after one cheap pass instead of
    /// after grouping everything; `nil` (nothing delivered) when some user's events are split.
    ///
    /// - Complexity: O(events).
    private func readContiguousRuns(_ events: [Event], deliver: (Int, String, ArraySlice<Event>) throws -> Void) throws -> Scan? {
        var scan = Scan()
        var starts: [Int] = []
        var seen: Set<String> = []
        var lastUser: String?
        for (i, e) in events.enumerated() {
            if e.user != lastUser {
                guard seen.insert(e.user).inserted else { return nil }
                scan.users.append(e.user)
                starts.append(i)
                lastUser = e.user
            }
            note(e, in: &scan)
        }
        starts.append(events.count)
        scan.totalEvents = events.count
        counters.total.store(events.count, ordering: .relaxed)
        for (i, u) in scan.users.enumerated() { try deliver(i, u, events[starts[i]..<starts[i + 1]]) }
        return scan
    }

    private func note(_ e: Event, in scan: inout Scan) {
        if scan.first.map({ e.time < $0 }) ?? true { scan.first = e.time }
        if scan.last.map({ e.time > $0 }) ?? true { scan.last = e.time }
    }

    /// Calls `body` for every event of every file (plain or gzip JSONL), in order, parsing on
    /// `options.threads` threads (`ParallelEventReader`) and counting the bytes read for the
    /// progress bar; reader errors become evaluation errors.
    private func forEachEvent(_ paths: [String], _ body: (Event) throws -> Void) throws {
        let reader = ParallelEventReader(parsers: max(1, options.threads), counters: counters)
        for path in paths { try reader.forEachEvent(path, body) }
    }

    private static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Reads the files once, delivering each user's run as it ends for as long as every user
    /// met so far forms one run; after the first user met again, only counts (the scan then
    /// says `isContiguous == false`, and the caller withdraws what was delivered).
    ///
    /// - Complexity: O(events), one dictionary look-up per run of a user, not per event.
    private func streamOnce(_ paths: [String], deliver: (Int, String, ArraySlice<Event>) throws -> Void) throws -> Scan {
        var scan = Scan()
        var current: [Event] = []
        var currentUser: String?
        var runLength = 0
        var index = 0
        counters.phase.store(1, ordering: .relaxed)
        func endRun() throws {
            guard let user = currentUser else { return }
            scan.counts[user, default: 0] += runLength
            if scan.isContiguous {
                try deliver(index, user, current[...])
                index += 1
                current = []
            }
        }
        try forEachEvent(paths) { e in
            if e.user != currentUser {
                try endRun()
                if scan.counts[e.user] == nil {
                    scan.users.append(e.user)
                    scan.counts[e.user] = 0
                } else if scan.isContiguous {
                    scan.isContiguous = false   // a user met again after others: stop delivering
                    current = []
                    counters.phase.store(0, ordering: .relaxed)
                }
                currentUser = e.user
                runLength = 0
            }
            runLength += 1
            scan.totalEvents += 1
            note(e, in: &scan)
            if scan.isContiguous {
                current.append(e)
            } else if scan.totalEvents & 0xFFF == 0 {
                counters.events.store(scan.totalEvents, ordering: .relaxed)
            }
        }
        try endRun()
        counters.total.store(scan.totalEvents, ordering: .relaxed)
        return scan
    }

    private func scanFiles(_ paths: [String]) throws -> Scan {
        var scan = Scan()
        var current: String?
        var ended: Set<String> = []
        counters.phase.store(0, ordering: .relaxed)
        var n = 0
        try forEachEvent(paths) { e in
            if e.user != current {
                if let c = current { ended.insert(c) }
                if ended.contains(e.user) { scan.isContiguous = false }
                current = e.user
            }
            if scan.counts[e.user] == nil { scan.users.append(e.user) }
            scan.counts[e.user, default: 0] += 1
            note(e, in: &scan)
            n += 1
            if n & 0xFFF == 0 { counters.events.store(n, ordering: .relaxed) }
        }
        // A user continuing from one file into the next is still one run, but a user met again
        // in a later file after others is not.
        scan.totalEvents = n
        counters.total.store(n, ordering: .relaxed)
        counters.events.store(0, ordering: .relaxed)
        counters.phase.store(1, ordering: .relaxed)
        return scan
    }

    private func streamContiguous(_ paths: [String], scan: Scan, deliver: (Int, String, ArraySlice<Event>) throws -> Void) throws {
        var current: [Event] = []
        var index = 0
        try forEachEvent(paths) { e in
            if let u = current.first?.user, u != e.user {
                try deliver(index, u, current[...])
                index += 1
                current = []
                current.reserveCapacity(scan.counts[e.user] ?? 0)
            }
            current.append(e)
        }
        if let u = current.first?.user { try deliver(index, u, current[...]) }
    }

    private func spillAndGroup(_ paths: [String], scan: inout Scan, deliver: (Int, String, ArraySlice<Event>) throws -> Void) throws {
        // Pack users, in the order met, into spill files of at most `spillBudget` events.
        var bucketOf: [String: Int] = [:]
        var bucketUsers: [[String]] = [[]]
        var filled = 0
        for u in scan.users {
            let c = scan.counts[u] ?? 0
            if filled > 0, filled + c > options.spillBudget {
                bucketUsers.append([])
                filled = 0
            }
            bucketOf[u] = bucketUsers.count - 1
            bucketUsers[bucketUsers.count - 1].append(u)
            filled += c
        }
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("smartstack-evaluate-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = bucketUsers.indices.map { dir.appendingPathComponent("bucket-\($0).jsonl").path }
        var handles: [FileHandle] = []
        for f in files {
            guard FileManager.default.createFile(atPath: f, contents: nil),
                  let h = FileHandle(forWritingAtPath: f) else {
                throw EvaluationError("cannot write temporary file '\(f)'")
            }
            handles.append(h)
        }
        var buffers = Array(repeating: [UInt8](), count: files.count)
        do {
            try forEachEvent(paths) { e in
                let b = bucketOf[e.user] ?? 0
                JSONLWriter.append(e, to: &buffers[b])
                if buffers[b].count >= 1 << 20 {
                    try handles[b].write(contentsOf: buffers[b])
                    buffers[b].removeAll(keepingCapacity: true)
                }
            }
            for b in files.indices {
                try handles[b].write(contentsOf: buffers[b])
                try handles[b].close()
            }
        } catch let error as EvaluationError {
            throw error
        } catch {
            throw EvaluationError("cannot write temporary files in '\(dir.path)': \(error)")
        }
        buffers = []
        var index = 0
        for (b, path) in files.enumerated() {
            var groups: [String: [Event]] = [:]
            try forEachEvent([path]) { e in groups[e.user, default: []].append(e) }
            for u in bucketUsers[b] {
                try deliver(index, u, (groups.removeValue(forKey: u) ?? [])[...])
                index += 1
            }
        }
    }
}

/// Passes bytes through, adding how many to a counter (the progress bar's position in a file,
/// compressed or not).
final class CountingByteSource: JSONLByteSource {
    private let input: any JSONLByteSource
    private let counters: ProgressCounters

    init(_ input: any JSONLByteSource, counters: ProgressCounters) {
        self.input = input
        self.counters = counters
    }

    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws(JSONLReadError) -> Int {
        let count = try input.read(into: buffer)
        counters.bytes.add(count, ordering: .relaxed)
        return count
    }
}
