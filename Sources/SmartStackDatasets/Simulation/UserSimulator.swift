import SmartStack

/// One simulated day of one user: its events in time order and its ground-truth lines.
public struct SimulatedDay: Sendable {
    /// The day's index: 0 for the day the stacks are configured, negative for the days of app
    /// use before it (``SimulationVariant/backfillDays``).
    public var index = 0
    /// The day's events, in time order, with ids unique for the user.
    public var events: [Event]
    /// One entry per (`screen_on`, stack), in time order then stack order.
    public var truth: [GroundTruthEntry]
}

/// Simulates one person of a persona, day by day, with their own seeded variations.
///
/// Memory is bounded by one day of events. The same (persona, seed, user index, start, days,
/// variant) always produces the same days, whatever the number of other users generated. The
/// recording knobs of the variant (location reporting, `screen_on`) change what is written, not
/// what the person does: the same seed gives the same sessions and engagements in every mode.
/// With ``SimulationVariant/backfillDays`` the person first lives that many days before their
/// stacks exist, of which only the app launches are written (ids `h1`, `h2`, ...), from
/// generators and a copy of the persona of their own: the days from the stacks' configuration on
/// are the same as without them.
///
/// ```swift
/// var sim = UserSimulator(persona: .commuter, userIndex: 0, userName: "commuter-00",
///                         seed: 7, startDay: SimulationOptions.defaultStartDay, days: 28)
/// while let day = sim.nextDay() { print(day.events.count, day.truth.count) }
/// ```
public struct UserSimulator {
    /// The default minimum gap between two `screen_on` sessions, in seconds. Longer than the
    /// 10-minute attribution window plus the longest engagement delay, so each window holds one
    /// session. A persona may use a shorter one (the sequence-driven worker): the evaluator cuts
    /// each window at the next decision point, and a session's events always come before the next.
    public static let minimumSessionGap: Int64 = 12 * 60
    /// The logging policy's exploration rate.
    public static let epsilon = 0.3
    /// Probability that a person with no intent taps the widget shown on one stack anyway.
    public static let temptation = 0.25
    /// The `policy` name written on every `widget_impression`.
    public static let loggingPolicyName = "sim-epsilon-greedy:epsilon=0.3,heuristic=hour-usage"

    /// The user's id as written in the `user` field.
    public let user: String
    private var model: any PersonaModel
    private var rng: SimulationRandom
    /// Draws of what only the recorder decides (arrival fixes in the sparse location modes), so
    /// the person's own draws are the same in every recording mode.
    private var recorderRNG: SimulationRandom
    private let variant: SimulationVariant
    private let startDay: Int
    private let days: Int
    private var day = 0
    private var eventCounter = 0
    private var historyEventCounter = 0
    /// The person's draws and running state for the days before the stacks (swapped in while
    /// such a day is simulated), `nil` without them.
    private var history: PersonState?
    /// Whether the day being simulated is one before the stacks: only app launches are written.
    private var inHistory = false
    private var previousWidget = -1
    private var recentEngagements: [Int] = []
    private var lastEngagementNanos = Int64.min
    private var lastSessionNanos = Int64.min
    /// The instant of the last event of the previous session.
    private var lastSessionEndNanos = Int64.min
    /// The place of the last arrival the sparse location modes reported, or -1.
    private var arrivalPlace = -1
    private var activeHints: [(widget: Int, from: Int64, until: Int64, score: Double)] = []
    /// The logging policy's engagement counts per stack, by (local hour, catalog widget).
    private var loggerCounts: [[Double]] = []
    private var loggerStack: [String: Int] = [:]
    private var currentStacks: [(id: String, widgets: [Int])] = []
    private var lastKind: SegmentKind?
    private var lastSessionSegment: Segment?
    private var lastPlace = -1
    private var charging = false
    private var headphonesOn = false
    private var weights: [Double]
    /// The `engine` logger, when the variant's logger is SmartStack's engine.
    private let loggerEngine: LoggerEngine?

    /// Creates the simulator of user `userIndex` of `persona`.
    /// - Parameters:
    ///   - startDay: the first local date, as days since 1970-01-01.
    ///   - days: how many days to simulate.
    ///   - variant: what the recorder writes and how stacks are laid out (validated by
    ///     ``SimulationOptions``; a stack size outside ``SimulationVariant/stackSizes`` is clamped).
    public init(persona: Persona, userIndex: Int, userName: String, seed: UInt64, startDay: Int, days: Int,
                variant: SimulationVariant = SimulationVariant()) {
        var userRNG = SimulationRandom(seed: SimulationRandom.derive(seed, persona.seedSalt, UInt64(userIndex)))
        var model = persona.makeModel(days: days, userIndex: userIndex, rng: &userRNG)
        var variantRNG = SimulationRandom(seed: SimulationRandom.derive(seed, persona.seedSalt, UInt64(userIndex), 0x5641_5249_414E_5453))
        if let size = variant.stackSize {
            let clamped = min(max(size, SimulationVariant.stackSizes.lowerBound), SimulationVariant.stackSizes.upperBound)
            model = ResizedStackModel(base: model, size: clamped, rng: &variantRNG)
        }
        self.model = model
        self.rng = userRNG
        self.recorderRNG = variantRNG
        self.variant = variant
        self.user = userName
        self.startDay = startDay
        self.days = days
        self.weights = Array(repeating: 0, count: model.catalog.count)
        let backfill = min(max(variant.backfillDays, 0), SimulationVariant.maximumBackfillDays)
        if backfill > 0 {
            day = -backfill
            history = PersonState(rng: SimulationRandom(seed: SimulationRandom.derive(seed, persona.seedSalt, UInt64(userIndex), 0x4241_434B_4649_4C4C)),
                                  model: model)
        }
        // An engine policy that does not run was refused by `SimulationOptions`; here it falls
        // back to the default engine policy rather than trap.
        if variant.logger == .engine {
            let spec = (try? variant.engineLoggerPolicy()) ?? PolicySpec(name: PolicyRegistry.defaultPolicy)
            loggerEngine = try? LoggerEngine(user: userName, policy: spec,
                                             seed: SimulationRandom.derive(seed, persona.seedSalt, UInt64(userIndex), 0x454E_4749_4E45))
        } else {
            loggerEngine = nil
        }
    }

    /// The `policy` field of the impressions the variant's logger writes.
    private var loggingPolicyName: String {
        switch variant.logger {
        case .timeOfDay: Self.loggingPolicyName
        case .mfu: "sim-epsilon-greedy:epsilon=0.3,heuristic=usage"
        case .uniform: "sim-uniform"
        case .engine: loggerEngine?.name ?? "smartstack"
        }
    }

    private func midnightNanos(_ d: Int) -> Int64 {
        Int64(startDay + d) * 86_400_000_000_000 - Int64(model.startOffset(day: d)) * 1_000_000_000
    }

    /// What a person's days carry from one to the next (their draws, their copy of the persona,
    /// their last sessions and engagements, the hints in force, their stacks). The days before
    /// the stacks run on one of their own, exchanged with the simulator's while they run.
    private struct PersonState {
        var rng: SimulationRandom
        var model: any PersonaModel
        var previousWidget = -1
        var recentEngagements: [Int] = []
        var lastEngagementNanos = Int64.min
        var lastSessionNanos = Int64.min
        var lastSessionEndNanos = Int64.min
        var lastSessionSegment: Segment?
        var activeHints: [(widget: Int, from: Int64, until: Int64, score: Double)] = []
        var currentStacks: [(id: String, widgets: [Int])] = []

        init(rng: SimulationRandom, model: any PersonaModel) {
            self.rng = rng
            self.model = model
        }
    }

    /// Exchanges the person's running state with `state`.
    private mutating func exchange(_ state: inout PersonState) {
        swap(&rng, &state.rng)
        swap(&model, &state.model)
        swap(&previousWidget, &state.previousWidget)
        swap(&recentEngagements, &state.recentEngagements)
        swap(&lastEngagementNanos, &state.lastEngagementNanos)
        swap(&lastSessionNanos, &state.lastSessionNanos)
        swap(&lastSessionEndNanos, &state.lastSessionEndNanos)
        swap(&lastSessionSegment, &state.lastSessionSegment)
        swap(&activeHints, &state.activeHints)
        swap(&currentStacks, &state.currentStacks)
    }

    private struct Pending {
        var nanos: Int64
        var seq: Int
        var offset: Int32
        var payload: EventPayload
    }

    /// The next simulated day, or `nil` after the last one.
    ///
    /// - Complexity: O(events of the day · log of that count).
    public mutating func nextDay() -> SimulatedDay? {
        guard day < days else { return nil }
        defer { day += 1 }
        guard day < 0, var state = history else { return simulateDay() }
        exchange(&state)
        inHistory = true
        let simulated = simulateDay()
        inHistory = false
        exchange(&state)
        history = day + 1 < 0 ? state : nil
        return simulated
    }

    /// The day `day`: everything the variant records on a day with stacks, only the app launches
    /// on a day before them (`inHistory`).
    private mutating func simulateDay() -> SimulatedDay {
        let dayStart = midnightNanos(day)
        let dayEnd = midnightNanos(day + 1)
        precondition(dayEnd > dayStart, "persona days must move forward in time")
        let length = Int((dayEnd - dayStart) / 1_000_000_000)
        let weekday = Int(((Int64(startDay + day) + 3) % 7 + 7) % 7) + 1
        let plan = model.plan(day: day, weekday: weekday, length: length, rng: &rng)
        var pending: [Pending] = []
        pending.reserveCapacity(512)
        var truth: [GroundTruthEntry] = []
        // Every event carries the offset of the segment it falls in (the phone's clock then),
        // so offsets change exactly once at each border, whatever the caller thought.
        let segments = plan.segments
        func emit(_ second: Double, _ offset: Int32, _ payload: EventPayload) {
            let n = min(dayStart + Int64(second.rounded()) * 1_000_000_000, dayEnd - 1_000_000_000)
            let within = Int((n - dayStart) / 1_000_000_000)
            let actual = segments.last { $0.start <= within }?.offset ?? offset
            pending.append(Pending(nanos: n, seq: pending.count, offset: actual, payload: payload))
        }
        // The engine logger sees what the phone recorded strictly before each decision.
        let recorded = recordedTypes, logger = loggerEngine, userID = user
        var given = [Bool]()
        func unseen(before nanos: Int64) -> [Event] {
            given.append(contentsOf: repeatElement(false, count: pending.count - given.count))
            var ready: [Int] = []
            for i in pending.indices where !given[i] && pending[i].nanos < nanos {
                given[i] = true
                if recorded(pending[i].payload) { ready.append(i) }
            }
            ready.sort { pending[$0].nanos != pending[$1].nanos ? pending[$0].nanos < pending[$1].nanos : pending[$0].seq < pending[$1].seq }
            return ready.map { Event(time: EventTime(nanosecondsSinceEpoch: pending[$0].nanos, utcOffsetSeconds: pending[$0].offset),
                                     user: userID, payload: pending[$0].payload) }
        }
        func feed(before nanos: Int64) { logger?.give(unseen(before: nanos)) }
        let firstOffset = plan.segments.first?.offset ?? model.startOffset(day: day)

        // Stacks: configured on day 0 and whenever the persona changes them. Before the stacks
        // exist, the person's needs are those of the widgets they will have.
        let stacks = model.stacks(day: day)
        if !inHistory {
            for s in stacks where !currentStacks.contains(where: { $0.id == s.id && $0.widgets == s.widgets }) {
                emit(0, firstOffset, .stackConfig(stack: s.id, widgets: s.widgets.map { model.catalog[$0] }))
            }
        }
        currentStacks = stacks

        // Background: places, locations, context, hints (a usage history holds none of them; a
        // hint still moves the person's needs).
        if !inHistory {
            for (index, seg) in plan.segments.enumerated() {
                emitTransition(into: seg, plan: plan, emit: emit)
                emitFixes(seg, emit: emit)
                if variant.location != .dense { recordSparseLocation(segment: index, of: plan, emit: emit) }
                lastKind = seg.kind
            }
        }
        for hint in plan.hints {
            let offset = segment(at: hint.at, in: plan).offset
            if !inHistory {
                emit(Double(hint.at), offset, .relevance(widget: model.catalog[hint.widget].id, score: hint.score,
                                                        duration: Double(hint.duration)))
            }
            let from = dayStart + Int64(hint.at) * 1_000_000_000
            activeHints.append((hint.widget, from, from + Int64(hint.duration) * 1_000_000_000, hint.score))
        }

        // Sessions: screen_on, impressions, engagement, other apps.
        let minimumGap = Int64(model.minimumSessionGap) * 1_000_000_000
        var t = max(lastSessionNanos == .min ? dayStart : lastSessionNanos + minimumGap, dayStart)
        if lastSessionEndNanos != .min { t = max(t, lastSessionEndNanos + 10_000_000_000) }
        t += Int64(rng.exponential(mean: model.sessionGapMean(after: lastSessionSegment ?? plan.segments[0]))) * 1_000_000_000
        var segIndex = 0
        while t < dayEnd {
            let second = Int((t - dayStart) / 1_000_000_000)
            while segIndex + 1 < plan.segments.count && plan.segments[segIndex].end <= second { segIndex += 1 }
            let seg = plan.segments[segIndex]
            if seg.isSleep {
                t = dayStart + Int64(seg.end) * 1_000_000_000 + Int64(rng.exponential(mean: 600)) * 1_000_000_000
                continue
            }
            let end = session(at: second, dayStart: dayStart, dayEnd: dayEnd, segment: seg, plan: plan, weekday: weekday,
                              emit: emit, feed: feed, truth: &truth)
            lastSessionNanos = dayStart + Int64(second) * 1_000_000_000
            lastSessionEndNanos = end
            lastSessionSegment = seg
            t = lastSessionNanos + minimumGap + Int64(rng.exponential(mean: model.sessionGapMean(after: seg))) * 1_000_000_000
            t = max(t, end + 10_000_000_000)
        }
        activeHints.removeAll { $0.until <= dayEnd }
        logger?.carry(unseen(before: .max))

        pending.sort { $0.nanos != $1.nanos ? $0.nanos < $1.nanos : $0.seq < $1.seq }
        var events: [Event] = []
        events.reserveCapacity(pending.count)
        for p in pending {
            let id: String
            if inHistory {
                historyEventCounter += 1
                id = "h" + String(historyEventCounter)
            } else {
                eventCounter += 1
                id = "e" + String(eventCounter)
            }
            events.append(Event(time: EventTime(nanosecondsSinceEpoch: p.nanos, utcOffsetSeconds: p.offset),
                                user: user, id: id, payload: p.payload))
        }
        return SimulatedDay(index: day, events: events, truth: truth)
    }

    /// What the logger shows on `stack` at `time`: each widget's probability (in the stack's
    /// order) and the index drawn. Every logger takes exactly one draw of the person's
    /// generator, so the person's later draws do not depend on which logger runs.
    private mutating func logDisplay(stack s: (id: String, widgets: [Int]), hour: Int, at time: EventTime) -> ([Double], Int) {
        let n = s.widgets.count
        var pi: [Double]
        switch variant.logger {
        case .timeOfDay, .mfu:
            let slot = loggerSlot(s.id)
            func count(_ w: Int) -> Double {
                if variant.logger == .timeOfDay { return loggerCounts[slot][hour * model.catalog.count + w] }
                var total = 0.0
                for h in 0..<24 { total += loggerCounts[slot][h * model.catalog.count + w] }
                return total
            }
            var best = 0
            for k in 1..<n where count(s.widgets[k]) > count(s.widgets[best]) { best = k }
            // Rounded to 12 decimals so the log shows 0.775, not 0.7749999999999999.
            let explore = (Self.epsilon / Double(n) * 1e12).rounded() / 1e12
            pi = [Double](repeating: explore, count: n)
            pi[best] = ((1 - Self.epsilon + explore) * 1e12).rounded() / 1e12
        case .uniform:
            pi = [Double](repeating: (1 / Double(n) * 1e12).rounded() / 1e12, count: n)
        case .engine:
            _ = rng.nextDouble()
            let widgets = s.widgets.map { model.catalog[$0].id }
            if let engine = loggerEngine, case let (p, shown?) = engine.decide(stack: s.id, widgets: widgets, at: time) {
                return (p.map { ($0 * 1e12).rounded() / 1e12 }, shown)
            }
            // Nothing eligible for the engine: the phone shows the stack's first widget.
            pi = [Double](repeating: 0, count: n)
            pi[0] = 1
            return (pi, 0)
        }
        return (pi, rng.pick(weights: pi))
    }

    /// Whether the phone records events of `payload`'s kind under this variant (what the
    /// engine logger may learn from).
    private var recordedTypes: (EventPayload) -> Bool {
        let screenOn = variant.recordsScreenOn
        return { payload in
            switch payload {
            case .screenOn, .widgetImpression, .widgetTap, .widgetSwipe: screenOn
            default: true
            }
        }
    }

    private mutating func loggerSlot(_ stack: String) -> Int {
        if let slot = loggerStack[stack] { return slot }
        loggerCounts.append([Double](repeating: 0, count: 24 * model.catalog.count))
        loggerStack[stack] = loggerCounts.count - 1
        return loggerCounts.count - 1
    }

    private func segment(at second: Int, in plan: DayPlan) -> Segment {
        plan.segments.last { $0.start <= second } ?? plan.segments[0]
    }

    private mutating func emitTransition(into seg: Segment, plan: DayPlan,
                                         emit: (Double, Int32, EventPayload) -> Void) {
        let s = Double(seg.start)
        if let last = lastKind, last == seg.kind { return }
        switch seg.kind {
        case .travel(_, _, let motion):
            emit(s, seg.offset, .context(key: "motion", value: motion.rawValue))
            if !headphonesOn && rng.chance(model.headphonesChance(motion)) {
                headphonesOn = true
                emit(s + rng.uniform(20...120), seg.offset, .context(key: "headphones", value: "connected"))
            }
            if charging {
                charging = false
                emit(s, seg.offset, .context(key: "charging", value: "false"))
            }
        case .stay(let place), .sleep(let place):
            let wasTravel: Bool
            if case .travel = lastKind { wasTravel = true } else { wasTravel = false }
            if wasTravel {
                emit(s, seg.offset, .context(key: "motion", value: "stationary"))
                if headphonesOn {
                    headphonesOn = false
                    emit(s + rng.uniform(10...90), seg.offset, .context(key: "headphones", value: "disconnected"))
                }
            }
            if place != lastPlace {
                if lastPlace == -1 || rng.chance(0.85) {
                    // Drawn in every mode so the person's later draws do not depend on the recorder.
                    let delay = rng.uniform(30...240)
                    if variant.location == .dense { emit(s + delay, seg.offset, .place(model.places[place].name)) }
                }
                lastPlace = place
            }
            if seg.isSleep && !charging {
                charging = true
                emit(s + rng.uniform(0...600), seg.offset, .context(key: "charging", value: "true"))
            } else if !seg.isSleep && charging {
                charging = false
                emit(s + rng.uniform(0...900), seg.offset, .context(key: "charging", value: "false"))
            }
        }
    }

    private mutating func emitFixes(_ seg: Segment, emit: (Double, Int32, EventPayload) -> Void) {
        let interval: ClosedRange<Double>
        switch seg.kind {
        case .travel(_, _, .flying): return
        case .travel: interval = 120...360
        case .stay: interval = 1200...2700
        case .sleep: interval = 3600...7200
        }
        var s = Double(seg.start) + (seg.start == 0 && lastKind != nil ? rng.uniform(interval) : rng.uniform(15...90))
        while s < Double(seg.end) {
            let (lat, lon) = position(seg, at: s)
            // Drawn in every mode so the person's later draws do not depend on the recorder.
            let payload = fix(lat, lon)
            if variant.location == .dense { emit(s, seg.offset, payload) }
            s += rng.uniform(interval)
        }
    }

    /// What the sparse location modes (`change-only`, `visits`, `geofence`) record for segment
    /// `index` of `plan`. An arrival is a stay or sleep at another place than the last one
    /// reported; leaving a place (any travel) makes the next stay an arrival, even back at the
    /// same place. Draws come from the recorder's own generator.
    private mutating func recordSparseLocation(segment index: Int, of plan: DayPlan,
                                               emit: (Double, Int32, EventPayload) -> Void) {
        let seg = plan.segments[index]
        guard variant.location != .none else { return }
        switch seg.kind {
        case .travel:
            let wasAtPlace: Bool
            if let last = lastKind, case .travel = last { wasAtPlace = false } else { wasAtPlace = lastKind != nil }
            if variant.location == .visits && wasAtPlace && arrivalPlace >= 0 {
                // iOS reports a departure a few minutes after it, with the visit's coordinates.
                let at = min(Double(seg.start) + recorderRNG.uniform(30...240), Double(seg.end - 1))
                emit(at, seg.offset, sparseFix(at: arrivalPlace))
            }
            arrivalPlace = -1
        case .stay(let place), .sleep(let place):
            guard place != arrivalPlace else { return }
            arrivalPlace = place
            if variant.location == .geofence {
                emit(Double(seg.start) + recorderRNG.uniform(30...240), seg.offset, .place(model.places[place].name))
                return
            }
            // Visit detection takes minutes; a stay shorter than that goes unreported.
            let delay = lastKind == nil ? recorderRNG.uniform(15...90) : recorderRNG.uniform(60...600)
            var runEnd = seg.end
            var next = index + 1
            while next < plan.segments.count, plan.segments[next].place == place {
                runEnd = plan.segments[next].end
                next += 1
            }
            let reachesDayEnd = next == plan.segments.count
            let at = Double(seg.start) + delay
            guard at < Double(runEnd) || reachesDayEnd else { return }
            emit(at, seg.offset, sparseFix(at: place))
        }
    }

    /// A fix from a significant-change or visit service: mostly within tens of metres (70%),
    /// sometimes a few hundred (20%), sometimes a cell-tower guess over a kilometre off (10%),
    /// each with an `accuracy` of the same order as its error.
    private mutating func sparseFix(at place: Int) -> EventPayload {
        let kind = recorderRNG.nextDouble()
        let error: Double, accuracy: Double
        if kind < 0.7 {
            error = abs(recorderRNG.normal()) * 25
            accuracy = 20 + abs(recorderRNG.normal()) * 40
        } else if kind < 0.9 {
            error = recorderRNG.uniform(80...250)
            accuracy = recorderRNG.uniform(150...400)
        } else {
            error = recorderRNG.uniform(300...1500)
            accuracy = recorderRNG.uniform(500...2000)
        }
        let p = model.places[place]
        let (lat, lon) = Shape.nearby(p.lat, p.lon, meters: error, &recorderRNG)
        return .location(lat: round6(lat), lon: round6(lon), accuracy: (accuracy * 10).rounded() / 10)
    }

    private func position(_ seg: Segment, at s: Double) -> (Double, Double) {
        switch seg.kind {
        case .stay(let p), .sleep(let p):
            return (model.places[p].lat, model.places[p].lon)
        case .travel(let a, let b, _):
            let f = min(1, max(0, (s - Double(seg.start)) / Double(max(1, seg.end - seg.start))))
            let pa = model.places[a], pb = model.places[b]
            return (pa.lat + (pb.lat - pa.lat) * f, pa.lon + (pb.lon - pa.lon) * f)
        }
    }

    /// A noisy fix: usually within ~20 m with a small accuracy radius, sometimes (7%) far off
    /// with a large one (as indoor or network fixes are).
    private mutating func fix(_ lat: Double, _ lon: Double) -> EventPayload {
        let inaccurate = rng.chance(0.07)
        let error = inaccurate ? rng.uniform(300...1500) : abs(rng.normal()) * 12
        let (la, lo) = Shape.nearby(lat, lon, meters: error, &rng)
        let accuracy = inaccurate ? rng.uniform(400...2000) : 5 + abs(rng.normal()) * 15
        return .location(lat: round6(la), lon: round6(lo), accuracy: (accuracy * 10).rounded() / 10)
    }

    private func round6(_ x: Double) -> Double { (x * 1_000_000).rounded() / 1_000_000 }
    private func round4(_ x: Double) -> Double { (x * 10_000).rounded() / 10_000 }

    /// One session begun by a `screen_on` at `second`: the logging policy's display, the
    /// person's engagement, other apps, and the ground truth. Returns the instant of the
    /// session's last event.
    private mutating func session(at second: Int, dayStart: Int64, dayEnd: Int64, segment seg: Segment, plan: DayPlan,
                                  weekday: Int, emit: (Double, Int32, EventPayload) -> Void, feed: (Int64) -> Void,
                                  truth: inout [GroundTruthEntry]) -> Int64 {
        let nanos = dayStart + Int64(second) * 1_000_000_000
        let time = EventTime(nanosecondsSinceEpoch: nanos, utcOffsetSeconds: seg.offset)
        let catalog = model.catalog
        var hints = [Double](repeating: 0, count: catalog.count)
        var hintFrom = [Int64](repeating: .min, count: catalog.count)
        for h in activeHints where h.from <= nanos && nanos < h.until && h.from >= hintFrom[h.widget] {
            hints[h.widget] = h.score
            hintFrom[h.widget] = h.from
        }
        let sinceEngagement = lastEngagementNanos == .min ? Double.infinity : Double(nanos - lastEngagementNanos) / 1e9
        let ctx = IntentContext(hour: Double(time.localSecondsOfDay) / 3600, weekday: time.localWeekday,
                                day: day, second: second, segment: seg, previousWidget: previousWidget,
                                recentEngagements: recentEngagements, secondsSinceEngagement: sinceEngagement,
                                hints: hints, plan: plan)
        for i in weights.indices { weights[i] = 0 }
        model.intent(ctx, into: &weights)
        var stacked = [Bool](repeating: false, count: catalog.count)
        for s in currentStacks { for w in s.widgets { stacked[w] = true } }
        // With a chosen stack size the person still needs the widgets left out, and opens their
        // apps directly; otherwise needs are spread over the stacked widgets only (as always).
        let needsOutsideStacks = variant.stackSize != nil
        var total = 0.0
        for i in weights.indices {
            if stacked[i] || needsOutsideStacks { weights[i] = max(0, weights[i]); total += weights[i] } else { weights[i] = 0 }
        }
        let pEngage = total > 0 ? min(0.95, max(0, model.engageProbability(ctx))) : 0
        var intent = weights
        for i in intent.indices { intent[i] = total > 0 ? pEngage * weights[i] / total : 0 }
        let pNone = 1 - pEngage

        // The logging policy (the variant's logger) shows one widget per stack, at random.
        let hour = time.localHour
        var shown: [Int] = []
        var propensities: [[Double]] = []
        let recordsSession = variant.recordsScreenOn && !inHistory
        if recordsSession { emit(Double(second), seg.offset, .screenOn) }
        if loggerEngine != nil && !inHistory { feed(nanos) }
        // Before the stacks exist nothing is shown: every need is met by opening the app.
        for s in currentStacks where !inHistory {
            let (pi, k) = logDisplay(stack: s, hour: hour, at: time)
            shown.append(k)
            propensities.append(pi)
            if recordsSession {
                emit(Double(second), seg.offset, .widgetImpression(stack: s.id, widget: catalog[s.widgets[k]].id,
                                                                   propensity: pi[k], policy: loggingPolicyName))
            }
        }

        // The person's intent, then what they actually do given what was shown.
        var targets = intent
        targets.append(pNone)
        let target = rng.pick(weights: targets)
        var engagedStack = -1
        var engagedWidget = -1
        var via = 0  // 0 tap on shown, 1 swipe then tap, 2 launch the app directly
        if inHistory {
            if target < catalog.count { engagedWidget = target; via = 2 }
        } else if target == catalog.count {
            if rng.chance(Self.temptation) && !currentStacks.isEmpty {
                engagedStack = rng.nextInt(below: currentStacks.count)
                engagedWidget = currentStacks[engagedStack].widgets[shown[engagedStack]]
            }
        } else {
            engagedWidget = target
            engagedStack = currentStacks.firstIndex { $0.widgets.contains(target) } ?? -1
            if engagedStack >= 0, currentStacks[engagedStack].widgets[shown[engagedStack]] != target {
                via = rng.chance(0.2) ? 1 : 2
            } else if engagedStack < 0 {
                via = 2
            }
        }
        let previousApp = previousWidget
        var cursor = Double(second) + rng.uniform(4...90)
        var lastSecond = Double(second)
        var launchSecond: Double?
        if engagedWidget >= 0 {
            let widget = catalog[engagedWidget]
            if engagedStack >= 0 {
                let s = currentStacks[engagedStack]
                if via == 1 {
                    let swipeAt = cursor - rng.uniform(1...3)
                    if variant.recordsScreenOn {
                        emit(swipeAt, seg.offset, .widgetSwipe(stack: s.id, from: catalog[s.widgets[shown[engagedStack]]].id, to: widget.id))
                    }
                }
                if via <= 1 {
                    // A usage-statistics recorder sees the app the tap opens, not the tap.
                    if variant.recordsScreenOn { emit(cursor, seg.offset, .widgetTap(widget: widget.id, stack: s.id)) }
                    cursor += 1
                }
                loggerCounts[loggerSlot(s.id)][hour * catalog.count + engagedWidget] += 1
                launchSecond = cursor
            }
            emit(cursor, seg.offset, .appLaunch(app: widget.app ?? widget.id))
            lastSecond = cursor
            previousWidget = engagedWidget
            recentEngagements.insert(engagedWidget, at: 0)
            if recentEngagements.count > 3 { recentEngagements.removeLast() }
            lastEngagementNanos = dayStart + Int64(cursor.rounded()) * 1_000_000_000
        }
        if !model.otherApps.isEmpty && rng.chance(model.otherAppChance) {
            cursor += rng.uniform(20...300)
            emit(cursor, seg.offset, .appLaunch(app: model.otherApps[rng.nextInt(below: model.otherApps.count)]))
            lastSecond = cursor
            previousWidget = -1
        }

        // Ground truth per stack.
        let lift = pNone * Self.temptation / Double(max(1, currentStacks.count))
        if recordsSession {
            for (k, s) in currentStacks.enumerated() {
                var distribution: [WidgetProbability] = []
                var intentList: [WidgetProbability] = []
                distribution.reserveCapacity(s.widgets.count)
                intentList.reserveCapacity(s.widgets.count)
                for (j, w) in s.widgets.enumerated() {
                    let id = catalog[w].id
                    distribution.append(WidgetProbability(widget: id, probability: round4(intent[w] + lift * propensities[k][j])))
                    intentList.append(WidgetProbability(widget: id, probability: round4(intent[w])))
                }
                truth.append(GroundTruthEntry(
                    user: user, time: time, stack: s.id, distribution: distribution,
                    engaged: engagedStack == k ? catalog[engagedWidget].id : nil,
                    shown: catalog[s.widgets[shown[k]]].id, lift: round4(lift), intent: intentList))
            }
        } else if let launchSecond {
            truth += launchTruth(at: launchSecond, dayStart: dayStart, dayEnd: dayEnd, plan: plan, engagedStack: engagedStack,
                                 engagedWidget: engagedWidget, previousApp: previousApp, intent: intent, lift: lift,
                                 propensities: propensities)
        }
        return min(dayStart + Int64(lastSecond.rounded()) * 1_000_000_000, dayEnd - 1_000_000_000)
    }

    /// The ground truth of data without `screen_on`, whose decision points are the launches of
    /// stacked widgets' apps: at the launch of `engagedWidget` (stack `engagedStack`), the
    /// probability of each widget of that stack given that one of them is launched now, and 0
    /// for every other stack (a session engages one widget at most).
    ///
    /// The evaluator merges a launch of the app launched just before it (no `screen_on` in
    /// between tells a new use from the same one), so such a launch is never a decision point:
    /// the widget of `previousApp` has probability 0 here.
    private func launchTruth(at second: Double, dayStart: Int64, dayEnd: Int64, plan: DayPlan, engagedStack: Int,
                             engagedWidget: Int, previousApp: Int, intent: [Double], lift: Double,
                             propensities: [[Double]]) -> [GroundTruthEntry] {
        let catalog = model.catalog
        let n = min(dayStart + Int64(second.rounded()) * 1_000_000_000, dayEnd - 1_000_000_000)
        let within = Int((n - dayStart) / 1_000_000_000)
        let offset = segment(at: within, in: plan).offset
        let time = EventTime(nanosecondsSinceEpoch: n, utcOffsetSeconds: offset)
        var entries: [GroundTruthEntry] = []
        for (k, s) in currentStacks.enumerated() {
            var raw = [Double](repeating: 0, count: s.widgets.count)
            if k == engagedStack {
                for (j, w) in s.widgets.enumerated() where !(previousApp >= 0 && catalog[w].app == catalog[previousApp].app) {
                    raw[j] = intent[w] + lift * propensities[k][j]
                }
            }
            let sum = raw.reduce(0, +)
            let distribution = s.widgets.enumerated().map { j, w in
                WidgetProbability(widget: catalog[w].id, probability: sum > 0 ? round4(raw[j] / sum) : 0)
            }
            entries.append(GroundTruthEntry(user: user, time: time, stack: s.id, distribution: distribution,
                                            engaged: k == engagedStack ? catalog[engagedWidget].id : nil))
        }
        return entries
    }
}
