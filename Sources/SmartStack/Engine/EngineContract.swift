// CONTRACT STUB — owned by the engine helper, who moves these types into their own files and
// implements them (signatures are the contract other modules compile against).

/// A policy chosen by name with parameters, parsed from `name[:key=value,key=value]`,
/// e.g. `contextual:half_life=14d` or `round-robin:interval=30m`.
public struct PolicySpec: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var parameters: [String: String]
    public init(name: String, parameters: [String: String] = [:]) { self.name = name; self.parameters = parameters }
    /// Parses and validates against the registry (unknown policy or parameter throws `EngineError`).
    public init(parsing text: String) throws(EngineError) { fatalError("contract stub") }
    public var description: String { fatalError("contract stub") }
}

/// Errors of the engine, each a sentence a person can act on.
public struct EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One human-readable reason for a widget's score, with its contribution to the score.
public struct Reason: Sendable, Hashable {
    public var text: String
    public var contribution: Double
    public init(text: String, contribution: Double) { self.text = text; self.contribution = contribution }
}

/// One widget of a ranking.
public struct RankedWidget: Sendable, Hashable {
    public var widget: String
    public var score: Double
    public var isEligible: Bool
    public var reasons: [Reason]
    public init(widget: String, score: Double, isEligible: Bool, reasons: [Reason]) {
        self.widget = widget; self.score = score; self.isEligible = isEligible; self.reasons = reasons
    }
}

/// The ordered widgets of a stack for a user at an instant, top first.
public struct Ranking: Sendable, Hashable {
    public var stack: String
    public var user: String
    public var at: EventTime
    public var policy: String
    public var widgets: [RankedWidget]
    public init(stack: String, user: String, at: EventTime, policy: String, widgets: [RankedWidget]) {
        self.stack = stack; self.user = user; self.at = at; self.policy = policy; self.widgets = widgets
    }
}

/// Parameters of the rotation policy applied on top of any scorer.
public struct RotationParameters: Sendable, Hashable {
    public init() {}
}

/// What the rotation policy shows on top of a stack at a decision point.
public struct RotationDecision: Sendable, Hashable {
    /// The widget on top after this decision (`nil` if the stack has no eligible widget).
    public var top: String?
    /// Whether the top changed at this decision.
    public var didRotate: Bool
    /// The probability with which the policy picked `top` (1 for deterministic policies).
    public var propensity: Double
    /// The scorer's ranking the decision was made from.
    public var ranking: Ranking
    public init(top: String?, didRotate: Bool, propensity: Double, ranking: Ranking) {
        self.top = top; self.didRotate = didRotate; self.propensity = propensity; self.ranking = ranking
    }
}

/// A scorer supplied from outside the engine (e.g. the evaluator's oracle). Higher is better.
public protocol WidgetScorer: AnyObject {
    /// Sees every event of its user in time order.
    func observe(_ event: Event)
    /// Scores each widget of `stack` at `time`.
    func scores(stack: String, widgets: [WidgetConfig], at time: EventTime) -> [Double]
}

/// One user's engine: features, scorer and rotation state, fed in time order. Single-threaded
/// (one per user during replay); the host-facing `Engine` wraps many of these safely.
public final class UserEngine {
    /// An engine running a built-in policy, with its own seeded generator.
    public init(user: String, policy: PolicySpec, rotation: RotationParameters = RotationParameters(), seed: UInt64 = 0) throws(EngineError) { fatalError("contract stub") }
    /// An engine running an outside scorer under the same rotation policy.
    public init(user: String, scorer: any WidgetScorer, name: String, rotation: RotationParameters = RotationParameters()) { fatalError("contract stub") }
    /// Learns from one event (late events accepted).
    public func record(_ event: Event) { fatalError("contract stub") }
    /// The stacks configured so far and their widgets, in the person's order.
    public var stacks: [String: [WidgetConfig]] { fatalError("contract stub") }
    /// The scorer's ranking of `stack` at `time` (no rotation side effects).
    public func ranking(stack: String, at time: EventTime) throws(EngineError) -> Ranking { fatalError("contract stub") }
    /// Applies the rotation policy at a decision point and returns what is shown on top.
    public func decide(stack: String, at time: EventTime) throws(EngineError) -> RotationDecision { fatalError("contract stub") }
    /// Serialized state, restorable with `init(user:policy:rotation:seed:restoring:)`.
    public func snapshot() -> [UInt8] { fatalError("contract stub") }
    /// Restores an engine from `snapshot()` bytes.
    public init(user: String, policy: PolicySpec, rotation: RotationParameters = RotationParameters(), seed: UInt64 = 0, restoring snapshot: [UInt8]) throws(EngineError) { fatalError("contract stub") }
}
