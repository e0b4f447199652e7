import SmartStack

/// Who decides what the simulated phone shows on top of each stack at every `screen_on`, and
/// logs it as a `widget_impression` with its propensity. The person's intent is the same under
/// every logger; what is shown changes what they engage (a person with no intent taps what is
/// on top now and then: the display lift), so logged hit@1 favours whichever policy resembles the
/// logger while counterfactual engagement does not.
///
/// ```swift
/// var variant = SimulationVariant()
/// variant.logger = .uniform
/// ```
public enum SimulationLogger: String, Sendable, Hashable, CaseIterable {
    /// Epsilon-greedy (ε = 0.3) over the person's engagement counts in the current local hour
    /// (the default, and the phone-maker heuristic the bundled sets were logged with).
    case timeOfDay = "time-of-day"
    /// Epsilon-greedy (ε = 0.3) over the person's all-time engagement counts.
    case mfu
    /// Every widget of the stack with the same probability.
    case uniform
    /// SmartStack's own engine (``SimulationVariant/loggerPolicy``, by default the default
    /// policy exploring), fed the phone's recorded events and deciding from those strictly before
    /// each `screen_on`, rotation rules included.
    case engine

    /// One line describing the logger, for help text.
    public var summary: String {
        switch self {
        case .timeOfDay: "epsilon-greedy (0.3) on this hour's engagement counts (default)"
        case .mfu: "epsilon-greedy (0.3) on all-time engagement counts"
        case .uniform: "each widget of the stack with equal probability"
        case .engine: "SmartStack's default policy, exploring (or --logger-policy)"
        }
    }

    /// Every logger's name, comma-separated, for help and error messages.
    public static var namesList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The policy the `engine` logger runs when the variant names none: the default policy,
    /// exploring a tenth of its decisions so that its log supports off-policy estimates.
    public static let defaultEnginePolicy = "contextual:explore=0.1"
}

/// The `engine` logger of one simulated person: a `UserEngine` given the phone's recorded
/// events in time order, each before the first decision at or after its instant.
final class LoggerEngine {
    let engine: UserEngine
    /// The `policy` written on the impressions.
    let name: String
    /// Events of earlier days not yet given (all before the next decision).
    private var carried: [Event] = []

    init(user: String, policy: PolicySpec, seed: UInt64) throws(SimulationError) {
        do {
            engine = try UserEngine(user: user, policy: policy, seed: seed)
        } catch {
            throw SimulationError("logger policy '\(policy)': \(error.message)")
        }
        engine.explainsRankings = false
        name = "smartstack:" + policy.description
    }

    /// Gives the engine the events carried from earlier days, then `events` (in time order).
    func give(_ events: [Event]) {
        for e in carried { engine.record(e) }
        carried.removeAll()
        for e in events { engine.record(e) }
    }

    /// Keeps `events` (in time order) for the next `give`.
    func carry(_ events: [Event]) { carried += events }

    /// The engine's decision for `stack` at `time`: each widget's probability of ending on top
    /// (in `widgets`' order) and the index of the one shown (`nil` when none is eligible).
    func decide(stack: String, widgets: [String], at time: EventTime) -> (probabilities: [Double], shown: Int?) {
        guard let decision = try? engine.decide(stack: stack, at: time), let top = decision.top,
              let shown = widgets.firstIndex(of: top) else {
            return ([Double](repeating: 0, count: widgets.count), nil)
        }
        var p = widgets.map { decision.topProbabilities[$0] ?? 0 }
        if decision.topProbabilities.isEmpty { p[shown] = 1 }
        return (p, shown)
    }
}
