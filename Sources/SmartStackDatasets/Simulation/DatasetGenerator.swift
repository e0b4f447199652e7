import Dispatch
import SmartStack
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Counts of what a generation wrote.
public struct SimulationSummary: Sendable, Hashable {
    /// Events written.
    public var events = 0
    /// Events written per type.
    public var byType: [EventType: Int] = [:]
    /// Ground-truth lines (decision points × stacks).
    public var truthLines = 0
    /// Users simulated.
    public var users = 0
    /// Days simulated per user.
    public var days = 0

    /// Creates an empty summary.
    public init() {}
}

/// Writes a simulated dataset as SmartStack JSONL v1 plus its ground truth.
///
/// Users are written one after another: the events file is sorted by user, then by time within
/// each user (the evaluator groups by user). The truth file follows the same order. Users are
/// simulated in parallel (one per processor) and each is written as soon as it and those
/// before it are done; memory stays bounded by those few users' output (one user-day plus 1 MB
/// of buffers when a run is too long to hold a user in memory).
///
/// ```swift
/// let options = try SimulationOptions(persona: .student, days: 28, users: 3, seed: 1)
/// let summary = try DatasetGenerator.write(options, eventsTo: "student.jsonl",
///                                          truthTo: "student.truth.jsonl")
/// ```
public enum DatasetGenerator {
    /// Size at which buffered output is handed to the sink.
    static let flushThreshold = 1 << 20

    /// Runs longer than this many days per user are generated on one thread, streaming day by
    /// day; shorter ones hold a few users' output (about 70 KB per user-day) in memory at once.
    public static let maximumParallelDays = 400

    /// Generates the dataset, handing events and truth lines to the sinks in chunks.
    ///
    /// Users are simulated in parallel, `threads` at a time (0: one per processor), when there
    /// are several and each has at most ``maximumParallelDays`` days; the output is the same
    /// bytes for any number of threads, users in order.
    ///
    /// - Parameters:
    ///   - threads: how many users to simulate at once; 0 for one per processor.
    ///   - events: receives canonical JSONL v1 bytes, whole lines only.
    ///   - truth: receives ground-truth bytes, whole lines only; `nil` skips the truth.
    /// - Complexity: O(events); memory O(threads users' output) in parallel, O(one user-day +
    ///   1 MB) when streaming.
    public static func generate<E: Error>(_ options: SimulationOptions, threads: Int = 0,
                                          events: ([UInt8]) throws(E) -> Void,
                                          truth: (([UInt8]) throws(E) -> Void)?) throws(E) -> SimulationSummary {
        var summary = SimulationSummary()
        summary.users = options.users
        summary.days = options.days
        var counts = [Int](repeating: 0, count: 16)
        let workers = threads > 0 ? threads : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        if workers > 1 && options.users > 1 && options.days <= maximumParallelDays {
            var next = 0
            while next < options.users {
                let batch = min(workers, options.users - next)
                for output in renderUsers(options, from: next, count: batch, withTruth: truth != nil) {
                    try events(output.events)
                    if let truth { try truth(output.truth) }
                    summary.events += output.eventCount
                    summary.truthLines += output.truthCount
                    for i in counts.indices { counts[i] += output.counts[i] }
                }
                next += batch
            }
        } else {
            var eventBuffer: [UInt8] = []
            var truthBuffer: [UInt8] = []
            eventBuffer.reserveCapacity(flushThreshold + 65_536)
            if truth != nil { truthBuffer.reserveCapacity(flushThreshold + 65_536) }
            for u in 0..<options.users {
                var sim = UserSimulator(persona: options.persona, userIndex: u, userName: options.userName(u),
                                        seed: options.seed, startDay: options.startDay, days: options.days,
                                        variant: options.variant)
                while let day = sim.nextDay() {
                    for e in day.events {
                        JSONLWriter.append(e, to: &eventBuffer)
                        counts[e.type.code] += 1
                    }
                    summary.events += day.events.count
                    summary.truthLines += day.truth.count
                    if truth != nil { for t in day.truth { t.append(to: &truthBuffer) } }
                    if eventBuffer.count >= flushThreshold {
                        try events(eventBuffer)
                        eventBuffer.removeAll(keepingCapacity: true)
                    }
                    if let truth, truthBuffer.count >= flushThreshold {
                        try truth(truthBuffer)
                        truthBuffer.removeAll(keepingCapacity: true)
                    }
                }
            }
            if !eventBuffer.isEmpty { try events(eventBuffer) }
            if let truth, !truthBuffer.isEmpty { try truth(truthBuffer) }
        }
        for type in EventType.allCases where counts[type.code] > 0 { summary.byType[type] = counts[type.code] }
        return summary
    }

    /// One user's whole output.
    struct UserOutput: Sendable {
        var events: [UInt8] = []
        var truth: [UInt8] = []
        var counts = [Int](repeating: 0, count: 16)
        var eventCount = 0
        var truthCount = 0
    }

    /// Slots the parallel workers fill.
    final class OutputSlots: Sendable {
        let slots: Mutex<[UserOutput?]>
        init(count: Int) { slots = Mutex([UserOutput?](repeating: nil, count: count)) }
    }

    static func renderUsers(_ options: SimulationOptions, from first: Int, count: Int, withTruth: Bool) -> [UserOutput] {
        let box = OutputSlots(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let output = renderUser(options, first + i, withTruth: withTruth)
            box.slots.withLock { $0[i] = output }
        }
        return box.slots.withLock { $0.map { $0 ?? UserOutput() } }
    }

    static func renderUser(_ options: SimulationOptions, _ u: Int, withTruth: Bool) -> UserOutput {
        var out = UserOutput()
        var sim = UserSimulator(persona: options.persona, userIndex: u, userName: options.userName(u),
                                seed: options.seed, startDay: options.startDay, days: options.days,
                                        variant: options.variant)
        while let day = sim.nextDay() {
            for e in day.events {
                JSONLWriter.append(e, to: &out.events)
                out.counts[e.type.code] += 1
            }
            out.eventCount += day.events.count
            out.truthCount += day.truth.count
            if withTruth { for t in day.truth { t.append(to: &out.truth) } }
        }
        return out
    }

    /// Generates the dataset into files, each written to a temporary file beside it and renamed
    /// into place only when complete (a failure leaves nothing half-written).
    ///
    /// - Throws: ``SimulationError`` when a file cannot be written.
    /// - Complexity: O(events).
    public static func write(_ options: SimulationOptions, eventsTo eventsPath: String,
                             truthTo truthPath: String?) throws(SimulationError) -> SimulationSummary {
        let eventsFile = try AtomicFile(path: eventsPath)
        let truthFile = try truthPath.map { (p: String) throws(SimulationError) in try AtomicFile(path: p) }
        let writeTruth: (([UInt8]) throws(SimulationError) -> Void)?
        if let truthFile {
            writeTruth = { (bytes: [UInt8]) throws(SimulationError) in try truthFile.write(bytes) }
        } else {
            writeTruth = nil
        }
        let summary = try generate(options, events: { (bytes: [UInt8]) throws(SimulationError) in try eventsFile.write(bytes) },
                                   truth: writeTruth)
        try truthFile?.commit()
        try eventsFile.commit()
        return summary
    }

    /// Generates the dataset, handing event bytes to `events` (e.g. standard output) and writing
    /// the ground truth, if `truthPath` is given, to a temporary file renamed into place at the end.
    ///
    /// - Throws: ``SimulationError`` when the truth file cannot be written.
    /// - Complexity: O(events).
    public static func write(_ options: SimulationOptions, events: ([UInt8]) -> Void,
                             truthTo truthPath: String?) throws(SimulationError) -> SimulationSummary {
        let truthFile = try truthPath.map { (p: String) throws(SimulationError) in try AtomicFile(path: p) }
        let writeTruth: (([UInt8]) throws(SimulationError) -> Void)?
        if let truthFile {
            writeTruth = { (bytes: [UInt8]) throws(SimulationError) in try truthFile.write(bytes) }
        } else {
            writeTruth = nil
        }
        let summary = try generate(options, events: { (bytes: [UInt8]) throws(SimulationError) in events(bytes) },
                                   truth: writeTruth)
        try truthFile?.commit()
        return summary
    }

    /// The ground-truth path derived from an events path: `X.jsonl` → `X.truth.jsonl`,
    /// anything else → `<path>.truth.jsonl`.
    public static func truthPath(forEvents path: String) -> String {
        if path.hasSuffix(".jsonl") { return String(path.dropLast(6)) + ".truth.jsonl" }
        return path + ".truth.jsonl"
    }
}

/// A file written under a temporary name in the same directory and renamed into place by
/// `commit()`; dropped uncommitted, the temporary file is removed.
final class AtomicFile {
    let path: String
    let temporaryPath: String
    private var handle: UnsafeMutablePointer<FILE>?

    init(path: String) throws(SimulationError) {
        self.path = path
        var isDirectory = false
        var st = stat()
        if stat(path, &st) == 0 { isDirectory = (st.st_mode & S_IFMT) == S_IFDIR }
        guard !isDirectory else { throw SimulationError("cannot write '\(path)': it is a directory") }
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        temporaryPath = dir + "." + base + ".tmp-\(getpid())"
        guard let h = fopen(temporaryPath, "wb") else {
            throw SimulationError("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        handle = h
    }

    func write(_ bytes: [UInt8]) throws(SimulationError) {
        guard let handle else { throw SimulationError("internal: write after close of '\(path)'") }
        let n = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) }
        guard n == bytes.count else {
            throw SimulationError("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    func commit() throws(SimulationError) {
        guard let h = handle else { return }
        handle = nil
        let flushed = fflush(h) == 0
        let closed = fclose(h) == 0
        guard flushed && closed else {
            unlink(temporaryPath)
            throw SimulationError("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw SimulationError("cannot move the finished file into '\(path)': \(reason)")
        }
    }

    deinit {
        if let h = handle {
            fclose(h)
            unlink(temporaryPath)
        }
    }
}
