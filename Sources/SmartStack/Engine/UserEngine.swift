import Foundation

/// One user's engine: features, scorer and rotation state, fed in time order. Single-threaded
/// (one per user during replay); the host-facing `Engine` wraps many of these safely.
///
/// ```swift
/// let engine = try UserEngine(user: "u00", policy: PolicySpec(parsing: "contextual"))
/// for event in events { engine.record(event) }
/// let ranking = try engine.ranking(stack: "home", at: now)      // scores + reasons
/// let decision = try engine.decide(stack: "home", at: now)      // what is shown on top
/// ```
///
/// ## What it learns
/// An *engagement* of a widget is a launch of its app or a tap on it (a swipe to it counts
/// half). Per widget the engine keeps engagement counts decayed with `half_life` (14 d), a
/// short-term count (`recent_half_life`, 1 h), counts per local 15-minute bin of the day split
/// weekday/weekend (read through a circular von Mises kernel of `bandwidth` 45 min, so 23:50 is
/// next to 00:10), per place, per previous app (and gap since it: < 5 min, < 30 min, < 2 h,
/// < 12 h), per context key=value, its relevance hints, and its rejections (swipes away; a
/// quarter for an impression after which the person engaged another widget of the stack
/// within 10 min — a glance that engages nothing is no evidence). Places come from `place`
/// events (valid 12 h) or from `location` fixes clustered online within 150 m (fixes with
/// `accuracy` over 250 m are ignored, coarser fixes move a place's centre less; valid 2 h).
///
/// ## How `contextual` scores
/// A naive-Bayes sum of log-ratios, one per signal: how much likelier the widget is to be the
/// next engaged given this time of day, place, previous app, context and recent use than in
/// general. Each specific distribution is smoothed toward the more general one with `prior`
/// pseudo-counts (previous app + gap → previous app → overall; weekday-or-weekend time →
/// any-day time → overall; overall → configured order), so thin data backs off smoothly. A
/// relevance hint adds `2 · (score / widget's own max hint − 0.5)`; a hint `<= 0` makes the
/// widget ineligible for its `duration` (no duration: until its next hint) under every policy.
/// Cold start: the configured order, then hints, then usage as it accumulates. The weights of
/// the signals start at 1 (0.5 for context pairs, 2 for hints) and are learned online by a
/// softmax-regression gradient step (`learning_rate`, default 0.02), which corrects naive-Bayes
/// double counting per person: at each `screen_on`, every stack's features are kept as scored
/// then, and the first widget of the stack engaged within 10 min trains on them (the question a
/// decision at screen-on answers); an engagement with no screen-on in the 10 min before it
/// trains when it starts a session (at least 5 min after the previous app launch). `bandit` is
/// the same model with `learning_rate` 0.05 that explores (epsilon-greedy or softmax) from a
/// seeded generator and reports its propensity.
///
/// ## Cost and determinism
/// Work per event is O(1) amortised (O(stacks · widgets) for a `screen_on` or a session start
/// while weights are learned); a ranking is O(widgets) plus small per-context lookups, never a
/// scan of past events. Answers are a deterministic function of the events recorded and the
/// seed.
///
/// ## Late events
/// Events older than the newest seen are accepted and never reorder anything: they are counted
/// with the decay weight and local time of day of their own time (exactly as if on time), under
/// the place, context and previous app current when they arrive. A late hint, pin, place,
/// context, swipe or stack configuration older than the one in force does not replace it.
/// Events are not filtered by `user`: the caller routes each user's events to that user's
/// engine.
public final class UserEngine {
    /// Whose events this engine learns from.
    public let user: String
    /// The policy's name as shown in rankings (`PolicySpec.description` or the scorer's name).
    public let policyName: String
    /// Whether rankings carry reasons (default `true`). Turning it off makes ranking and
    /// deciding cheaper, e.g. during replay where reasons are not read.
    public var explainsRankings = true

    // Internal state. Stored properties skip dynamic exclusivity checks: a UserEngine is used
    // by one caller at a time (it is not Sendable) and never accesses a property overlappingly.
    let policy: ResolvedPolicy
    let rotationParameters: RotationParameters
    /// A `let`, so reading it costs no reference count (a `var` would be retained around every
    /// call into it, in case the call replaced it).
    let features: FeatureState
    @exclusivity(unchecked) var rotation = RotationState()
    @exclusivity(unchecked) var bandit = BanditModel()
    @exclusivity(unchecked) var generator: SeededGenerator
    let external: (any WidgetScorer)?
    @exclusivity(unchecked) var scratch = ScoringScratch()
    @exclusivity(unchecked) var learningScratch = ScoringScratch()
    /// Events recorded so far: tells whether the state changed since a stack was scored.
    @exclusivity(unchecked) var recordCount: UInt64 = 0
    /// Per stack, the contextual features `score` computed last, when weights are learned: the
    /// learning step at the same instant with nothing recorded since reuses them (they are
    /// bit-identical to a recomputation), so a decision followed by its screen-on or engagement
    /// computes them once.
    @exclusivity(unchecked) var lastScored: [ScoredFeatures] = []

    /// A stack's features as scored at `time` after `recordCount` events.
    struct ScoredFeatures {
        var time: EventTime
        var recordCount: UInt64
        var features: [Double]
    }

    /// An engine running a built-in policy, with its own seeded generator.
    public convenience init(user: String, policy: PolicySpec, rotation: RotationParameters = RotationParameters(), seed: UInt64 = 0) throws(EngineError) {
        let resolved = try ResolvedPolicy(policy)
        self.init(user: user, resolved: resolved, name: policy.description, rotation: rotation, seed: seed, external: nil)
    }

    /// An engine running an outside scorer under the same rotation policy.
    public convenience init(user: String, scorer: any WidgetScorer, name: String, rotation: RotationParameters = RotationParameters()) {
        self.init(user: user, resolved: ResolvedPolicy(kind: .external), name: name, rotation: rotation, seed: 0, external: scorer)
    }

    /// The designated initializer; `features` is a restored state (a new one if `nil`).
    init(user: String, resolved: ResolvedPolicy, name: String, rotation: RotationParameters, seed: UInt64, external: (any WidgetScorer)?,
         features: FeatureState? = nil) {
        self.user = user
        self.policyName = name
        self.policy = resolved
        self.rotationParameters = rotation
        self.features = features ?? FeatureState(
            halfLife: resolved.halfLife, recentHalfLife: resolved.recentHalfLife,
            frecencyHalfLife: resolved.frecencyHalfLife, bandwidth: resolved.bandwidth)
        self.generator = SeededGenerator(seed: seed ^ SeededGenerator.hash(user))
        self.external = external
    }

    /// Learns from one event (late events accepted).
    public func record(_ event: Event) {
        withUnsafePointer(to: event) { record(at: $0) }
    }

    /// The same as ``record(_:)`` for an event read in place: a replay passes events straight
    /// from its buffer. Every use reads `event.pointee` where it is needed: a call across
    /// modules, or to an outside scorer, would otherwise copy the event (retaining its strings)
    /// to guarantee the callee an unchanging value.
    package func record(at event: UnsafePointer<Event>) {
        if learnsWeights { learnBandit(from: event) }
        features.record(at: event)
        recordCount &+= 1
        if case .widgetSwipe(let stack, _, let to) = event.pointee.payload,
           let s = features.stacks.index(of: stack), let w = features.widgets.index(of: to) {
            let ts = event.pointee.time.secondsSinceEpoch
            rotation.ensure(stacks: Int(s) + 1)
            // A late swipe older than the current top's start does not rewrite history.
            if ts >= rotation.since[Int(s)] {
                rotation.swiped(stack: Int(s), to: w, at: ts, hold: max(0, rotationParameters.swipeHold))
            }
        }
        if case .stackConfig(let stack, _) = event.pointee.payload, let s = features.stacks.index(of: stack) {
            // A widget removed from a stack is no longer on top of it.
            rotation.ensure(stacks: Int(s) + 1)
            let top = rotation.top[Int(s)]
            if top >= 0 && !features.stackWidgets[Int(s)].contains(top) { rotation.top[Int(s)] = -1 }
        }
        if let external { external.observe(event.pointee) }
    }

    /// The stacks configured so far and their widgets, in the person's order.
    public var stacks: [String: [WidgetConfig]] {
        var result: [String: [WidgetConfig]] = [:]
        for s in 0..<features.stacks.count where features.stackConfigTime[s] > FeatureState.never {
            result[features.stacks[Int32(s)]] = features.stackConfigs[s]
        }
        return result
    }

    /// The scorer's ranking of `stack` at `time` (no rotation side effects).
    /// - Complexity: O(widgets of the stack), plus O(widgets · reasons) when explaining.
    public func ranking(stack: String, at time: EventTime) throws(EngineError) -> Ranking {
        let s = try stackIndex(stack)
        score(stack: s, at: time)
        return makeRanking(stack: s, name: stack, at: time)
    }

    /// Applies the rotation policy at a decision point and returns what is shown on top.
    /// - Complexity: O(widgets · stacks).
    public func decide(stack: String, at time: EventTime) throws(EngineError) -> RotationDecision {
        let s = try stackIndex(stack)
        score(stack: s, at: time)
        let ranking = makeRanking(stack: s, name: stack, at: time)
        let (top, previous, propensity) = rotate(stack: s, at: time)
        return RotationDecision(
            top: top >= 0 ? features.widgets[top] : nil, didRotate: top != previous,
            propensity: propensity, ranking: ranking)
    }

    /// The same decision as ``decide(stack:at:)`` with the display order written as widget names
    /// into `order` (the top, then the rest of the scorer's ranking in its order) instead of a
    /// `Ranking`: what a replay reads, without building rankings. `order`'s storage is reused,
    /// so a replay holding one buffer per stack allocates nothing per decision.
    /// - Complexity: O(widgets · stacks).
    package func decideOrder(stack: String, at time: EventTime, into order: inout [String]) throws(EngineError)
        -> (top: String?, propensity: Double) {
        decideOrder(stackIndex: try stackIndex(stack), at: time, into: &order)
    }

    /// The index of a configured stack for ``decideOrder(stackIndex:at:into:)``, `nil` if the
    /// stack is not configured. An index never changes once the stack is configured.
    package func configuredStackIndex(_ stack: String) -> Int? {
        try? stackIndex(stack)
    }

    /// ``decideOrder(stack:at:into:)`` for a stack by its index (`configuredStackIndex`), which
    /// spares a replay hashing the stack's name at every decision.
    package func decideOrder(stackIndex s: Int, at time: EventTime, into order: inout [String])
        -> (top: String?, propensity: Double) {
        score(stack: s, at: time)
        let (top, _, propensity) = rotate(stack: s, at: time)
        // `order` is overwritten in place, and only where it differs: consecutive decisions
        // mostly repeat the same order, and unchanged names then cost no reference counting.
        var filled = 0
        func put(_ w: Int32) {
            if filled == order.count {
                order.append(features.widgets.names[Int(w)])
            } else if order[filled] != features.widgets.names[Int(w)] {
                order[filled] = features.widgets.names[Int(w)]
            }
            filled += 1
        }
        if top >= 0 { put(top) }
        for k in 0..<features.stackWidgets[s].count where features.stackWidgets[s][scratch.order[k]] != top {
            put(features.stackWidgets[s][scratch.order[k]])
        }
        if order.count > filled { order.removeLast(order.count - filled) }
        return (top >= 0 ? features.widgets[top] : nil, propensity)
    }

    /// Applies the rotation policy to stack `s` scored in `scratch`: the widget now on top (-1
    /// for none), the one before, and the propensity of the pick.
    private func rotate(stack s: Int, at time: EventTime) -> (top: Int32, previous: Int32, propensity: Double) {
        // Works on `self.scratch` in place, as an inout argument (see `score(stack:at:)`).
        func run(_ scratch: inout ScoringScratch) -> (top: Int32, previous: Int32, propensity: Double) {
            rotation.ensure(stacks: features.stacks.count)
            let widgets = features.stackWidgets[s]
            let n = widgets.count
            let ts = time.secondsSinceEpoch
            let today = Int32(clamping: time.localDayNumber)
            let previous = rotation.top[s]

            var top: Int32 = -1
            var propensity = 1.0
            let pin = features.stackPins[s]
            if pin >= 0, widgets.contains(pin) {
                top = pin
            } else {
                // The scorer's distribution over candidates (eligible, not on top elsewhere).
                if scratch.probabilities.count < n { scratch.probabilities = [Double](repeating: 0, count: n) }
                var candidates = 0
                var greedy = -1
                for k in 0..<n {
                    let i = scratch.order[k]
                    scratch.probabilities[i] = 0
                    if scratch.eligible[i] && !rotation.isOnTopElsewhere(widgets[i], except: s) {
                        candidates += 1
                        if greedy < 0 { greedy = i }
                    }
                }
                var pick = greedy
                if candidates > 0 {
                    if policy.kind == .bandit {
                        explorationDistribution(&scratch, widgets: widgets, stack: s, candidates: candidates, greedy: greedy)
                        var u = generator.nextUnit()
                        pick = -1
                        for i in 0..<n where scratch.probabilities[i] > 0 {
                            pick = i
                            u -= scratch.probabilities[i]
                            if u < 0 { break }
                        }
                    } else {
                        scratch.probabilities[greedy] = 1
                    }
                }
                top = resolve(pick, scratch, stack: s, widgets: widgets, at: ts, today: today)
                if candidates > 0 && policy.kind == .bandit {
                    propensity = 0
                    for i in 0..<n where scratch.probabilities[i] > 0 {
                        if resolve(i, scratch, stack: s, widgets: widgets, at: ts, today: today) == top {
                            propensity += scratch.probabilities[i]
                        }
                    }
                }
            }
            rotation.show(top, stack: s, previous: previous, at: ts, today: today)
            return (top, previous, propensity)
        }
        return run(&scratch)
    }

    /// The bandit's exploration probabilities over candidates into `scratch.probabilities`.
    private func explorationDistribution(_ scratch: inout ScoringScratch, widgets: [Int32], stack s: Int, candidates: Int, greedy: Int) {
        let n = widgets.count
        switch policy.exploration {
        case .epsilon:
            let e = policy.epsilon
            for i in 0..<n where scratch.eligible[i] && !rotation.isOnTopElsewhere(widgets[i], except: s) {
                scratch.probabilities[i] = e / Double(candidates) + (i == greedy ? 1 - e : 0)
            }
        case .softmax:
            var m = -Double.infinity
            for i in 0..<n where scratch.eligible[i] && !rotation.isOnTopElsewhere(widgets[i], except: s) {
                m = max(m, scratch.scores[i])
            }
            var total = 0.0
            for i in 0..<n where scratch.eligible[i] && !rotation.isOnTopElsewhere(widgets[i], except: s) {
                let v = (scratch.scores[i] - m) / policy.temperature
                scratch.probabilities[i] = max(exp(v), 1e-300)
                total += scratch.probabilities[i]
            }
            for i in 0..<n { scratch.probabilities[i] /= total }
        }
    }

    /// The widget on top if the scorer proposes row `candidate` (or nothing, -1).
    private func resolve(_ candidate: Int, _ scratch: borrowing ScoringScratch, stack s: Int, widgets: [Int32], at ts: Double, today: Int32) -> Int32 {
        let p = rotationParameters
        let hold = rotation.holdWidget[s]
        if hold >= 0, ts < rotation.holdUntil[s], let j = widgets.firstIndex(of: hold), scratch.eligible[j] {
            return hold
        }
        let current = rotation.top[s]
        let ci = current >= 0 ? widgets.firstIndex(of: current) : nil
        let currentValid = ci.map { scratch.eligible[$0] } == true && !rotation.isOnTopElsewhere(current, except: s)
        guard candidate >= 0 else { return currentValid ? current : -1 }
        let challenger = widgets[candidate]
        guard currentValid, let ci else { return challenger }
        if challenger == current { return current }
        if ts - rotation.since[s] < p.minimumDwell { return current }
        if rotation.rotations(stack: s, today: today) >= p.maximumRotationsPerDay { return current }
        if p.hysteresisMargin <= 0 { return challenger }
        let strongest = strength(candidate, scratch, widgets: widgets)
        guard strongest > 0 else { return current }
        let gain = (strongest - strength(ci, scratch, widgets: widgets)) / strongest
        return gain >= p.hysteresisMargin ? challenger : current
    }

    /// Minimum seconds since the previous app launch for an engagement with no screen-on just
    /// before it to train the weights.
    static let sessionGap = 300.0
    /// Seconds after a screen-on within which an engagement trains on the stacks as scored at
    /// that screen-on (the evaluator's default attribution window).
    static let sessionWindow = 600.0

    /// Whether the signal weights are learned online (`bandit`, or `contextual` with a
    /// positive `learning_rate`).
    var learnsWeights: Bool {
        policy.kind == .bandit || (policy.kind == .contextual && policy.learningRate > 0)
    }

    /// A positive strength of row `i` for hysteresis, so the margin means "the challenger is
    /// that much stronger" for every scorer: `exp(score)` for the log-scale `contextual` and
    /// `bandit` scores (relative to the best), `1 / (1 + hours since use)` for `mru`, the score
    /// itself for the count-like baselines, and the position within the eligible score range
    /// for an outside scorer.
    private func strength(_ i: Int, _ scratch: borrowing ScoringScratch, widgets: [Int32]) -> Double {
        let score = scratch.scores[i]
        switch policy.kind {
        case .contextual, .bandit:
            var best = -Double.infinity
            for j in 0..<widgets.count where scratch.eligible[j] { best = max(best, scratch.scores[j]) }
            return best.isFinite ? exp(score - best) : 0
        case .mru:
            return 1 / (1 + max(0, -score))
        case .staticOrder, .roundRobin, .mfu, .frecency, .timeOfDay:
            return max(0, score)
        case .external:
            var lo = Double.infinity, hi = -Double.infinity
            for j in 0..<widgets.count where scratch.eligible[j] && scratch.scores[j].isFinite {
                lo = min(lo, scratch.scores[j]); hi = max(hi, scratch.scores[j])
            }
            guard hi > lo, score.isFinite else { return score == hi ? 1 : 0 }
            return (score - lo) / (hi - lo)
        }
    }

    func stackIndex(_ name: String) throws(EngineError) -> Int {
        if let s = features.stacks.index(of: name), features.stackConfigTime[Int(s)] > FeatureState.never {
            return Int(s)
        }
        let known = stacks.keys.sorted()
        throw EngineError(.unknownStack, "unknown stack '\(name)' for user '\(user)' (known: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
    }

    /// Scores stack `s` into `scratch.scores`, `scratch.eligible` and `scratch.order`.
    func score(stack s: Int, at time: EventTime) {
        let widgets = features.stackWidgets[s]
        let n = widgets.count
        let ts = time.secondsSinceEpoch
        // Works on `self.scratch` in place, as an inout argument: no swap or copy of its
        // buffers and no per-access checks (nothing else reads it meanwhile).
        func rank(_ scratch: inout ScoringScratch) {
            scratch.prepareRanking(widgets: n)
            switch policy.kind {
            case .contextual, .bandit:
                ContextualModel.features(features, widgets: widgets, at: time, prior: policy.prior, scratch: &scratch)
                let F = ContextualModel.featureCount
                // Weights are subscripted in place (a local copy of the array costs a reference count).
                scratch.withFeaturesAndScores { x, scores in
                    for i in 0..<n {
                        var v = 0.0
                        if learnsWeights {
                            for k in 0..<F { v += bandit.theta[k] * x[i * F + k] }
                        } else {
                            for k in 0..<F { v += ContextualModel.defaultWeights[k] * x[i * F + k] }
                        }
                        scores[i] = v
                    }
                }
            case .external:
                let given = external?.scores(stack: features.stacks[Int32(s)], widgets: features.stackConfigs[s], at: time) ?? []
                for i in 0..<n { scratch.scores[i] = i < given.count && !given[i].isNaN ? given[i] : -Double.infinity }
            default:
                Baselines.scores(policy.kind, policy: policy, features, widgets: widgets, at: time, into: &scratch.scores)
            }
            // Order: pinned, eligible by score (ties: configured order), ineligible in order.
            let pin = features.stackPins[s]
            scratch.withRanking { scores, eligible, order in
                for i in 0..<n { eligible[i] = features.isEligible(Int(widgets[i]), at: ts) }
                for i in 0..<n { order[i] = i }
                @inline(__always) func before(_ a: Int, _ b: Int) -> Bool {
                    let pa = widgets[a] == pin, pb = widgets[b] == pin
                    if pa != pb { return pa }
                    if eligible[a] != eligible[b] { return eligible[a] }
                    if eligible[a] && scores[a] != scores[b] { return scores[a] > scores[b] }
                    return a < b
                }
                if n > 1 {
                    for i in 1..<n {
                        let x = order[i]
                        var j = i - 1
                        while j >= 0 && before(x, order[j]) { order[j + 1] = order[j]; j -= 1 }
                        order[j + 1] = x
                    }
                }
            }
        }
        rank(&scratch)
        if learnsWeights {  // contextual or bandit: `scratch.features` holds this stack's features
            let m = n * ContextualModel.featureCount
            while lastScored.count <= s {
                lastScored.append(ScoredFeatures(time: time, recordCount: .max, features: []))
            }
            lastScored[s].time = time
            lastScored[s].recordCount = recordCount
            scratch.features.withUnsafeBufferPointer { lastScored[s].features.overwrite(withFirst: m, of: $0) }
        }
    }

    /// Whether `lastScored[s]` holds the features of stack `s` (of `n` widgets) at `time`, with
    /// nothing recorded since.
    private func hasScored(stack s: Int, widgets n: Int, at time: EventTime) -> Bool {
        s < lastScored.count && lastScored[s].recordCount == recordCount && lastScored[s].time == time
            && lastScored[s].features.count == n * ContextualModel.featureCount
    }

    /// The contextual features of stack `s` at `time` (rows `0..<widgets.count`): those `score`
    /// kept for the same instant when nothing was recorded since, otherwise computed into
    /// `learningScratch`.
    private func learningFeatures(stack s: Int, widgets: [Int32], at time: EventTime) -> [Double] {
        if hasScored(stack: s, widgets: widgets.count, at: time) { return lastScored[s].features }
        ContextualModel.features(features, widgets: widgets, at: time, prior: policy.prior, scratch: &learningScratch)
        return learningScratch.features
    }

    private func makeRanking(stack s: Int, name: String, at time: EventTime) -> Ranking {
        let widgets = features.stackWidgets[s]
        var result: [RankedWidget] = []
        result.reserveCapacity(widgets.count)
        let pin = features.stackPins[s]
        for k in 0..<widgets.count {
            let i = scratch.order[k]
            let w = widgets[i]
            let reasons = explainsRankings ? explanation(row: i, widget: Int(w), stack: s, at: time, isPinned: w == pin) : []
            result.append(RankedWidget(widget: features.widgets[w], score: scratch.scores[i], isEligible: scratch.eligible[i], reasons: reasons))
        }
        return Ranking(stack: name, user: user, at: time, policy: policyName, widgets: result)
    }

    /// Learns the signal weights from one event, before it is recorded (see `BanditModel`).
    ///
    /// A `screen_on` keeps every multi-widget stack's features as scored at that instant; the
    /// first widget of each such stack engaged within `sessionWindow` after it trains on them —
    /// the question a decision at screen-on answers. An engagement with no screen-on in the
    /// window before it (data without screen-on events, or a long session) trains instead when
    /// it starts a session (at least `sessionGap` after the previous app launch), from the state
    /// just before it; the rest of each session is skipped, which keeps recording cheap.
    private func learnBandit(from event: UnsafePointer<Event>) {
        let ts = event.pointee.time.secondsSinceEpoch
        // The engaged widgets: those of app `app` (>= 0), or the single widget `single`.
        var app = -1
        var single: Int32 = -1
        switch event.pointee.payload {
        case .screenOn:
            keepForLearning(at: event.pointee.time)
            return
        case .appLaunch(let name):
            guard let a = features.apps.index(of: name) else { return }
            app = Int(a)
        case .widgetTap(let widget, _):
            guard let w = features.widgets.index(of: widget) else { return }
            single = w
        case .widgetSwipe(_, _, let to):
            guard let w = features.widgets.index(of: to) else { return }
            single = w
        default:
            return
        }
        // Read in place, in order (no array is built or copied per event).
        let count = app >= 0 ? features.appWidgets[app].count : 1
        @inline(__always) func engaged(_ k: Int) -> Int32 { app >= 0 ? features.appWidgets[app][k] : single }
        let sinceScreenOn = ts - bandit.pendingTime
        if sinceScreenOn >= 0 && sinceScreenOn <= Self.sessionWindow {
            for k in 0..<count {
                bandit.learnPending(engaged: engaged(k), rate: policy.learningRate, probabilities: &learningScratch.probabilities)
            }
            return
        }
        if sinceScreenOn > Self.sessionWindow { bandit.closePending() }
        guard ts - features.lastAppTime >= Self.sessionGap || features.lastAppTime > ts else { return }
        for k in 0..<count { learnBandit(engaged: engaged(k), at: event.pointee.time) }
    }

    /// Keeps the features of every stack with more than one widget as of a screen-on at `time`
    /// (a late screen-on older than the kept one is ignored).
    private func keepForLearning(at time: EventTime) {
        let ts = time.secondsSinceEpoch
        guard ts >= bandit.pendingTime else { return }
        bandit.pendingTime = ts
        let F = ContextualModel.featureCount
        var k = 0
        for s in 0..<features.stackWidgets.count where features.stackConfigTime[s] > FeatureState.never {
            let n = features.stackWidgets[s].count
            guard n > 1 else { continue }
            if k == bandit.pending.count {
                bandit.pending.append(BanditModel.PendingStack(widgets: [], features: [], isOpen: false))
            }
            // Entries are overwritten in place: their buffers are reused from one screen-on to
            // the next, and an unchanged widget list (the same buffer) is not reassigned.
            if bandit.pending[k].widgets != features.stackWidgets[s] { bandit.pending[k].widgets = features.stackWidgets[s] }
            if hasScored(stack: s, widgets: n, at: time) {
                lastScored[s].features.withUnsafeBufferPointer { bandit.pending[k].features.overwrite(withFirst: n * F, of: $0) }
            } else {
                ContextualModel.features(features, widgets: features.stackWidgets[s], at: time, prior: policy.prior, scratch: &learningScratch)
                learningScratch.features.withUnsafeBufferPointer { bandit.pending[k].features.overwrite(withFirst: n * F, of: $0) }
            }
            bandit.pending[k].isOpen = true
            k += 1
        }
        bandit.pending.removeLast(bandit.pending.count - k)
    }

    /// One online step of the bandit toward widget `w` in every stack holding it (with more than
    /// one widget), from the state now.
    private func learnBandit(engaged w: Int32, at time: EventTime) {
        for s in 0..<features.stackWidgets.count {
            let widgets = features.stackWidgets[s]
            guard widgets.count > 1, let row = widgets.firstIndex(of: w) else { continue }
            let x = learningFeatures(stack: s, widgets: widgets, at: time)
            bandit.learn(features: x, count: widgets.count, engaged: row,
                         rate: policy.learningRate, probabilities: &learningScratch.probabilities)
        }
    }
}

/// A `UserEngine` is used from one thread or task at a time; the host `Engine` serialises
/// access to many of them.
@available(*, unavailable)
extension UserEngine: Sendable {}
