/// One user's engine: features, scorer and rotation policy, fed in time order. Single-threaded
/// (one per user during replay); the host-facing `Engine` wraps many of these safely.
///
/// ```swift
/// let engine = try UserEngine(user: "u00", policy: PolicySpec(parsing: "contextual"))
/// for event in events { engine.record(event) }
/// let ranking = try engine.ranking(stack: "home", at: now)      // scores + reasons
/// let decision = try engine.decide(stack: "home", at: now)      // what is shown on top
/// ```
///
/// What it learns, how it scores, what it costs and how it treats late events: <doc:TheModel>.
/// It coordinates: `FeatureState` learns the features, `Scorer` scores and learns the signal
/// weights, `RotationPolicy` decides what is on top.
public final class UserEngine {
    /// Whose events this engine learns from.
    public let user: String
    /// The policy's name as shown in rankings (`PolicySpec.description` or the scorer's name).
    public let policyName: String
    /// Whether rankings carry reasons (default `true`). Turning it off makes ranking and
    /// deciding cheaper, e.g. during replay where reasons are not read. (Read at every ranking
    /// without a dynamic exclusivity check: a `UserEngine` is used by one caller at a time.)
    @exclusivity(unchecked) public var explainsRankings = true
    /// The population prior the policy smooths toward, if one was handed in and the policy takes
    /// it (`contextual` and `bandit` with a positive `population`).
    public var prior: PopulationPrior? { scorer.population?.prior }

    // Each a `let`, so reading it costs no reference count (a `var` would be retained around
    // every call into it, in case the call replaced it).
    let features: FeatureState
    let scorer: Scorer
    let rotation: RotationPolicy
    /// The stack `stackIndex` found last, `index` -1 before the first. Only this engine's own
    /// calls touch it, one at a time.
    @exclusivity(unchecked) private var lastStack: (name: String, index: Int) = ("", -1)

    /// An engine running a built-in policy, with its own seeded generator.
    ///
    /// `prior`: a population prior the host learnt from many people (``PopulationPrior``), which
    /// `contextual` and `bandit` smooth toward until the person's own evidence takes over
    /// (weight: the policy's `population`); `nil` (the default) for none.
    public convenience init(user: String, policy: PolicySpec, rotation: RotationParameters = RotationParameters(), seed: UInt64 = 0,
                            prior: PopulationPrior? = nil) throws(EngineError) {
        let resolved = try ResolvedPolicy(policy)
        self.init(user: user, resolved: resolved, name: policy.description, rotation: rotation, seed: seed, external: nil, prior: prior)
    }

    /// An engine running an outside scorer under the same rotation policy.
    public convenience init(user: String, scorer: any WidgetScorer, name: String, rotation: RotationParameters = RotationParameters()) {
        self.init(user: user, resolved: ResolvedPolicy(kind: .external), name: name, rotation: rotation, seed: 0, external: scorer)
    }

    /// The designated initializer; `features` is a restored state (a new one if `nil`).
    init(user: String, resolved: ResolvedPolicy, name: String, rotation: RotationParameters, seed: UInt64, external: (any WidgetScorer)?,
         features: FeatureState? = nil, prior: PopulationPrior? = nil) {
        self.user = user
        self.policyName = name
        let features = features ?? FeatureState(
            halfLife: resolved.halfLife, recentHalfLife: resolved.recentHalfLife,
            frecencyHalfLife: resolved.frecencyHalfLife, bandwidth: resolved.bandwidth, prior: resolved.prior)
        self.features = features
        features.discountsDisplay = resolved.kind == .contextual || resolved.kind == .bandit
        self.scorer = Scorer(policy: resolved, name: name, features: features, external: external, prior: prior)
        self.rotation = RotationPolicy(parameters: rotation, policy: resolved, features: features,
                                       generator: SeededGenerator(seed: seed ^ SeededGenerator.hash(user)))
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
        if scorer.learnsWeights || scorer.usesMixture { scorer.learnBandit(from: event) }
        features.record(at: event)
        scorer.recordCount &+= 1
        rotation.observe(event)
        if let external = scorer.external { external.observe(event.pointee) }
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
        scorer.score(stack: s, at: time)
        return scorer.ranking(stack: s, name: stack, user: user, at: time, explained: explainsRankings)
    }

    /// Applies the rotation policy at a decision point and returns what is shown on top.
    /// - Complexity: O(widgets · stacks).
    public func decide(stack: String, at time: EventTime) throws(EngineError) -> RotationDecision {
        let s = try stackIndex(stack)
        scorer.score(stack: s, at: time)
        let ranking = scorer.ranking(stack: s, name: stack, user: user, at: time, explained: explainsRankings)
        let (top, previous, propensity) = rotation.rotate(stack: s, at: time, scratch: &scorer.scratch)
        var probabilities: [String: Double] = [:]
        for o in rotation.outcomes where o.widget >= 0 { probabilities[features.widgets[o.widget], default: 0] += o.probability }
        return RotationDecision(
            top: top >= 0 ? features.widgets[top] : nil, didRotate: top != previous,
            propensity: propensity, ranking: ranking, topProbabilities: probabilities)
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
        scorer.score(stack: s, at: time)
        let (top, _, propensity) = rotation.rotate(stack: s, at: time, scratch: &scorer.scratch)
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
        for k in 0..<features.stackWidgets[s].count where features.stackWidgets[s][scorer.scratch.order[k]] != top {
            put(features.stackWidgets[s][scorer.scratch.order[k]])
        }
        if order.count > filled { order.removeLast(order.count - filled) }
        return (top >= 0 ? features.widgets[top] : nil, propensity)
    }

    func stackIndex(_ name: String) throws(EngineError) -> Int {
        // A host asks for the same stack again and again: comparing the name with the last one
        // costs less than hashing it. Stack indices never change (the interner only appends).
        let found = lastStack.index >= 0 && name == lastStack.name ? lastStack.index : features.stacks.index(of: name).map(Int.init)
        if let s = found, features.stackConfigTime[s] > FeatureState.never {
            if s != lastStack.index { lastStack = (name, s) }  // one index per name: same index, same name
            return s
        }
        let known = stacks.keys.sorted()
        throw EngineError(.unknownStack, "unknown stack '\(name)' for user '\(user)' (known: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
    }
}

/// A `UserEngine` is used from one thread or task at a time; the host `Engine` serialises
/// access to many of them.
@available(*, unavailable)
extension UserEngine: Sendable {}
