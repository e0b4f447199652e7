import SmartStack
import SmartStackDatasets

/// Replays one user's events through every policy and tallies decisions, with the semantics the
/// evaluator's documentation states. Single-threaded; one instance per user.
struct UserReplay {
    let options: ReplayOptions

    /// Told each decision as it closes (stack id, instant, whether scored, target), before it is
    /// tallied; decisions close in time order.
    typealias ClosedDecision = (_ stack: String, _ nanoseconds: Int64, _ scored: Bool, _ target: [String]?) -> Void

    /// Replays `events` (one user's, in time order) through `policies`.
    ///
    /// - Complexity: O(events × policies) plus the policies' own work.
    func run(user: String, events input: [Event], policies: [any ReplayPolicy], collectImpressions: Bool,
             truth: UserGroundTruth? = nil, progress: ((Int) -> Void)? = nil, closed: ClosedDecision? = nil) throws -> UserReplayResult {
        try run(user: user, events: input[...], policies: policies, collectImpressions: collectImpressions,
                truth: truth, progress: progress, closed: closed)
    }

    /// The same for a slice of a larger array (the evaluator's in-memory users): read in place,
    /// never copied unless repeats are merged.
    /// `truth`, when given, is the user's ground truth: each scored decision with a line is
    /// tallied for the counterfactual measure (`DecisionTally.addCounterfactual`).
    func run(user: String, events input: ArraySlice<Event>, policies: [any ReplayPolicy], collectImpressions: Bool,
             truth: UserGroundTruth? = nil, progress: ((Int) -> Void)? = nil, closed: ClosedDecision? = nil) throws -> UserReplayResult {
        let events = options.mergeRepeats ? Self.mergingRepeats(input) : input
        return try events.withUnsafeBufferPointer { events in
            try replay(user: user, events: events, inputCount: input.count, policies: policies,
                       collectImpressions: collectImpressions, truth: truth, progress: progress, closed: closed)
        }
    }

    /// `run`'s body over the (merged) events, indexed from 0: at each instant, decide from the
    /// events strictly before it, then learn from the events at it.
    private func replay(user: String, events: UnsafeBufferPointer<Event>, inputCount: Int, policies: [any ReplayPolicy],
                        collectImpressions: Bool, truth: UserGroundTruth?, progress: ((Int) -> Void)?,
                        closed: ClosedDecision?) throws -> UserReplayResult {
        var result = UserReplayResult(user: user)
        result.perPolicy = Array(repeating: PolicyUserTallies(), count: policies.count)
        result.events = inputCount
        result.mergedRepeats = inputCount - events.count
        guard let first = events.first else {
            result.skipReason = "no events"
            return result
        }
        result.firstEvent = first.time
        result.lastEvent = events[events.count - 1].time
        result.lastEventNanoseconds = events[events.count - 1].time.nanosecondsSinceEpoch
        guard events.contains(where: { $0.payload.isStackConfig }) else {
            result.skipReason = "no stack_config event"
            return result
        }
        var state = State(options: options, user: user, events: events, policies: policies, result: result,
                          collectImpressions: collectImpressions, truth: truth, closed: closed)
        var i = 0
        var processed = 0
        while i < events.count {
            let instant = state.instant(startingAt: i)
            if state.isDecisionPoint(instant) { try state.decide(at: instant.lowerBound) }
            for k in instant { state.learn(from: k) }
            processed += instant.count
            if processed >= 4096 { progress?(processed); processed = 0 }
            i = instant.upperBound
        }
        progress?(processed)
        return state.finish()
    }

    /// Whether `widget` of stack `slot` is engaged by an event after index `k` up to `limit`,
    /// and, with `screenOn`, before the next `screen_on` (the next decision point, where a
    /// decision's window is cut: an engagement belongs to the latest decision before it).
    private static func isEngaged(widget: String, slot: Int, after k: Int, in events: UnsafeBufferPointer<Event>, until limit: Int64,
                                  screenOn: Bool, book: StackBook) -> Bool {
        var m = k + 1
        let start = events[k].time.nanosecondsSinceEpoch
        while m < events.count, events[m].time.nanosecondsSinceEpoch <= limit {
            if screenOn, events[m].payload.isScreenOn, events[m].time.nanosecondsSinceEpoch > start { return false }
            for (s, ws) in book.engagements(of: events.baseAddress! + m) where s == slot && ws.contains(widget) { return true }
            m += 1
        }
        return false
    }

    /// The 1-based rank of the first of `target`'s widgets in the display order `order`
    /// (`Int.max` when none is in it).
    ///
    /// - Complexity: O(order × target).
    static func rank(of target: [String], in order: [String]) -> Int {
        for (i, w) in order.enumerated() where target.contains(w) { return i + 1 }
        return Int.max
    }

    /// The UTC instants (ns) of the start and end of local day `day` at `offset`.
    static func dayBounds(day: Int, offset: Int32) -> (Int64, Int64) {
        let start = Int64(day) * 86_400_000_000_000 - Int64(offset) * 1_000_000_000
        return (start, start + 86_400_000_000_000)
    }
}

// MARK: - One user's replay, step by step

extension UserReplay {
    /// Per (policy, stack) rotation state.
    private struct Track {
        var top: String?
        var topSince: Int64 = 0
        var lastRotationFrom: String?
        var lastRotationAt: Int64 = 0
        /// The last rotation's new top while no engagement of it has been seen, with the day and
        /// hour of that rotation and whether it was scored.
        var pendingTo: String?
        var pendingEngaged = false
        var pendingScored = false
        var pendingDay = 0
        var pendingHour = 0
        /// The display order of the open decision (its storage reused by every decision).
        var order: [String] = []
        /// The user-local key of `top` once known (keys never change once assigned).
        var topKey: Int32?
        /// The day and key last added to the day's set of top keys (adding again is a no-op).
        var keyedDay = -1
        var keyedKey: Int32 = -1
        /// Whether the policy showed a widget at its last decision (the top persists for the
        /// stability metrics, but a decision with no eligible widget shows nothing).
        var shows = true

        /// What a rotation ends: whether it returns to the top the previous rotation replaced
        /// within the flicker window, the dwell of the top it replaces, and the day and hour of
        /// the previous rotation if that one proved unnecessary.
        struct Rotation {
            var isFlicker: Bool
            var dwellMinutes: Double
            var unnecessary: (day: Int, hour: Int)?
        }

        /// The first top of the stack.
        mutating func start(with top: String, at ns: Int64) {
            self.top = top
            topKey = nil
            topSince = ns
        }

        /// Replaces the top with `top` after a decision at `ns` (of `day` and `hour`).
        mutating func rotate(to top: String, at ns: Int64, scored: Bool, day: Int, hour: Int, flickerWindow: Int64) -> Rotation {
            let rotation = Rotation(isFlicker: lastRotationFrom == top && ns - lastRotationAt <= flickerWindow,
                                    dwellMinutes: Double(ns - topSince) / 60e9, unnecessary: resolvePending())
            pendingTo = top
            pendingEngaged = false
            pendingScored = scored
            pendingDay = day
            pendingHour = hour
            lastRotationFrom = self.top
            lastRotationAt = ns
            start(with: top, at: ns)
            return rotation
        }

        /// Stops waiting for an engagement of the last rotation's new top; the day and hour of
        /// that rotation when it was scored and its top never engaged (an unnecessary rotation).
        mutating func resolvePending() -> (day: Int, hour: Int)? {
            defer { pendingTo = nil }
            guard pendingTo != nil, pendingScored, !pendingEngaged else { return nil }
            return (pendingDay, pendingHour)
        }
    }

    /// Per stack open decision (policy independent): its instant, whether scored, and target.
    private struct OpenDecision {
        var nanoseconds: Int64
        var scored: Bool
        var day: Int
        var hour: Int
        var target: [String]?
        /// The day since the user's stacks were first configured, from 0 (by-day tallies only).
        var elapsedDay = 0
    }

    /// Everything one user's replay keeps between instants. Events are read in place throughout
    /// (a local copy of an event would retain its strings). The steps run per decision or event
    /// are `@inline(__always)`: as calls they cost the replay 1.6% more instructions (callgrind).
    private struct State {
        let user: String
        let events: UnsafeBufferPointer<Event>
        let policies: [any ReplayPolicy]
        let collectImpressions: Bool
        let closed: ClosedDecision?
        let hasScreenOn: Bool
        let warmupEnd: Int64
        /// Whether decisions are tallied by day since `configuredAt`, the instant of the user's
        /// first `stack_config`.
        let byDay: Bool
        let configuredAt: Int64
        let windowNs: Int64
        let flickerNs: Int64
        var result: UserReplayResult
        var book = StackBook()
        /// The open decision of each stack slot.
        var open: [OpenDecision?] = []
        /// Per policy, per stack slot.
        var tracks: [[Track]]
        /// Scored days: index by local day number, the previous decision's day (looked up once),
        /// the local hours with a decision point of each, and per policy the keys on top.
        var dayIndex: [Int: Int] = [:]
        var lastDay = (number: Int.min, index: 0)
        var dayHours: [UInt32] = []
        var dayTopKeys: [[Set<Int32>]]
        /// The user's ground truth, when the evaluation has one.
        let truth: UserGroundTruth?
        /// The relevance hint in force per widget id (start, end, score), for eligibility.
        var hints: [String: (start: Int64, end: Int64, score: Double)] = [:]

        init(options: ReplayOptions, user: String, events: UnsafeBufferPointer<Event>, policies: [any ReplayPolicy],
             result: UserReplayResult, collectImpressions: Bool, truth: UserGroundTruth?, closed: ClosedDecision?) {
            self.user = user
            self.events = events
            self.policies = policies
            self.result = result
            self.collectImpressions = collectImpressions
            self.truth = truth
            self.closed = closed
            hasScreenOn = events.contains { $0.payload.isScreenOn }
            self.result.rule = hasScreenOn ? .screenOn : .engagement
            warmupEnd = events[0].time.nanosecondsSinceEpoch + Int64(options.warmupDays) * 86_400_000_000_000
            byDay = options.byDay
            configuredAt = byDay ? (events.first { $0.payload.isStackConfig }?.time.nanosecondsSinceEpoch ?? 0) : 0
            windowNs = Int64((options.window * 1e9).rounded())
            flickerNs = Int64((options.flickerWindow * 1e9).rounded())
            tracks = Array(repeating: [], count: policies.count)
            dayTopKeys = Array(repeating: [], count: policies.count)
        }

        /// The indices of the events at the same instant as event `i`.
        @inline(__always)
        func instant(startingAt i: Int) -> Range<Int> {
            let ns = events[i].time.nanosecondsSinceEpoch
            var j = i + 1
            while j < events.count, events[j].time.nanosecondsSinceEpoch == ns { j += 1 }
            return i..<j
        }

        /// Whether the instant is a decision point: a stack is configured and it has a
        /// `screen_on` (users with any) or an engagement of a stacked widget (users without).
        @inline(__always)
        func isDecisionPoint(_ instant: Range<Int>) -> Bool {
            guard !book.isEmpty else { return false }
            return instant.contains { hasScreenOn ? events[$0].payload.isScreenOn : book.isEngagement(events.baseAddress! + $0) }
        }

        // MARK: Decide

        /// Closes each stack's open decision and opens a new one, decided by every policy.
        @inline(__always)
        mutating func decide(at k: Int) throws {
            result.decisionPoints += 1
            let time = events[k].time
            let ns = time.nanosecondsSinceEpoch
            let scored = ns >= warmupEnd
            let hour = time.localHour
            let day = scored ? scoredDay(of: time, hour: hour) : 0
            // Decisions come after the first stack_config, so this is never negative.
            let elapsed = byDay ? Int((ns - configuredAt) / 86_400_000_000_000) : 0
            for slot in book.stacks.indices {  // by index: a copy of each stack would retain its arrays
                if open.count <= slot { open.append(contentsOf: repeatElement(nil, count: slot + 1 - open.count)) }
                close(slot: slot)
                guard !book.stacks[slot].widgets.isEmpty else { continue }
                open[slot] = OpenDecision(nanoseconds: ns, scored: scored, day: day, hour: hour, target: nil, elapsedDay: elapsed)
                for p in policies.indices {
                    if let top = try decide(policy: p, slot: slot, at: time) {
                        show(top, policy: p, slot: slot, at: ns, scored: scored, day: day, hour: hour)
                    } else {
                        tracks[p][slot].shows = false
                    }
                }
                if truth != nil, scored || byDay {
                    tallyCounterfactual(slot: slot, at: ns, day: day, hour: hour, scored: scored, elapsedDay: elapsed)
                }
            }
        }

        /// Tallies the counterfactual value of every policy's top on stack `slot` at `ns`: the
        /// truth line at that instant or, for a user without `screen_on` (decisions at
        /// engagements), the line of the session the engagement belongs to (the latest within
        /// the attribution window before it). A decision without a line, or whose line names a
        /// widget the stack does not hold, is left out and counted (when scored). A decision in
        /// the warm-up (`scored` false) goes to the by-day tallies only.
        private mutating func tallyCounterfactual(slot: Int, at ns: Int64, day: Int, hour: Int, scored: Bool, elapsedDay: Int) {
            guard let truth else { return }
            let stack = book.stacks[slot]
            let earliest = hasScreenOn ? ns : ns - windowNs
            guard let (entry, line) = truth.entry(stack: stack.id, atOrBefore: ns, notBefore: earliest) else {
                if scored { result.truthMatches.missing += 1 }
                return
            }
            let values = entry.intent ?? entry.distribution
            for named in entry.distribution where !stack.widgets.contains(where: { $0.id == named.widget }) {
                guard scored else { return }
                result.truthMatches.unknownWidget += 1
                if result.truthMatches.firstUnknownWidget == nil {
                    result.truthMatches.firstUnknownWidget = "\(truth.source):\(line): widget '\(named.widget)' is not in stack '\(stack.id)' of user '\(user)' at that instant"
                }
                return
            }
            if scored {
                if entry.time.nanosecondsSinceEpoch == ns { result.truthMatches.atInstant += 1 } else { result.truthMatches.earlier += 1 }
                if entry.intent != nil { result.truthMatches.withIntent += 1 }
            }
            func value(_ widget: String) -> Double { values.first { $0.widget == widget }?.probability ?? 0 }
            var ceiling = 0.0
            for w in stack.widgets where isEligible(w.id, at: ns) { ceiling = max(ceiling, value(w.id)) }
            let lift = entry.intent != nil ? (entry.lift ?? 0) : 0
            for p in policies.indices {
                let top = tracks[p][slot].shows ? tracks[p][slot].top : nil
                let v = top.map(value) ?? 0
                if scored { result.perPolicy[p].addCounterfactual(value: v, ceiling: ceiling, lift: lift, day: day, hour: hour) }
                if byDay { result.perPolicy[p].elapsedDays[growing: elapsedDay].addCounterfactual(value: v, ceiling: ceiling, lift: lift) }
            }
        }

        /// Whether `widget` may be on top at `ns`: no relevance hint of score 0 or less in force.
        private func isEligible(_ widget: String, at ns: Int64) -> Bool {
            guard let h = hints[widget], h.start <= ns, ns < h.end else { return true }
            return h.score > 0
        }

        /// The index of the scored day of a decision at `time`, registered on first sight, and
        /// marks `hour` active that day.
        @inline(__always)
        private mutating func scoredDay(of time: EventTime, hour: Int) -> Int {
            let number = time.localDayNumber
            let day: Int
            if number == lastDay.number { day = lastDay.index } else if let d = dayIndex[number] { day = d } else {
                day = result.dayNumbers.count
                dayIndex[number] = day
                result.dayNumbers.append(number)
                result.dayTargets.append(0)
                result.dayOffsets.append(time.utcOffsetSeconds)
                dayHours.append(0)
                for p in policies.indices {
                    result.perPolicy[p].days.append(DaySummary())
                    dayTopKeys[p].append([])
                }
            }
            lastDay = (number, day)
            dayHours[day] |= 1 << UInt32(hour)
            return day
        }

        /// Policy `p`'s top for stack `slot`, its display order written into the track's buffer.
        @inline(__always)
        private mutating func decide(policy p: Int, slot: Int, at time: EventTime) throws -> String? {
            if tracks[p].count <= slot { tracks[p].append(contentsOf: repeatElement(Track(), count: slot + 1 - tracks[p].count)) }
            do {
                return try policies[p].decide(slot: slot, stack: book.stacks[slot].id, widgets: book.stacks[slot].widgets,
                                              at: time, into: &tracks[p][slot].order)
            } catch {
                throw EvaluationError("policy failed for user '\(user)', stack '\(book.stacks[slot].id)' at \(time.rfc3339): \(error)")
            }
        }

        /// Tallies the open decision of stack `slot`, if any, for every policy.
        @inline(__always)
        mutating func close(slot: Int) {
            guard let d = open[slot] else { return }
            open[slot] = nil
            closed?(book.stacks[slot].id, d.nanoseconds, d.scored, d.target)
            guard d.scored || byDay else { return }
            if d.scored, d.target != nil { result.dayTargets[d.day] += 1 }
            for p in policies.indices {
                let rank = d.target.map { UserReplay.rank(of: $0, in: tracks[p][slot].order) }
                if d.scored { result.perPolicy[p].addDecision(targetRank: rank, day: d.day, hour: d.hour) }
                if byDay { result.perPolicy[p].elapsedDays[growing: d.elapsedDay].addDecision(targetRank: rank) }
            }
        }

        /// Policy `p` shows `top` on stack `slot` after a decision at `ns`: tallies rotations,
        /// flickers, dwell times and the day's distinct tops.
        @inline(__always)
        private mutating func show(_ top: String, policy p: Int, slot: Int, at ns: Int64, scored: Bool, day: Int, hour: Int) {
            tracks[p][slot].shows = true
            if tracks[p][slot].top == nil {
                tracks[p][slot].start(with: top, at: ns)
                result.perPolicy[p].topChanges.append(TopChange(nanoseconds: ns, stack: slot, widget: top))
            } else if top != tracks[p][slot].top {
                let rotation = tracks[p][slot].rotate(to: top, at: ns, scored: scored, day: day, hour: hour, flickerWindow: flickerNs)
                if scored {
                    result.perPolicy[p].addRotation(isFlicker: rotation.isFlicker, dwellMinutes: rotation.dwellMinutes, day: day, hour: hour)
                }
                if let previous = rotation.unnecessary {
                    result.perPolicy[p].addUnnecessaryRotation(day: previous.day, hour: previous.hour)
                }
                result.perPolicy[p].topChanges.append(TopChange(nanoseconds: ns, stack: slot, widget: top))
            }
            if scored { addTopKey(policy: p, slot: slot, day: day) }
        }

        /// Adds policy `p`'s top on stack `slot` to the day's set of tops (for coverage).
        @inline(__always)
        private mutating func addTopKey(policy p: Int, slot: Int, day: Int) {
            if tracks[p][slot].topKey == nil, let top = tracks[p][slot].top {
                tracks[p][slot].topKey = book.key(slot: slot, widget: top)
            }
            if let key = tracks[p][slot].topKey, key != tracks[p][slot].keyedKey || day != tracks[p][slot].keyedDay {
                dayTopKeys[p][day].insert(key)
                tracks[p][slot].keyedKey = key
                tracks[p][slot].keyedDay = day
            }
        }

        // MARK: Learn

        /// Gives event `k` to every policy, then updates the stacks, attributes an engagement or
        /// logs an impression.
        @inline(__always)
        mutating func learn(from k: Int) {
            for p in policies.indices { policies[p].record(at: events.baseAddress! + k) }
            switch events[k].payload {
            case .stackConfig(let stack, let widgets):
                book.configure(stack: stack, widgets: widgets)
            case .appLaunch, .widgetTap:
                attributeEngagement(k)
            case .relevance:
                if truth != nil { noteHint(k) }
            case .widgetImpression:
                // Conditions first, bindings after: an impression's strings are retained only
                // when they are read.
                if case .widgetImpression(_, _, _, let policy?) = events[k].payload { noteLoggingPolicy(policy) }
                if collectImpressions, events[k].time.nanosecondsSinceEpoch >= warmupEnd,
                   case .widgetImpression(let stack, let widget, let propensity?, _) = events[k].payload {
                    logImpression(k, stack: stack, widget: widget, propensity: propensity)
                }
            default:
                break
            }
        }

        /// Event `k` engages stacked widgets: it is the target of each such stack's open decision
        /// that has none yet within the window, and engages a pending rotation's new top.
        @inline(__always)
        private mutating func attributeEngagement(_ k: Int) {
            let ns = events[k].time.nanosecondsSinceEpoch
            for (slot, widgets) in book.engagements(of: events.baseAddress! + k) {
                if slot < open.count, var d = open[slot], d.target == nil, ns - d.nanoseconds <= windowNs {
                    d.target = widgets
                    open[slot] = d
                }
                for p in policies.indices where slot < tracks[p].count {
                    if let to = tracks[p][slot].pendingTo, widgets.contains(to) { tracks[p][slot].pendingEngaged = true }
                }
                if let w = widgets.first { result.engagements.append(EngagementRecord(time: events[k].time, stack: slot, widget: w)) }
            }
        }

        /// Keeps the relevance hint of event `k` (eligibility, for the counterfactual ceiling).
        private mutating func noteHint(_ k: Int) {
            guard case .relevance(let widget, let score, let duration) = events[k].payload else { return }
            let ns = events[k].time.nanosecondsSinceEpoch
            if ns >= hints[widget]?.start ?? .min {
                let end = duration.flatMap { $0 > 0 && $0.isFinite ? ns &+ Int64(min($0, 1e9) * 1e9) : nil } ?? .max
                hints[widget] = (ns, end, score)
            }
        }

        /// Counts an impression logged by `policy` (the `policy` field of `widget_impression`).
        private mutating func noteLoggingPolicy(_ policy: String) {
            if let i = result.loggingPolicies.firstIndex(where: { $0.name == policy }) {
                result.loggingPolicies[i].impressions += 1
            } else {
                result.loggingPolicies.append((policy, 1))
            }
        }

        /// Logs impression `k` of `widget` on `stack` with every policy's top there.
        private mutating func logImpression(_ k: Int, stack: String, widget: String, propensity: Double) {
            guard let slot = book.slot(of: stack) else { return }
            let candidates = book.stacks[slot].widgets.map(\.id)
            guard let logged = candidates.firstIndex(of: widget) else { return }
            let limit = events[k].time.nanosecondsSinceEpoch + windowNs
            let engaged = UserReplay.isEngaged(widget: widget, slot: slot, after: k, in: events, until: limit,
                                               screenOn: hasScreenOn, book: book)
            result.impressions.append(LoggedImpression(
                propensity: propensity, actionCount: Int16(clamping: candidates.count),
                loggedAction: Int16(clamping: logged), stack: Int16(clamping: slot),
                hour: UInt8(events[k].time.localHour), day: Int32(clamping: events[k].time.localDayNumber),
                isEngaged: engaged))
            for p in policies.indices {
                let top = slot < tracks[p].count ? tracks[p][slot].top : nil
                result.perPolicy[p].impressionActions.append(Int16(clamping: top.flatMap { candidates.firstIndex(of: $0) } ?? -1))
            }
        }

        // MARK: Finish

        /// Closes the last decisions and completes the days' tallies.
        mutating func finish() -> UserReplayResult {
            for slot in open.indices { close(slot: slot) }
            for p in policies.indices {
                for slot in tracks[p].indices {
                    if let rotation = tracks[p][slot].resolvePending() {
                        result.perPolicy[p].addUnnecessaryRotation(day: rotation.day, hour: rotation.hour)
                    }
                }
                for d in result.perPolicy[p].days.indices {
                    result.perPolicy[p].addActiveHours(dayHours[d], day: d)
                    result.perPolicy[p].days[d].topKeys = dayTopKeys[p][d].sorted()
                }
            }
            result.universe = book.universe
            result.stacks = book.stacks.map(\.id)
            if let truth {
                for (stack, series) in truth.stacks where book.slot(of: stack) == nil {
                    result.truthMatches.unknownStackLines += series.times.count
                }
            }
            UserReplay.trimToBestDay(&result)
            return result
        }
    }

    /// Keeps only what the timeline of the best day needs.
    private static func trimToBestDay(_ result: inout UserReplayResult) {
        guard let best = result.bestDay else {
            result.engagements = []
            for p in result.perPolicy.indices { result.perPolicy[p].topChanges = [] }
            return
        }
        let (start, end) = dayBounds(day: result.dayNumbers[best], offset: result.dayOffsets[best])
        result.engagements = result.engagements.filter {
            $0.time.nanosecondsSinceEpoch >= start && $0.time.nanosecondsSinceEpoch < end
        }
        for p in result.perPolicy.indices {
            let changes = result.perPolicy[p].topChanges
            var kept: [TopChange] = []
            var lastBefore: [Int: TopChange] = [:]
            for c in changes {
                if c.nanoseconds < start { lastBefore[c.stack] = c } else if c.nanoseconds < end { kept.append(c) }
            }
            result.perPolicy[p].topChanges = lastBefore.values.sorted { $0.stack < $1.stack } + kept
        }
    }
}

// MARK: - Merging repeats

extension UserReplay {
    /// Drops an `app_launch` of the same app as the previous `app_launch` with no `screen_on`
    /// in between.
    ///
    /// - Complexity: O(events).
    static func mergingRepeats(_ events: [Event]) -> [Event] {
        let merged = mergingRepeats(events[...])
        return merged.count == events.count ? events : Array(merged)
    }

    /// The same for a slice, returned as is (not copied) when nothing is dropped.
    ///
    /// - Complexity: O(events).
    static func mergingRepeats(_ events: ArraySlice<Event>) -> ArraySlice<Event> {
        guard let firstRepeat = firstRepeat(in: events) else { return events }
        var out: [Event] = []
        out.reserveCapacity(events.count)
        out.append(contentsOf: events[..<firstRepeat])
        // The event at `firstRepeat` repeats the app launched just before it.
        var lastApp: String?
        if case .appLaunch(let app) = events[firstRepeat].payload { lastApp = app }
        for e in events[firstRepeat...] {
            switch e.payload {
            case .appLaunch(let app):
                if app == lastApp { continue }
                lastApp = app
            case .screenOn:
                lastApp = nil
            default:
                break
            }
            out.append(e)
        }
        return out[...]
    }

    /// The index of the first `app_launch` that `mergingRepeats` drops, if any (so a session
    /// without repeats is not copied).
    private static func firstRepeat(in events: ArraySlice<Event>) -> Int? {
        var lastApp: String?
        for i in events.indices {
            switch events[i].payload {
            case .appLaunch(let app):
                if app == lastApp { return i }
                lastApp = app
            case .screenOn:
                lastApp = nil
            default:
                break
            }
        }
        return nil
    }
}

private extension EventPayload {
    /// Whether this is a `screen_on` (a pattern match: no copy of the payload).
    var isScreenOn: Bool {
        if case .screenOn = self { return true }
        return false
    }

    /// Whether this is a `stack_config` (a pattern match: no copy of the payload).
    var isStackConfig: Bool {
        if case .stackConfig = self { return true }
        return false
    }
}
