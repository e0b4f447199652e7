import SmartStack

/// The stacks a user has configured so far, with look-ups from app and widget id to widgets.
struct StackBook {
    struct Stack {
        var id: String
        var widgets: [WidgetConfig]
        var ids: Set<String> = []
    }
    typealias Matches = [(slot: Int, widgets: [String])]
    private(set) var stacks: [Stack] = []
    private var slotByID: [String: Int] = [:]
    /// User-local key of each (stack slot, widget id) ever configured.
    private var keys: [Int: [String: Int32]] = [:]
    private(set) var universe = 0
    /// Precomputed engagement matches (rebuilt on each configuration change, which is rare),
    /// indexed by the app's or widget's number in `apps` / `widgets` (the engine's own
    /// interner: cheaper than a `Dictionary`'s SipHash on every launch and tap).
    private var apps = Interner()
    private var widgets = Interner()
    private var byApp: [Matches] = []
    private var byWidget: [Matches] = []
    private(set) var isEmpty = true

    func slot(of stack: String) -> Int? { slotByID[stack] }

    mutating func configure(stack: String, widgets: [WidgetConfig]) {
        let slot: Int
        if let s = slotByID[stack] { slot = s } else {
            slot = stacks.count
            slotByID[stack] = slot
            stacks.append(Stack(id: stack, widgets: []))
        }
        var s = Stack(id: stack, widgets: widgets)
        for w in widgets {
            s.ids.insert(w.id)
            if keys[slot, default: [:]][w.id] == nil {
                keys[slot, default: [:]][w.id] = Int32(universe)
                universe += 1
            }
        }
        stacks[slot] = s
        for i in byApp.indices { byApp[i] = [] }
        for i in byWidget.indices { byWidget[i] = [] }
        for (k, st) in stacks.enumerated() {
            var appWidgets: [Int: [String]] = [:]
            var appOrder: [Int] = []
            for w in st.widgets {
                let wi = Int(self.widgets.intern(w.id))
                if wi == byWidget.count { byWidget.append([]) }
                if byWidget[wi].last?.slot != k { byWidget[wi].append((k, [w.id])) }
                if let app = w.app {
                    let a = Int(apps.intern(app))
                    if a == byApp.count { byApp.append([]) }
                    if appWidgets[a] == nil { appOrder.append(a) }
                    appWidgets[a, default: []].append(w.id)
                }
            }
            for a in appOrder { byApp[a].append((k, appWidgets[a]!)) }
        }
        isEmpty = !stacks.contains { !$0.widgets.isEmpty }
    }

    func key(slot: Int, widget: String) -> Int32? { keys[slot]?[widget] }

    /// The stacked widgets an event engages, per stack slot: a launch of a widget's app or a
    /// tap on a widget (only in the tap's own stack when it names one).
    ///
    /// - Complexity: O(1) expected (one dictionary look-up), no allocation but for named taps.
    func engagements(of payload: EventPayload) -> Matches {
        switch payload {
        case .appLaunch(let app):
            guard let a = apps.index(of: app) else { return [] }
            return byApp[Int(a)]
        case .widgetTap(let widget, let stack):
            guard let w = widgets.index(of: widget) else { return [] }
            let all = byWidget[Int(w)]
            guard let stack else { return all }
            guard let slot = slotByID[stack] else { return [] }
            return all.filter { $0.slot == slot }
        default:
            return []
        }
    }

    func isEngagement(_ payload: EventPayload) -> Bool {
        switch payload {
        case .appLaunch, .widgetTap: return !engagements(of: payload).isEmpty
        default: return false
        }
    }
}

/// Replays one user's events through every policy and tallies decisions (see `Evaluator` for
/// the semantics). Single-threaded; one instance per user.
struct UserReplay {
    let options: ReplayOptions
    let policyCount: Int

    /// Per (policy, stack) rotation state.
    private struct Track {
        var hasDecided = false
        var top: String?
        var topSince: Int64 = 0
        var lastRotationFrom: String?
        var lastRotationAt: Int64 = 0
        var pendingTo: String?
        var pendingEngaged = false
        var pendingScored = false
        var pendingDay = 0
        /// The display order of the open decision (its storage reused by every decision).
        var order: [String] = []
        /// The user-local key of `top` once known (keys never change once assigned).
        var topKey: Int32?
        /// The day and key last added to the day's set of top keys (adding again is a no-op).
        var keyedDay = -1
        var keyedKey: Int32 = -1
        /// The engine's index of the stack (engine policies; -1 until looked up once).
        var engineStack = -1
    }

    /// Per stack open decision (policy independent): its instant, whether scored, and target.
    private struct OpenDecision {
        var nanoseconds: Int64
        var scored: Bool
        var day: Int
        var hour: Int
        var target: [String]?
    }

    /// Replays `events` (one user's, in time order) through `policies`.
    ///
    /// - Complexity: O(events × policies) plus the policies' own work.
    /// `closed`, when given, is told each decision as it closes (stack id, instant, whether
    /// scored, target), before it is tallied; decisions close in time order.
    func run(user: String, events input: [Event], policies: [any ReplayPolicy], collectImpressions: Bool,
             progress: ((Int) -> Void)? = nil,
             closed: ((_ stack: String, _ nanoseconds: Int64, _ scored: Bool, _ target: [String]?) -> Void)? = nil) throws -> UserReplayResult {
        try run(user: user, events: input[...], policies: policies, collectImpressions: collectImpressions,
                progress: progress, closed: closed)
    }

    /// The same for a slice of a larger array (the evaluator's in-memory users): read in place,
    /// never copied unless repeats are merged.
    func run(user: String, events input: ArraySlice<Event>, policies: [any ReplayPolicy], collectImpressions: Bool,
             progress: ((Int) -> Void)? = nil,
             closed: ((_ stack: String, _ nanoseconds: Int64, _ scored: Bool, _ target: [String]?) -> Void)? = nil) throws -> UserReplayResult {
        let events = options.mergeRepeats ? Self.mergingRepeats(input) : input
        return try events.withUnsafeBufferPointer { events in
            try replay(user: user, events: events, inputCount: input.count, policies: policies,
                       collectImpressions: collectImpressions, progress: progress, closed: closed)
        }
    }

    /// `run`'s body over the (merged) events, indexed from 0.
    private func replay(user: String, events: UnsafeBufferPointer<Event>, inputCount: Int, policies: [any ReplayPolicy],
                        collectImpressions: Bool, progress: ((Int) -> Void)?,
                        closed: ((_ stack: String, _ nanoseconds: Int64, _ scored: Bool, _ target: [String]?) -> Void)?) throws -> UserReplayResult {
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
        let hasScreenOn = events.contains { $0.payload.isScreenOn }
        result.rule = hasScreenOn ? .screenOn : .engagement
        let warmupEnd = first.time.nanosecondsSinceEpoch + Int64(options.warmupDays) * 86_400_000_000_000
        let windowNs = Int64((options.window * 1e9).rounded())
        let flickerNs = Int64((options.flickerWindow * 1e9).rounded())

        // Engine policies decide into each track's reused order buffer (no allocation).
        let engines = policies.map { $0 as? EngineReplayPolicy }
        let userEngines = engines.map { $0?.engine }
        var book = StackBook()
        var open: [OpenDecision?] = []
        var tracks: [[Track]] = Array(repeating: [], count: policies.count)
        var dayIndex: [Int: Int] = [:]
        var lastDay = (number: Int.min, index: 0)  // the day of the previous decision, looked up once
        var dayHours: [UInt32] = []
        var dayTopKeys: [[Set<Int32>]] = Array(repeating: [], count: policies.count)

        func close(slot: Int) {
            guard let d = open[slot] else { return }
            open[slot] = nil
            closed?(book.stacks[slot].id, d.nanoseconds, d.scored, d.target)
            guard d.scored else { return }
            if d.target != nil { result.dayTargets[d.day] += 1 }
            for p in 0..<policies.count {
                var rank: Int?
                if let target = d.target {
                    var best = Int.max
                    for (i, w) in tracks[p][slot].order.enumerated() where target.contains(w) { best = min(best, i + 1); break }
                    rank = best
                }
                result.perPolicy[p].days[d.day].addDecision(targetRank: rank)
                var h = result.perPolicy[p].byHour[d.hour]
                h.decisions += 1
                if let rank {
                    h.withTarget += 1
                    if rank == 1 { h.hits1 += 1 }
                    if rank <= 3 { h.hits3 += 1 }
                    if rank != Int.max {
                        h.rrSum += 1 / Double(rank)
                        if rank <= 3 { h.ndcgSum += 1 / log2(Double(rank) + 1) }
                    }
                }
                result.perPolicy[p].byHour[d.hour] = h
            }
        }

        func resolvePending(_ t: inout Track, policy p: Int) {
            if t.pendingTo != nil, t.pendingScored, !t.pendingEngaged {
                result.perPolicy[p].days[t.pendingDay].unnecessaryRotations += 1
            }
            t.pendingTo = nil
        }

        /// Policy `p` shows `top` on stack `slot` after a decision at `ns`: tallies rotations,
        /// flickers, dwell times and the day's distinct tops.
        func show(_ top: String, on t: inout Track, policy p: Int, slot: Int, at ns: Int64, scored: Bool, day: Int, hour: Int) {
            if !t.hasDecided || t.top == nil {
                t.hasDecided = true
                t.top = top
                t.topKey = nil
                t.topSince = ns
                result.perPolicy[p].topChanges.append(TopChange(nanoseconds: ns, stack: slot, widget: top))
            } else if top != t.top {
                if scored {
                    result.perPolicy[p].days[day].rotations += 1
                    result.perPolicy[p].byHour[hour].rotations += 1
                    if t.lastRotationFrom == top, ns - t.lastRotationAt <= flickerNs {
                        result.perPolicy[p].days[day].flickers += 1
                    }
                    result.perPolicy[p].days[day].dwellMinutes.append(Double(ns - t.topSince) / 60e9)
                }
                resolvePending(&t, policy: p)
                t.pendingTo = top
                t.pendingEngaged = false
                t.pendingScored = scored
                t.pendingDay = day
                t.lastRotationFrom = t.top
                t.lastRotationAt = ns
                t.top = top
                t.topKey = nil
                t.topSince = ns
                result.perPolicy[p].topChanges.append(TopChange(nanoseconds: ns, stack: slot, widget: top))
            }
            guard scored else { return }
            if t.topKey == nil { t.topKey = book.key(slot: slot, widget: top) }
            if let key = t.topKey, key != t.keyedKey || day != t.keyedDay {
                dayTopKeys[p][day].insert(key)
                t.keyedKey = key
                t.keyedDay = day
            }
        }

        var i = 0
        let n = events.count
        var processed = 0
        while i < n {
            let ns = events[i].time.nanosecondsSinceEpoch
            var j = i + 1
            while j < n, events[j].time.nanosecondsSinceEpoch == ns { j += 1 }

            // 1. Decide, from events strictly before `ns`.
            var isDecisionPoint = false
            if !book.isEmpty {
                for k in i..<j {
                    if hasScreenOn ? events[k].payload.isScreenOn : book.isEngagement(events[k].payload) { isDecisionPoint = true; break }
                }
            }
            if isDecisionPoint {
                result.decisionPoints += 1
                let time = events[i].time
                let scored = ns >= warmupEnd
                var day = 0
                let hour = time.localHour
                if scored {
                    let number = time.localDayNumber
                    if number == lastDay.number { day = lastDay.index } else if let d = dayIndex[number] { day = d } else {
                        day = result.dayNumbers.count
                        dayIndex[number] = day
                        result.dayNumbers.append(number)
                        result.dayTargets.append(0)
                        result.dayOffsets.append(time.utcOffsetSeconds)
                        dayHours.append(0)
                        for p in 0..<policies.count {
                            result.perPolicy[p].days.append(DaySummary())
                            dayTopKeys[p].append([])
                        }
                    }
                    lastDay = (number, day)
                    dayHours[day] |= 1 << UInt32(hour)
                }
                for slot in book.stacks.indices {  // by index: a copy of each stack would retain its arrays
                    if open.count <= slot { open.append(contentsOf: repeatElement(nil, count: slot + 1 - open.count)) }
                    close(slot: slot)
                    guard !book.stacks[slot].widgets.isEmpty else { continue }
                    open[slot] = OpenDecision(nanoseconds: ns, scored: scored, day: day, hour: hour, target: nil)
                    for p in 0..<policies.count {
                        if tracks[p].count <= slot { tracks[p].append(contentsOf: repeatElement(Track(), count: slot + 1 - tracks[p].count)) }
                        let top: String?
                        do {
                            if let engine = engines[p] {
                                if tracks[p][slot].engineStack < 0, let s = engine.engine.configuredStackIndex(book.stacks[slot].id) {
                                    tracks[p][slot].engineStack = s
                                }
                                let s = tracks[p][slot].engineStack
                                if s >= 0 {
                                    top = engine.decide(stackIndex: s, widgets: book.stacks[slot].widgets, at: time, into: &tracks[p][slot].order).top
                                } else {  // not configured in the engine: its error says so
                                    top = try engine.decide(stack: book.stacks[slot].id, widgets: book.stacks[slot].widgets, at: time, into: &tracks[p][slot].order).top
                                }
                            } else {
                                let decision = try policies[p].decide(stack: book.stacks[slot].id, widgets: book.stacks[slot].widgets, at: time)
                                tracks[p][slot].order = decision.order
                                top = decision.top
                            }
                        } catch {
                            throw EvaluationError("policy failed for user '\(user)', stack '\(book.stacks[slot].id)' at \(time.rfc3339): \(error)")
                        }
                        if let top {
                            show(top, on: &tracks[p][slot], policy: p, slot: slot, at: ns, scored: scored, day: day, hour: hour)
                        }
                    }
                }
            }

            // 2. Then learn from the events at `ns` and attribute engagements.
            for k in i..<j {
                // `events[k]` is read in place throughout (a local copy would retain its strings).
                for p in 0..<policies.count {
                    if let engine = userEngines[p] { engine.record(at: events.baseAddress! + k) } else { policies[p].record(events[k]) }
                }
                switch events[k].payload {
                case .stackConfig(let stack, let widgets):
                    book.configure(stack: stack, widgets: widgets)
                case .appLaunch, .widgetTap:
                    for (slot, widgets) in book.engagements(of: events[k].payload) {
                        if slot < open.count, var d = open[slot], d.target == nil, ns - d.nanoseconds <= windowNs {
                            d.target = widgets
                            open[slot] = d
                        }
                        for p in 0..<policies.count where slot < tracks[p].count {
                            if let to = tracks[p][slot].pendingTo, widgets.contains(to) { tracks[p][slot].pendingEngaged = true }
                        }
                        if let w = widgets.first { result.engagements.append(EngagementRecord(time: events[k].time, stack: slot, widget: w)) }
                    }
                case .widgetImpression(let stack, let widget, let propensity?, _) where collectImpressions && ns >= warmupEnd:
                    guard let slot = book.slot(of: stack) else { break }
                    let candidates = book.stacks[slot].widgets.map(\.id)
                    guard let logged = candidates.firstIndex(of: widget) else { break }
                    let engaged = Self.isEngaged(widget: widget, slot: slot, after: k, in: events, until: ns + windowNs, book: book)
                    result.impressions.append(LoggedImpression(
                        propensity: propensity, actionCount: Int16(clamping: candidates.count),
                        loggedAction: Int16(clamping: logged), stack: Int16(clamping: slot),
                        hour: UInt8(events[k].time.localHour), isEngaged: engaged))
                    for p in 0..<policies.count {
                        let top = slot < tracks[p].count ? tracks[p][slot].top : nil
                        result.perPolicy[p].impressionActions.append(Int16(clamping: top.flatMap { candidates.firstIndex(of: $0) } ?? -1))
                    }
                default:
                    break
                }
            }
            processed += j - i
            if processed >= 4096 { progress?(processed); processed = 0 }
            i = j
        }
        progress?(processed)
        for slot in open.indices { close(slot: slot) }
        for p in 0..<policies.count {
            for slot in tracks[p].indices { resolvePending(&tracks[p][slot], policy: p) }
            for d in result.perPolicy[p].days.indices {
                result.perPolicy[p].days[d].activeHours = dayHours[d].nonzeroBitCount
                result.perPolicy[p].days[d].topKeys = dayTopKeys[p][d].sorted()
            }
        }
        result.universe = book.universe
        result.stacks = book.stacks.map(\.id)
        trimToBestDay(&result)
        return result
    }

    /// Whether `widget` of stack `slot` is engaged by an event after index `k` up to `limit`.
    private static func isEngaged(widget: String, slot: Int, after k: Int, in events: UnsafeBufferPointer<Event>, until limit: Int64, book: StackBook) -> Bool {
        var m = k + 1
        while m < events.count, events[m].time.nanosecondsSinceEpoch <= limit {
            for (s, ws) in book.engagements(of: events[m].payload) where s == slot && ws.contains(widget) { return true }
            m += 1
        }
        return false
    }

    /// Keeps only what the timeline of the best day needs.
    private func trimToBestDay(_ result: inout UserReplayResult) {
        guard let best = result.bestDay else {
            result.engagements = []
            for p in result.perPolicy.indices { result.perPolicy[p].topChanges = [] }
            return
        }
        let (start, end) = Self.dayBounds(day: result.dayNumbers[best], offset: result.dayOffsets[best])
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

    /// The UTC instants (ns) of the start and end of local day `day` at `offset`.
    static func dayBounds(day: Int, offset: Int32) -> (Int64, Int64) {
        let start = Int64(day) * 86_400_000_000_000 - Int64(offset) * 1_000_000_000
        return (start, start + 86_400_000_000_000)
    }

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

import Foundation

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
