/// Typed constructors, one per built-in policy with its parameters: the same specs as the
/// string form, checked by the compiler. A parameter left `nil` takes the policy's default
/// (``PolicyRegistry/policies`` lists them, from the one policy table), and is left out of the
/// spec.
///
/// ```swift
/// let spec = PolicySpec.contextual(halfLife: .days(7), prior: 5)
/// spec.description   // "contextual:half_life=1w,prior=5"
/// let engine = try Engine(path: ":memory:", policy: spec)
/// ```
///
/// Values are validated when the spec is used (``Engine``, ``UserEngine``): out of range, they
/// throw an ``EngineError`` of kind ``EngineError/Kind/invalidParameter``.
extension PolicySpec {
    /// `static`: the stack's configured order, never rotates.
    public static var staticOrder: PolicySpec { PolicySpec(.staticOrder, [:]) }

    /// `round-robin`: rotates through the configured order, each widget on top for `interval`.
    public static func roundRobin(interval: TimeSpan? = nil) -> PolicySpec {
        PolicySpec(.roundRobin, [PolicyTable.interval.name: interval.map(\.description)])
    }

    /// `mru`: the most recently used widget first.
    public static var mostRecentlyUsed: PolicySpec { PolicySpec(.mru, [:]) }

    /// `mfu`: the most frequently used widget first (all-time count).
    public static var mostFrequentlyUsed: PolicySpec { PolicySpec(.mfu, [:]) }

    /// `frecency`: launch counts decayed so that a launch `halfLife` old counts half.
    public static func frecency(halfLife: TimeSpan? = nil) -> PolicySpec {
        PolicySpec(.frecency, [PolicyTable.frecencyHalfLife.name: halfLife.map(\.description)])
    }

    /// `time-of-day`: the widgets most used in the current local hour first.
    public static var timeOfDay: PolicySpec { PolicySpec(.timeOfDay, [:]) }

    /// `contextual`: SmartStack's model (see <doc:TheModel>).
    /// - Parameters:
    ///   - halfLife: age at which past use counts half.
    ///   - recentHalfLife: half-life of the short-term recency signal.
    ///   - bandwidth: width of the circular time-of-day kernel (10 min ... 6 h).
    ///   - prior: pseudo-count pulling a specific context toward the general one (> 0).
    ///   - sequencePrior: the same for a context of previous apps toward the shorter one (> 0).
    ///   - learningRate: step size for learning the signal weights online (0: fixed weights).
    ///   - mixture: prior weight of the counting baselines mixed with the model (0...0.5; 0: the model alone).
    ///   - explore: share of decisions that show another widget close to the best, at random, with
    ///     its propensity (0...0.5; 0: never).
    ///   - exploreMargin: how close to the best a widget must score to be explored (log-score units).
    ///   - population: pseudo-engagements of the population prior a host hands in (``PopulationPrior``;
    ///     0: ignore it).
    public static func contextual(halfLife: TimeSpan? = nil, recentHalfLife: TimeSpan? = nil, bandwidth: TimeSpan? = nil,
                                  prior: Double? = nil, sequencePrior: Double? = nil, learningRate: Double? = nil,
                                  mixture: Double? = nil, explore: Double? = nil, exploreMargin: Double? = nil,
                                  population: Double? = nil) -> PolicySpec {
        PolicySpec(.contextual, [
            PolicyTable.halfLife.name: halfLife.map(\.description),
            PolicyTable.recentHalfLife.name: recentHalfLife.map(\.description),
            PolicyTable.bandwidth.name: bandwidth.map(\.description), PolicyTable.prior.name: prior.map(number),
            PolicyTable.sequencePrior.name: sequencePrior.map(number),
            PolicyTable.contextualLearningRate.name: learningRate.map(number),
            PolicyTable.mixture.name: mixture.map(number),
            PolicyTable.explore.name: explore.map(number), PolicyTable.exploreMargin.name: exploreMargin.map(number),
            PolicyTable.population.name: population.map(number),
        ])
    }

    /// `bandit`: the contextual features in an online logistic model with seeded exploration.
    /// - Parameters:
    ///   - halfLife, recentHalfLife, bandwidth, prior, sequencePrior: as for ``contextual(halfLife:recentHalfLife:bandwidth:prior:sequencePrior:learningRate:mixture:explore:exploreMargin:population:)``.
    ///   - exploration: epsilon-greedy or softmax.
    ///   - epsilon: share of decisions picked uniformly at random (0...1), for epsilon-greedy.
    ///   - temperature: softmax temperature (> 0); lower is greedier.
    ///   - learningRate: step size of the online gradient updates (>= 0).
    ///   - population: as for `contextual`.
    public static func bandit(halfLife: TimeSpan? = nil, recentHalfLife: TimeSpan? = nil, bandwidth: TimeSpan? = nil,
                              prior: Double? = nil, sequencePrior: Double? = nil, exploration: BanditExploration? = nil,
                              epsilon: Double? = nil, temperature: Double? = nil, learningRate: Double? = nil,
                              population: Double? = nil) -> PolicySpec {
        PolicySpec(.bandit, [
            PolicyTable.halfLife.name: halfLife.map(\.description),
            PolicyTable.recentHalfLife.name: recentHalfLife.map(\.description),
            PolicyTable.bandwidth.name: bandwidth.map(\.description), PolicyTable.prior.name: prior.map(number),
            PolicyTable.sequencePrior.name: sequencePrior.map(number),
            PolicyTable.exploration.name: exploration.map(\.rawValue), PolicyTable.epsilon.name: epsilon.map(number),
            PolicyTable.temperature.name: temperature.map(number), PolicyTable.banditLearningRate.name: learningRate.map(number),
            PolicyTable.population.name: population.map(number),
        ])
    }

    /// A spec of the parameters given (`nil` values left out), named and parameterized as in
    /// the policy table.
    private init(_ kind: ResolvedPolicy.Kind, _ given: [String: String?]) {
        self.init(name: kind.rawValue, parameters: given.compactMapValues { $0 })
    }

    /// A whole number without a fraction (`5`), anything else as Swift writes it (`0.05`).
    private static func number(_ x: Double) -> String {
        x.isFinite && abs(x) < 1e15 && x == x.rounded() ? String(Int(x)) : "\(x)"
    }
}

/// How the `bandit` policy explores.
public enum BanditExploration: String, Sendable, Hashable, Codable, CaseIterable {
    /// Epsilon-greedy: a share `epsilon` of decisions picks uniformly among the candidates.
    case epsilon
    /// Softmax over the scores at a `temperature`.
    case softmax
}
