import Dispatch
import Foundation
import Synchronization
import SmartStack

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
    ///   - progress: called about five times a second from a background thread while running.
    /// - Throws: `EvaluationError` for unreadable or unusable data.
    /// - Complexity: O(events × policies) for the replay, plus
    ///   O(resamples × policies × user-days) for the bootstrap, divided among threads.
    public func evaluate(_ source: EvaluationSource, policies: [PolicyFactory], reference: String? = nil,
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

        let replayed = try replayUsers(source, policies: policies, counters: counters)
        counters.phase.store(2, ordering: .relaxed)
        return try assemble(source: source, scan: replayed.scan, results: replayed.results,
                            policies: policies, referenceIndex: referenceIndex)
    }

    /// Replays every user in parallel; results sorted by user id.
    func replayUsers(_ source: EvaluationSource, policies: [PolicyFactory], counters: ProgressCounters)
        throws -> (scan: UserEventReader.Scan, results: [UserReplayResult]) {
        let threads = max(1, options.threads)
        let queue = WorkQueue(capacity: threads)
        let results = Mutex<[UserReplayResult]>([])
        let failure = Mutex<(user: String, error: any Error)?>(nil)
        let group = DispatchGroup()
        let options = self.options
        let collectImpressions = options.offPolicyEstimates
        for _ in 0..<threads {
            DispatchQueue.global().async(group: group) {
                let replay = UserReplay(options: options, policyCount: policies.count)
                while let item = queue.pop() {
                    do {
                        let events = Self.timeOrdered(item.events)
                        let userSeed = SeededGenerator.mix(options.seed, SeededGenerator.hash(item.user))
                        let instances = try policies.map { try $0.make(item.user, userSeed) }
                        let r = try replay.run(user: item.user, events: events, policies: instances,
                                               collectImpressions: collectImpressions) { n in
                            counters.events.add(n, ordering: .relaxed)
                        }
                        counters.decisionPoints.add(r.decisionPoints, ordering: .relaxed)
                        results.withLock { $0.append(r) }
                    } catch {
                        failure.withLock { f in
                            if f == nil || item.user < f!.user { f = (item.user, error) }
                        }
                    }
                }
            }
        }
        let scan: UserEventReader.Scan
        do {
            scan = try UserEventReader(options: options, counters: counters).read(source) { index, user, events in
                queue.push((index, user, events))
            }
        } catch {
            queue.close(consumers: threads)
            group.wait()
            throw error
        }
        queue.close(consumers: threads)
        group.wait()
        if let f = failure.withLock({ $0 }) {
            if let e = f.error as? EvaluationError { throw e }
            throw EvaluationError("replay of user '\(f.user)' failed: \(f.error)")
        }
        let sorted = results.withLock { $0 }.sorted { $0.user < $1.user }
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

    /// Turns per-user results into the report.
    func assemble(source: EvaluationSource, scan: UserEventReader.Scan, results: [UserReplayResult],
                  policies: [PolicyFactory], referenceIndex: Int?) throws -> EvaluationReport {
        guard scan.totalEvents > 0 else { throw EvaluationError("the dataset has no events") }
        let evaluated = results.filter { $0.skipReason == nil }
        let skipped = results.filter { $0.skipReason != nil }.map { SkippedUser(user: $0.user, reason: $0.skipReason!) }
        guard !evaluated.isEmpty else {
            throw EvaluationError("the dataset has no stacks: no user has a stack_config event, so there is no rotation to evaluate")
        }
        let decisionPoints = evaluated.reduce(0) { $0 + $1.decisionPoints }
        guard decisionPoints > 0 else {
            throw EvaluationError("the dataset has no decision points: no screen_on and no engagement of a stacked widget (a launch of a widget's app or a widget tap) after a stack_config")
        }
        var table = ScoredDays(policies: policies.count)
        var hours = Array(repeating: Array(repeating: HourTally(), count: 24), count: policies.count)
        var userUnits: [[Int]] = []
        var keyOffset = 0
        for (u, r) in evaluated.enumerated() {
            table.users.append(r.user)
            table.userKeyOffsets.append(keyOffset)
            table.userUniverses.append(r.universe)
            keyOffset += r.universe
            var units: [Int] = []
            for _ in r.dayNumbers {
                units.append(table.dayUser.count)
                table.dayUser.append(u)
            }
            userUnits.append(units)
            for p in policies.indices {
                table.summaries[p].append(contentsOf: r.perPolicy[p].days)
                for h in 0..<24 { hours[p][h].merge(r.perPolicy[p].byHour[h]) }
            }
        }
        guard !table.dayUser.isEmpty else {
            throw EvaluationError("no decision point falls after the warm-up (\(options.warmupDays) days from each user's first event); lower --warmup-days")
        }
        let boot = Bootstrap.run(table, resamples: options.bootstrapResamples, seed: options.seed,
                                 threads: max(1, options.threads), reference: referenceIndex)

        // The timeline day: most decisions with a target, then earlier user, then earlier day.
        var timelineUser: Int?
        for (u, r) in evaluated.enumerated() {
            guard let d = r.bestDay else { continue }
            if let t = timelineUser, let bt = evaluated[t].bestDay, evaluated[t].dayTargets[bt] >= r.dayTargets[d] { continue }
            timelineUser = u
        }
        var timeline: TimelineSample?
        var timelineBounds: (Int64, Int64, Int32) = (0, 0, 0)
        if let u = timelineUser, let d = evaluated[u].bestDay {
            let r = evaluated[u]
            let offset = r.dayOffsets[d]
            let (start, end) = UserReplay.dayBounds(day: r.dayNumbers[d], offset: offset)
            timelineBounds = (start, end, offset)
            let startTime = EventTime(nanosecondsSinceEpoch: start, utcOffsetSeconds: offset)
            timeline = TimelineSample(
                user: r.user, date: String(startTime.rfc3339.prefix(10)), start: startTime.rfc3339,
                end: EventTime(nanosecondsSinceEpoch: end, utcOffsetSeconds: offset).rfc3339, stacks: r.stacks,
                engagements: r.engagements.map {
                    TimelineEngagement(time: $0.time.rfc3339, minute: Double($0.time.nanosecondsSinceEpoch - start) / 60e9,
                                       stack: r.stacks[$0.stack], widget: $0.widget)
                })
        }

        var reports: [PolicyReport] = []
        for p in policies.indices {
            let metrics = table.values(policy: p)
            let byHour = (0..<24).map { h -> HourBreakdown in
                let t = hours[p][h]
                let n = Double(t.withTarget)
                return HourBreakdown(hour: h, decisions: t.decisions, decisionsWithTarget: t.withTarget,
                                     hitAt1: t.withTarget > 0 ? Double(t.hits1) / n : nil,
                                     hitAt3: t.withTarget > 0 ? Double(t.hits3) / n : nil,
                                     mrr: t.withTarget > 0 ? t.rrSum / n : nil,
                                     ndcgAt3: t.withTarget > 0 ? t.ndcgSum / n : nil,
                                     rotations: t.rotations)
            }
            let byUser = evaluated.indices.map { u in
                UserBreakdown(user: evaluated[u].user, metrics: table.values(policy: p, indices: userUnits[u]))
            }
            var paired: PairedComparison?
            if let ref = referenceIndex, ref != p {
                let refMetrics = table.values(policy: ref)
                var diff = MetricValues()
                for m in Metric.allCases {
                    if let a = metrics[m], let b = refMetrics[m] { diff[m] = a - b }
                }
                paired = PairedComparison(reference: policies[ref].name, difference: diff, ci: boot.pairedIntervals[p] ?? MetricIntervals())
            }
            var intervals: [TimelineInterval] = []
            if let u = timelineUser {
                intervals = Self.intervals(changes: evaluated[u].perPolicy[p].topChanges, stacks: evaluated[u].stacks,
                                           bounds: timelineBounds, lastEvent: evaluated[u].lastEventNanoseconds)
            }
            let impressions = evaluated.map { UserImpressions(stacks: $0.stacks, impressions: $0.impressions, actions: $0.perPolicy[p].impressionActions) }
            let ope = OffPolicyIntegration.report(impressions: impressions, options: options)
            reports.append(PolicyReport(name: policies[p].name, metrics: metrics, ci: boot.intervals[p], byHour: byHour,
                                        byUser: byUser, ope: ope, paired: paired, timeline: intervals))
        }
        let dataset = DatasetSummary(
            name: source.name, sources: source.descriptions,
            events: results.reduce(0) { $0 + $1.events }, mergedRepeats: results.reduce(0) { $0 + $1.mergedRepeats },
            users: results.count,
            usersEvaluated: evaluated.count, usersSkipped: skipped, decisionPoints: decisionPoints,
            usersWithScreenOn: evaluated.filter { $0.rule == .screenOn }.count, userDays: table.dayUser.count,
            first: scan.first?.rfc3339, last: scan.last?.rfc3339)
        let referenceName = referenceIndex.map { policies[$0].name }
        return EvaluationReport(dataset: dataset, options: OptionsSummary(options, reference: referenceName),
                                policies: reports, timeline: timeline)
    }

    /// Clips the top changes of one policy to the timeline day, per stack.
    static func intervals(changes: [TopChange], stacks: [String], bounds: (Int64, Int64, Int32), lastEvent: Int64) -> [TimelineInterval] {
        let (start, end, offset) = bounds
        let stop = min(end, max(start, lastEvent))
        var out: [TimelineInterval] = []
        for slot in stacks.indices {
            let mine = changes.filter { $0.stack == slot }
            for (k, c) in mine.enumerated() {
                let s = max(start, c.nanoseconds)
                let e = min(stop, k + 1 < mine.count ? mine[k + 1].nanoseconds : stop)
                guard e > s else { continue }
                out.append(TimelineInterval(
                    stack: stacks[slot], widget: c.widget,
                    start: EventTime(nanosecondsSinceEpoch: s, utcOffsetSeconds: offset).rfc3339,
                    end: EventTime(nanosecondsSinceEpoch: e, utcOffsetSeconds: offset).rfc3339,
                    startMinute: Double(s - start) / 60e9, endMinute: Double(e - start) / 60e9))
            }
        }
        return out
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
                                    decisionPoints: counters.decisionPoints.load(ordering: .relaxed), elapsed: elapsed))
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
