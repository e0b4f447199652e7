import SmartStack

/// What a policy shows on top of one stack at a decision point, as the replay sees it.
public struct ReplayDecision: Sendable, Hashable {
    /// The widget on top after this decision (`nil` when no widget is eligible).
    public var top: String?
    /// The whole stack in display order, top first (the order accuracy metrics rank against).
    public var order: [String]
    /// The probability with which the policy picked `top` (1 for deterministic policies).
    public var propensity: Double

    /// Creates a decision; `order` should start with `top`.
    public init(top: String?, order: [String], propensity: Double = 1) {
        self.top = top
        self.order = order
        self.propensity = propensity
    }
}

/// One user's policy during replay: it learns from every event it is given and decides the top
/// of a stack at a decision point. The replay only ever gives it events strictly before the
/// instant it decides. One instance per user, used from one thread.
///
/// A policy implements `record(_:)` and `decide(stack:widgets:at:)`; the replay calls the two
/// requirements below them, whose defaults forward there. A policy overrides those only to
/// avoid copies on the replay's hot path (as `EngineReplayPolicy` does).
public protocol ReplayPolicy: AnyObject {
    /// Learns from one event (in time order).
    func record(_ event: Event)
    /// Decides the top of `stack`, whose configured widgets are `widgets`, at `time`.
    func decide(stack: String, widgets: [WidgetConfig], at time: EventTime) throws -> ReplayDecision

    /// Learns from the event at `event`, read in place. Default: `record(event.pointee)`.
    func record(at event: UnsafePointer<Event>)
    /// Decides the top of `stack`, writing its display order into `order` (whose storage the
    /// replay reuses for every decision of that stack). `slot` is the stack's number in the
    /// user's configuration order (0, 1, ...; a stack keeps it for the whole replay), so a policy
    /// can cache what it looks up per stack. Default: `decide(stack:widgets:at:)`.
    func decide(slot: Int, stack: String, widgets: [WidgetConfig], at time: EventTime, into order: inout [String]) throws -> String?
}

extension ReplayPolicy {
    /// Calls `record(_:)` with a copy of the event.
    public func record(at event: UnsafePointer<Event>) { record(event.pointee) }

    /// Calls `decide(stack:widgets:at:)` and copies its order into `order`.
    public func decide(slot: Int, stack: String, widgets: [WidgetConfig], at time: EventTime,
                       into order: inout [String]) throws -> String? {
        let decision = try decide(stack: stack, widgets: widgets, at: time)
        order = decision.order
        return decision.top
    }
}

/// A named way to build one `ReplayPolicy` per user.
///
/// ```swift
/// let factory = try PolicyFactory.engine(PolicySpec(parsing: "frecency"))
/// let policy = try factory.make("u00", 42)
/// ```
public struct PolicyFactory: Sendable {
    /// The policy's name as printed in reports.
    public var name: String
    /// The file the policy reads besides the events, if any (the oracle's ground truth): part
    /// of a partial result's identity, so partials made with different files are not merged.
    public var inputFile: PolicyInputFile?
    /// Builds the policy for a user with the per-user seed.
    public var make: @Sendable (_ user: String, _ seed: UInt64) throws -> any ReplayPolicy

    /// Creates a factory from a closure.
    public init(name: String, inputFile: PolicyInputFile? = nil,
                make: @escaping @Sendable (_ user: String, _ seed: UInt64) throws -> any ReplayPolicy) {
        self.name = name
        self.inputFile = inputFile
        self.make = make
    }

    /// A built-in engine policy (`UserEngine(user:policy:rotation:seed:prior:)`). A population
    /// `prior` is given to the policies that take it (``SmartStack/PolicySpec/takesPopulationPrior``),
    /// and its file, `priorFile`, becomes their ``inputFile``.
    public static func engine(_ spec: PolicySpec, rotation: RotationParameters = RotationParameters(),
                              prior: PopulationPrior? = nil, priorFile: PolicyInputFile? = nil) -> PolicyFactory {
        let prior = spec.takesPopulationPrior ? prior : nil
        return PolicyFactory(name: spec.description, inputFile: prior == nil ? nil : priorFile) { user, seed in
            let engine = try UserEngine(user: user, policy: spec, rotation: rotation, seed: seed, prior: prior)
            engine.explainsRankings = false   // reasons are not read during replay
            return EngineReplayPolicy(engine: engine)
        }
    }

    /// An outside scorer (e.g. the oracle) hosted by the engine's rotation policy
    /// (`UserEngine(user:scorer:name:rotation:)`).
    public static func scorer(
        name: String, rotation: RotationParameters = RotationParameters(), inputFile: PolicyInputFile? = nil,
        _ makeScorer: @escaping @Sendable (_ user: String) throws -> any WidgetScorer
    ) -> PolicyFactory {
        PolicyFactory(name: name, inputFile: inputFile) { user, _ in
            let engine = UserEngine(user: user, scorer: try makeScorer(user), name: name, rotation: rotation)
            engine.explainsRankings = false
            return EngineReplayPolicy(engine: engine)
        }
    }
}

/// A file a policy reads besides the events, named by its path and identified by a digest of
/// its contents (two copies of one file at different paths are the same input).
public struct PolicyInputFile: Sendable, Hashable {
    /// The path as given.
    public var path: String
    /// The contents' size and CRC-32, `<bytes>:<crc32 in 8 hex digits>` (a truth file), or
    /// `fnv1a64:<16 hex digits>` (a population prior, ``SmartStack/PopulationPrior/digest``).
    public var digest: String

    /// Creates a description of an input file.
    public init(path: String, digest: String) {
        self.path = path
        self.digest = digest
    }
}

/// Adapts the engine's `UserEngine` to the replay.
public final class EngineReplayPolicy: ReplayPolicy {
    /// The engine being evaluated.
    public let engine: UserEngine
    /// The engine's index of each stack, by replay slot (-1 until the engine knows the stack).
    /// Only the replay's thread touches it, so no run-time exclusivity check is needed.
    @exclusivity(unchecked) private var stackIndices: [Int] = []

    /// Wraps an engine.
    public init(engine: UserEngine) { self.engine = engine }

    /// Forwards the event to the engine.
    public func record(_ event: Event) { engine.record(event) }

    /// Forwards the event to the engine, which reads it in place.
    public func record(at event: UnsafePointer<Event>) { engine.record(at: event) }

    /// Asks the engine's rotation policy; the display order is the top then the rest of the
    /// scorer's ranking in its order, then any configured widget the ranking left out.
    ///
    /// - Complexity: O(widgets) plus the engine's decision.
    public func decide(stack: String, widgets: [WidgetConfig], at time: EventTime) throws -> ReplayDecision {
        var order: [String] = []
        let decision = try decide(stack: stack, widgets: widgets, at: time, into: &order)
        return ReplayDecision(top: decision.top, order: order, propensity: decision.propensity)
    }

    /// The same decision with the display order written into `order`, the stack found by the
    /// engine's index once it is known (the replay's hot path, which allocates nothing).
    ///
    /// - Complexity: O(widgets) plus the engine's decision.
    public func decide(slot: Int, stack: String, widgets: [WidgetConfig], at time: EventTime,
                       into order: inout [String]) throws -> String? {
        if stackIndices.count <= slot { stackIndices.append(contentsOf: repeatElement(-1, count: slot + 1 - stackIndices.count)) }
        if stackIndices[slot] < 0, let s = engine.configuredStackIndex(stack) { stackIndices[slot] = s }
        let s = stackIndices[slot]
        guard s >= 0 else {  // not configured in the engine: its error says so
            return try decide(stack: stack, widgets: widgets, at: time, into: &order).top
        }
        let top = engine.decideOrder(stackIndex: s, at: time, into: &order).top
        complete(&order, widgets: widgets)
        return top
    }

    /// The decision by stack id, with the display order written into `order`.
    ///
    /// - Complexity: O(widgets) plus the engine's decision.
    private func decide(stack: String, widgets: [WidgetConfig], at time: EventTime, into order: inout [String]) throws
        -> (top: String?, propensity: Double) {
        let decision = try engine.decideOrder(stack: stack, at: time, into: &order)
        complete(&order, widgets: widgets)
        return decision
    }

    /// Appends any configured widget the ranking left out to `order`.
    private func complete(_ order: inout [String], widgets: [WidgetConfig]) {
        if order.count < widgets.count {
            for w in widgets where !order.contains(w.id) { order.append(w.id) }
        }
    }
}
