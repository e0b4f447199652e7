import Dispatch
import Foundation
import Synchronization
import SmartStack
import SmartStackDatasets

/// Replays recorded sessions through policies and measures them side by side.
///
/// Replay semantics, per user:
/// - The user's events are put in time order (stable). With `mergeRepeats`, an `app_launch` of
///   the same app as the user's previous `app_launch`, with no `screen_on` in between, is dropped.
/// - Decision points are the distinct instants with a `screen_on` when the user's data has any
///   `screen_on`; otherwise the distinct instants with an engagement: an `app_launch` of the app of
///   a widget in one of the user's stacks, or a `widget_tap` on a stacked widget.
/// - At a decision point at instant t, each policy has been given exactly the events strictly
///   before t; for each configured stack (in configuration order) it decides the top. Then the
///   events at t are given to every policy. The top persists until the next decision point.
/// - Target: the first engagement of one of the stack's widgets in [t, t + window], cut at the
///   user's next decision point (an engagement belongs to the latest decision before it, so it is
///   never counted twice). Decisions without a target count for stability only.
/// - Decisions in the first `warmupDays` × 24 h after the user's first event are replayed but not
///   scored. A user without any `stack_config` is skipped and reported.
///
/// Users are replayed in parallel on `options.threads` threads; every user's result depends
/// only on its events and on `seed` mixed with its id, and results are combined in user-id
/// order, so the report is identical for any thread count.
public struct Evaluator: Sendable {
    /// The options.
    public var options: ReplayOptions

    /// Creates an evaluator.
    public init(options: ReplayOptions = ReplayOptions()) { self.options = options }

    /// Replays `source` through `policies` and measures them.
    ///
    /// - Parameters:
    ///   - reference: the name of one of `policies` to compare the others against (paired).
    ///   - truth: the dataset's ground truth, when it has one: every policy is then measured by
    ///     its counterfactual engagement (`Metric.counterfactualEngagement`), the headline.
    ///   - progress: called about five times a second from a background thread while running.
    /// - Throws: `EvaluationError` for unreadable or unusable data, or a truth file that matches
    ///   none of the scored decisions.
    /// - Complexity: O(events × policies) for the replay, plus
    ///   O(resamples × policies × user-days) for the bootstrap, divided among threads.
    public func evaluate(_ source: EvaluationSource, policies: [PolicyFactory], reference: String? = nil,
                         truth: EvaluationTruth? = nil,
                         progress: (@Sendable (ReplayProgress) -> Void)? = nil) throws -> EvaluationReport {
        guard !policies.isEmpty else { throw EvaluationError("no policy to evaluate") }
        var referenceIndex: Int?
        if let reference {
            guard let r = policies.firstIndex(where: { $0.name == reference }) else {
                throw EvaluationError("reference policy '\(reference)' is not among the evaluated policies (\(policies.map(\.name).joined(separator: ", ")))")
            }
            referenceIndex = r
        }
        let counters = ProgressCounters()
        let reporter = progress.map { ProgressReporter(counters: counters, sink: $0) }
        reporter?.start()
        defer { reporter?.stop() }

        let replayed = try replayUsers(source, policies: policies, truth: truth?.truth, counters: counters)
        counters.phase.store(2, ordering: .relaxed)
        return try assemble(name: source.name, sources: source.descriptions, scan: replayed.scan, results: replayed.results,
                            policyNames: policies.map(\.name), referenceIndex: referenceIndex,
                            truth: truth.map { TruthFile($0) })
    }

    /// Replays every user in parallel; results sorted by user id.
    func replayUsers(_ source: EvaluationSource, policies: [PolicyFactory], truth: GroundTruth?, counters: ProgressCounters)
        throws -> (scan: UserEventReader.Scan, results: [UserReplayResult]) {
        let threads = max(1, options.threads)
        let queue = WorkQueue(capacity: threads)
        // Results of withdrawn deliveries (a file found not grouped by user) carry an older
        // generation and are dropped; workers skip items of an older generation.
        let generation = Atomic<Int>(0)
        let results = Mutex<[(generation: Int, result: UserReplayResult)]>([])
        let failure = Mutex<(user: String, error: any Error, generation: Int)?>(nil)
        let group = DispatchGroup()
        let options = self.options
        let collectImpressions = options.offPolicyEstimates
        for _ in 0..<threads {
            DispatchQueue.global().async(group: group) {
                let replay = UserReplay(options: options)
                while let item = queue.pop() {
                    guard item.generation == generation.load(ordering: .acquiring) else { continue }
                    do {
                        let events = Self.timeOrdered(item.events)
                        let userSeed = SeededGenerator.mix(options.seed, SeededGenerator.hash(item.user))
                        let instances = try policies.map { try $0.make(item.user, userSeed) }
                        let userTruth = truth?.user(item.user)
                        var r = try replay.run(user: item.user, events: events, policies: instances,
                                               collectImpressions: collectImpressions, truth: userTruth) { n in
                            counters.events.add(n, ordering: .relaxed)
                        }
                        r.truthMatches.lines = userTruth?.lineCount ?? 0
                        counters.decisionPoints.add(r.decisionPoints, ordering: .relaxed)
                        results.withLock { $0.append((item.generation, r)) }
                    } catch {
                        failure.withLock { f in
                            if f == nil || item.generation > f!.generation || item.user < f!.user {
                                f = (item.user, error, item.generation)
                            }
                        }
                    }
                }
            }
        }
        let scan: UserEventReader.Scan
        do {
            let reader = UserEventReader(options: options, counters: counters)
            scan = try reader.read(source, restart: {
                generation.add(1, ordering: .releasing)
                counters.decisionPoints.store(0, ordering: .relaxed)
            }, deliver: { index, user, events in
                queue.push((index, user, events, generation.load(ordering: .relaxed)))
            })
        } catch {
            queue.close(consumers: threads)
            group.wait()
            throw error
        }
        queue.close(consumers: threads)
        group.wait()
        let final = generation.load(ordering: .acquiring)
        if let f = failure.withLock({ $0 }), f.generation == final {
            if let e = f.error as? EvaluationError { throw e }
            throw EvaluationError("replay of user '\(f.user)' failed: \(f.error)")
        }
        let sorted = results.withLock { $0 }.filter { $0.generation == final }.map(\.result).sorted { $0.user < $1.user }
        return (scan, sorted)
    }

    /// The events in time order (stable: ties keep their order).
    ///
    /// - Complexity: O(n) when already ordered, else O(n log n).
    static func timeOrdered(_ events: [Event]) -> [Event] {
        isTimeOrdered(events[...]) ? events : sortedByTime(events[...])
    }

    /// The same for one user's slice, returned as is (not copied) when already in time order.
    ///
    /// - Complexity: O(n) when already ordered, else O(n log n).
    static func timeOrdered(_ events: ArraySlice<Event>) -> ArraySlice<Event> {
        isTimeOrdered(events) ? events : sortedByTime(events)[...]
    }

    private static func isTimeOrdered(_ events: ArraySlice<Event>) -> Bool {
        for i in events.indices.dropFirst() where events[i].time.nanosecondsSinceEpoch < events[i - 1].time.nanosecondsSinceEpoch {
            return false
        }
        return true
    }

    private static func sortedByTime(_ events: ArraySlice<Event>) -> [Event] {
        let idx = events.indices.sorted {
            let a = events[$0].time.nanosecondsSinceEpoch, b = events[$1].time.nanosecondsSinceEpoch
            return a != b ? a < b : $0 < $1
        }
        return idx.map { events[$0] }
    }
}

/// Calls a progress sink about five times a second on its own thread until stopped.
final class ProgressReporter: Sendable {
    let counters: ProgressCounters
    let sink: @Sendable (ReplayProgress) -> Void
    private let finished = DispatchSemaphore(value: 0)

    init(counters: ProgressCounters, sink: @escaping @Sendable (ReplayProgress) -> Void) {
        self.counters = counters
        self.sink = sink
    }

    func start() {
        let counters = counters, sink = sink, finished = finished
        let thread = Thread {
            var phase = -1
            var phaseStart = DispatchTime.now().uptimeNanoseconds
            while !counters.done.load(ordering: .relaxed) {
                let p = counters.phase.load(ordering: .relaxed)
                if p != phase { phase = p; phaseStart = DispatchTime.now().uptimeNanoseconds }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - phaseStart) / 1e9
                let kind: ReplayProgress.Phase = p == 0 ? .scanning : p == 1 ? .replaying : .bootstrapping
                sink(ReplayProgress(phase: kind, events: counters.events.load(ordering: .relaxed),
                                    totalEvents: counters.total.load(ordering: .relaxed),
                                    decisionPoints: counters.decisionPoints.load(ordering: .relaxed), elapsed: elapsed,
                                    bytes: counters.bytes.load(ordering: .relaxed),
                                    totalBytes: counters.totalBytes.load(ordering: .relaxed)))
                usleep(200_000)
            }
            finished.signal()
        }
        thread.start()
    }

    func stop() {
        counters.done.store(true, ordering: .relaxed)
        finished.wait()
    }
}
