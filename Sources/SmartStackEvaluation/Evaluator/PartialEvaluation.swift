import Dispatch
import Foundation
import Synchronization
import SmartStack
import SmartStackDatasets

/// What one shard's evaluation contributes to a report: every user's sufficient statistics
/// (per user-day tallies of every policy, per-hour tallies, logged impressions and each
/// policy's action at them), the shard's busiest day for the timeline, and the options,
/// policies (with the files they read) and dataset identity. Partials of disjoint users merge
/// into the report one `evaluate` over all of them would give, byte for byte (`Evaluator.merge`),
/// streaming. File format: `Datasets/PARTIAL-FORMAT.md`.
///
/// ```swift
/// let partial = try Evaluator(options: options).partial(.files(["shard-0.jsonl"]), policies: factories)
/// try partial.write(to: "shard-0.partial")
/// let report = try Evaluator.merge(files: ["shard-0.partial", "shard-1.partial"])
/// ```
public struct PartialEvaluation: Sendable {
    /// The format's name and version, first in every file.
    public static let format = "smartstack-partial"
    public static let version = 4

    /// The options that shape figures (threads and spill budget do not).
    struct Options: Sendable, Hashable {
        var window: Double
        var mergeRepeats: Bool
        var warmupDays: Int
        var seed: UInt64
        var rotation: String
        var bootstrapResamples: Int
        var flickerWindow: Double
        var offPolicyEstimates: Bool
        var offPolicyRoundLimit: Int
        var reference: String?
        /// Whether the user lines carry the by-day tallies of the learning curve.
        var byDay: Bool

        init(_ o: ReplayOptions, reference: String?) {
            window = o.window; mergeRepeats = o.mergeRepeats; warmupDays = o.warmupDays; seed = o.seed
            rotation = o.rotation.description; bootstrapResamples = o.bootstrapResamples
            flickerWindow = o.flickerWindow; offPolicyEstimates = o.offPolicyEstimates
            offPolicyRoundLimit = o.offPolicyRoundLimit; self.reference = reference; byDay = o.byDay
        }

        init(window: Double, mergeRepeats: Bool, warmupDays: Int, seed: UInt64, rotation: String, bootstrapResamples: Int,
             flickerWindow: Double, offPolicyEstimates: Bool, offPolicyRoundLimit: Int, reference: String?, byDay: Bool) {
            self.window = window; self.mergeRepeats = mergeRepeats; self.warmupDays = warmupDays; self.seed = seed
            self.rotation = rotation; self.bootstrapResamples = bootstrapResamples; self.flickerWindow = flickerWindow
            self.offPolicyEstimates = offPolicyEstimates; self.offPolicyRoundLimit = offPolicyRoundLimit
            self.reference = reference; self.byDay = byDay
        }

        /// The replay options they stand for (`threads` for the merge's bootstrap).
        func replayOptions(threads: Int) throws(EvaluationError) -> ReplayOptions {
            var o = ReplayOptions()
            o.window = window; o.mergeRepeats = mergeRepeats; o.warmupDays = warmupDays; o.seed = seed
            do { o.rotation = try RotationParameters(parsing: rotation) } catch {
                throw EvaluationError("partial options: rotation '\(rotation)' does not parse: \(error)")
            }
            o.bootstrapResamples = bootstrapResamples; o.flickerWindow = flickerWindow
            o.offPolicyEstimates = offPolicyEstimates; o.offPolicyRoundLimit = offPolicyRoundLimit
            o.byDay = byDay
            o.threads = threads
            return o
        }
    }

    /// The header line: what identifies a partial and what `merge` must know before it streams
    /// the users.
    struct Header: Sendable, Hashable {
        /// The dataset's short name and sources, as this shard's own report would print them.
        var name: String
        var sources: [String]
        var options: Options
        /// Policy names (with parameters), in evaluation order, and the file each reads.
        var policies: [String]
        var policyFiles: [PolicyInputFile?]
        /// Events read and their time range (all events, users skipped or not).
        var events: Int
        var first: EventTime?
        var last: EventTime?
        /// Users in the file, and the logged impressions of those evaluated.
        var users: Int
        var impressions: Int
        /// The truth file of the counterfactual measure, if any.
        var truth: TruthFile?
    }

    var header: Header
    /// Every user's replay result, sorted by user id.
    var users: [UserReplayResult]
    /// The shard's busiest scored day, `nil` when it has none.
    var timeline: TimelineCandidate?

    /// The dataset's short name, as this shard's own report would print it.
    public var name: String { header.name }
    /// The dataset's sources.
    public var sources: [String] { header.sources }
    /// Policy names (with parameters), in evaluation order.
    public var policies: [String] { header.policies }
    /// Users in this partial.
    public var userCount: Int { users.count }

    /// The partial of replay results sorted by user id (the header's user and impression counts
    /// and the timeline day come from them).
    init(name: String, sources: [String], options: Options, policies: [PolicyFactory], events: Int,
         first: EventTime?, last: EventTime?, users: [UserReplayResult], truth: TruthFile?) {
        var timeline: TimelineCandidate?
        for u in users where u.skipReason == nil {
            if let c = TimelineCandidate(u), timeline.map({ c.isPreferred(over: $0) }) ?? true { timeline = c }
        }
        header = Header(name: name, sources: sources, options: options, policies: policies.map(\.name),
                        policyFiles: policies.map(\.inputFile), events: events, first: first, last: last,
                        users: users.count,
                        impressions: users.reduce(0) { $0 + ($1.skipReason == nil ? $1.impressions.count : 0) },
                        truth: truth)
        self.users = users
        self.timeline = timeline
    }

    init(header: Header, users: [UserReplayResult], timeline: TimelineCandidate?) {
        self.header = header
        self.users = users
        self.timeline = timeline
    }
}

extension Evaluator {
    /// Replays `source` like `evaluate` and returns its sufficient statistics instead of a
    /// report, for `merge` with the partials of other shards. Nothing is required of the data
    /// as a whole here (a shard may hold only skipped users): `merge` checks that.
    ///
    /// - Throws: `EvaluationError` for unreadable data or a failing policy.
    /// - Complexity: O(events × policies), divided among threads.
    public func partial(_ source: EvaluationSource, policies: [PolicyFactory], reference: String? = nil,
                        truth: EvaluationTruth? = nil,
                        progress: (@Sendable (ReplayProgress) -> Void)? = nil) throws -> PartialEvaluation {
        guard !policies.isEmpty else { throw EvaluationError("no policy to evaluate") }
        if let reference, !policies.contains(where: { $0.name == reference }) {
            throw EvaluationError("reference policy '\(reference)' is not among the evaluated policies (\(policies.map(\.name).joined(separator: ", ")))")
        }
        let counters = ProgressCounters()
        let reporter = progress.map { ProgressReporter(counters: counters, sink: $0) }
        reporter?.start()
        defer { reporter?.stop() }
        let replayed = try replayUsers(source, policies: policies, truth: truth?.truth, counters: counters)
        return PartialEvaluation(name: source.name, sources: source.descriptions,
                                 options: .init(options, reference: reference), policies: policies,
                                 events: replayed.scan.totalEvents, first: replayed.scan.first, last: replayed.scan.last,
                                 users: replayed.results, truth: truth.map { TruthFile($0) })
    }

    /// The report of all the partial files' users together: byte-identical to `evaluate` over
    /// the union of their data. The files are read once, side by side, one user at a time (they
    /// are sorted by user), so memory holds what the report needs — the scored user-days the
    /// bootstrap resamples, laid out flat, and running totals — not the partials. `name` and
    /// `sources` replace the dataset's name and sources (by default the first partial's name
    /// and every partial's sources).
    ///
    /// - Throws: `EvaluationError` naming the file when a partial cannot be read, is corrupt, or
    ///   was made with other options, policies or policy input files; when a user is in two
    ///   partials; or when the whole has nothing to evaluate.
    /// - Complexity: O(users × log partials + the bootstrap's resamples × policies × user-days).
    public static func merge(files: [String], name: String? = nil, sources: [String]? = nil,
                             threads: Int = ReplayOptions.availableCores) throws -> EvaluationReport {
        let readers = try open(files, threads: threads)
        return try merge(readers, name: name, sources: sources, threads: threads)
    }

    /// Opens every file and reads its first batch of users, on `threads` threads (200 partials
    /// of one user each are mostly opening and parsing); an error names the first bad file in
    /// the order given.
    private static func open(_ files: [String], threads: Int) throws(EvaluationError) -> [PartialReader] {
        /// A reader is touched by the one thread that opens it, then by the caller alone.
        struct Opened: @unchecked Sendable { var result: Result<PartialReader, EvaluationError> }
        let opened = Mutex<[Opened?]>(Array(repeating: nil, count: files.count))
        let chunks = max(1, min(threads, files.count))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let lo = files.count * chunk / chunks, hi = files.count * (chunk + 1) / chunks
            var local: [Opened] = []
            for k in lo..<hi {
                do throws(EvaluationError) {
                    let reader = try PartialReader(path: files[k], threads: threads)
                    reader.prefetch()
                    local.append(Opened(result: .success(reader)))
                } catch {
                    local.append(Opened(result: .failure(error)))
                }
            }
            opened.withLock { all in for (j, o) in local.enumerated() { all[lo + j] = o } }
        }
        let all = opened.withLock { $0 }
        var readers: [PartialReader] = []
        readers.reserveCapacity(files.count)
        for o in all { readers.append(try o!.result.get()) }
        return readers
    }

    /// The same for partials in memory (each is read back from its bytes, as from a file).
    public static func merge(_ partials: [PartialEvaluation], labels: [String]? = nil, name: String? = nil,
                             sources: [String]? = nil, threads: Int = ReplayOptions.availableCores) throws -> EvaluationReport {
        let labels = labels ?? partials.indices.map { "partial \($0 + 1)" }
        let readers = try partials.indices.map { try PartialReader(bytes: partials[$0].encoded(), name: labels[$0], threads: threads) }
        return try merge(readers, name: name, sources: sources, threads: threads)
    }

    static func merge(_ readers: [PartialReader], name: String?, sources: [String]?, threads: Int) throws -> EvaluationReport {
        guard let head = readers.first?.header else { throw EvaluationError("no partial to merge") }
        var events = 0, impressions = 0
        var first: EventTime?, last: EventTime?
        for (k, reader) in readers.enumerated() {
            let h = reader.header
            if k > 0 { try check(h, named: reader.file, against: head, named: readers[0].file) }
            events += h.events
            impressions += h.impressions
            if let f = h.first, first.map({ f < $0 }) ?? true { first = f }
            if let l = h.last, last.map({ l > $0 }) ?? true { last = l }
        }
        let options = try head.options.replayOptions(threads: max(1, threads))
        let reference = head.options.reference.flatMap { r in head.policies.firstIndex(of: r) }
        var builder = ReportBuilder(options: options, policyNames: head.policies, referenceIndex: reference,
                                    impressions: impressions, truth: head.truth)
        var queue = PartialQueue(readers, threads: threads)
        var previous: (user: String, reader: Int)?
        while let (user, k) = try queue.next() {
            if let previous, previous.user == user.user {
                throw EvaluationError("user '\(user.user)' is in both \(readers[previous.reader].file) and \(readers[k].file): it would be counted twice (shard the data by user, e.g. with 'smartstack shard')")
            }
            previous = (user.user, k)
            try builder.add(user)
        }
        for reader in readers { if let t = reader.timeline { builder.offer(t) } }
        return try builder.report(name: name ?? head.name, sources: sources ?? readers.flatMap(\.header.sources),
                                  events: events, first: first, last: last)
    }

    /// Refuses a partial `h` (file `a`) that cannot be merged with the first one (`b`).
    private static func check(_ h: PartialEvaluation.Header, named a: String, against head: PartialEvaluation.Header,
                              named b: String) throws(EvaluationError) {
        if h.policies != head.policies {
            throw EvaluationError("cannot merge \(a) with \(b): evaluated with different policies (\(h.policies.joined(separator: ",")) vs \(head.policies.joined(separator: ",")))")
        }
        if h.options != head.options {
            throw EvaluationError("cannot merge \(a) with \(b): evaluated with different options (\(describe(h.options, against: head.options)))")
        }
        if h.truth?.file.digest != head.truth?.file.digest {
            func text(_ t: TruthFile?) -> String { t.map { "'\($0.file.path)' (\($0.file.digest))" } ?? "none" }
            throw EvaluationError("cannot merge \(a) with \(b): evaluated with different truth files (\(text(h.truth)) vs \(text(head.truth))): every shard must read the same --truth file")
        }
        for (p, file) in h.policyFiles.enumerated() where file?.digest != head.policyFiles[p]?.digest {
            func text(_ f: PolicyInputFile?) -> String { f.map { "'\($0.path)' (\($0.digest))" } ?? "none" }
            throw EvaluationError("cannot merge \(a) with \(b): policy '\(h.policies[p])' read different files (\(text(file)) vs \(text(head.policyFiles[p]))): a ground truth must be the same file for every shard")
        }
    }

    private static func describe(_ a: PartialEvaluation.Options, against b: PartialEvaluation.Options) -> String {
        var d: [String] = []
        if a.window != b.window { d.append("window \(a.window) s vs \(b.window) s") }
        if a.mergeRepeats != b.mergeRepeats { d.append("merge repeats \(a.mergeRepeats) vs \(b.mergeRepeats)") }
        if a.warmupDays != b.warmupDays { d.append("warm-up \(a.warmupDays) vs \(b.warmupDays) days") }
        if a.seed != b.seed { d.append("seed \(a.seed) vs \(b.seed)") }
        if a.rotation != b.rotation { d.append("rotation \(a.rotation) vs \(b.rotation)") }
        if a.bootstrapResamples != b.bootstrapResamples { d.append("bootstrap \(a.bootstrapResamples) vs \(b.bootstrapResamples)") }
        if a.flickerWindow != b.flickerWindow { d.append("flicker window \(a.flickerWindow) vs \(b.flickerWindow) s") }
        if a.offPolicyEstimates != b.offPolicyEstimates { d.append("off-policy estimates \(a.offPolicyEstimates) vs \(b.offPolicyEstimates)") }
        if a.offPolicyRoundLimit != b.offPolicyRoundLimit { d.append("off-policy round limit \(a.offPolicyRoundLimit) vs \(b.offPolicyRoundLimit)") }
        if a.reference != b.reference { d.append("reference \(a.reference ?? "none") vs \(b.reference ?? "none")") }
        if a.byDay != b.byDay { d.append("by day \(a.byDay ? "on" : "off") vs \(b.byDay ? "on" : "off")") }
        return d.joined(separator: ", ")
    }
}

/// The next user of several partials, in user order (ties: the earlier partial first), one
/// user per partial in memory.
private struct PartialQueue {
    private let readers: [PartialReader]
    /// A binary min-heap of (user, reader).
    private var heap: [(user: UserReplayResult, reader: Int)] = []

    private let threads: Int

    init(_ readers: [PartialReader], threads: Int) {
        self.readers = readers
        self.threads = max(1, threads)
    }

    private var isPrimed = false

    mutating func next() throws -> (UserReplayResult, Int)? {
        if !isPrimed {
            isPrimed = true
            prefetchFirstBatches()
            for k in readers.indices { if let u = try readers[k].next() { push((u, k)) } }
        }
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        if let u = try readers[top.reader].next() { push((u, top.reader)) }
        return (top.user, top.reader)
    }

    /// Every reader's first batch, read and parsed on `threads` threads: with many small
    /// partials (one per shard) most of the parsing is these first batches.
    private func prefetchFirstBatches() {
        /// Each reader is touched by one thread: the readers of chunk `c` by its thread alone,
        /// and all of them by the caller only after `concurrentPerform` returns.
        struct Readers: @unchecked Sendable { let all: [PartialReader] }
        let shared = Readers(all: readers)
        let chunks = max(1, min(threads, readers.count))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let lo = shared.all.count * chunk / chunks, hi = shared.all.count * (chunk + 1) / chunks
            for k in lo..<hi { shared.all[k].prefetch() }
        }
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        heap[a].user.user != heap[b].user.user ? heap[a].user.user < heap[b].user.user : heap[a].reader < heap[b].reader
    }

    private mutating func push(_ entry: (user: UserReplayResult, reader: Int)) {
        heap.append(entry)
        var i = heap.count - 1
        while i > 0, less(i, (i - 1) / 2) {
            heap.swapAt(i, (i - 1) / 2)
            i = (i - 1) / 2
        }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            var m = i
            for c in [2 * i + 1, 2 * i + 2] where c < heap.count && less(c, m) { m = c }
            guard m != i else { return }
            heap.swapAt(i, m)
            i = m
        }
    }
}
