/// The built-in policies and their parameters, written once: their names, summaries and
/// defaults as `smartstack policies` lists them (``PolicyRegistry``), the values each parameter
/// takes (checked by the string parser and the typed constructors alike) and the field of
/// `ResolvedPolicy` it sets. Every default is written as a user would write it and read with
/// the same parser as a value they give.
enum PolicyTable {
    /// The numeric field of `ResolvedPolicy` a parameter sets.
    enum Field: Sendable {
        case interval, halfLife, frecencyHalfLife, recentHalfLife, bandwidth, prior, sequencePrior, epsilon, temperature, learningRate, mixture
        case explore, exploreMargin, population
    }

    /// What values a parameter takes.
    enum Values: Sendable {
        /// A duration (`45s`, `30m`, ...) within a range of seconds.
        case duration(Field, ClosedRange<Double>)
        /// A finite number within a range.
        case number(Field, ClosedRange<Double>)
        /// A name of `BanditExploration`.
        case exploration
    }

    /// One parameter: its name, its default as written, what it does, the values it takes.
    struct Parameter: Sendable {
        var name: String
        var defaultValue: String
        var summary: String
        var values: Values
    }

    /// One policy: its kind (whose raw value is its name), what it does, its parameters.
    struct Policy: Sendable {
        var kind: ResolvedPolicy.Kind
        var summary: String
        var parameters: [Parameter]
    }

    static let interval = Parameter(name: "interval", defaultValue: "1h", summary: "time each widget stays on top (duration)",
                                    values: .duration(.interval, 1...(366 * 86_400)))
    static let frecencyHalfLife = Parameter(name: "half_life", defaultValue: "3d", summary: "age at which a launch counts half (duration)",
                                            values: .duration(.frecencyHalfLife, 60...(3660 * 86_400)))
    static let halfLife = Parameter(name: "half_life", defaultValue: "14d", summary: "age at which past use counts half (duration)",
                                    values: .duration(.halfLife, 60...(3660 * 86_400)))
    static let recentHalfLife = Parameter(name: "recent_half_life", defaultValue: "1h", summary: "half-life of the short-term recency signal (duration)",
                                          values: .duration(.recentHalfLife, 60...(30 * 86_400)))
    static let bandwidth = Parameter(name: "bandwidth", defaultValue: "45m", summary: "width of the circular time-of-day kernel (duration, 10m...6h)",
                                     values: .duration(.bandwidth, 600...(6 * 3600)))
    static let prior = Parameter(name: "prior", defaultValue: "10", summary: "pseudo-count pulling a specific context toward the general one (> 0)",
                                 values: .number(.prior, 0.01...1000))
    static let sequencePrior = Parameter(
        name: "sequence_prior", defaultValue: "20",
        summary: "pseudo-count pulling a context of previous apps toward the shorter one (> 0)",
        values: .number(.sequencePrior, 0.01...1000))
    static let contextualLearningRate = Parameter(
        name: "learning_rate", defaultValue: "0.3", summary: "AdaGrad step size for learning the signal weights online (0 = fixed naive-Bayes weights)",
        values: .number(.learningRate, 0...10))
    static let mixture = Parameter(
        name: "mixture", defaultValue: "0.01",
        summary: "prior weight of mfu, mru, frecency and time-of-day mixed with the model by exponential weights on log-loss (0...0.5; 0 = the model alone)",
        values: .number(.mixture, 0...0.5))
    static let explore = Parameter(
        name: "explore", defaultValue: "0",
        summary: "share of decisions that show another widget close to the best, at random, with its propensity (0...0.5; 0 = never)",
        values: .number(.explore, 0...0.5))
    static let exploreMargin = Parameter(
        name: "explore_margin", defaultValue: "1",
        summary: "how close to the best a widget must score to be explored, in log-score units (> 0)",
        values: .number(.exploreMargin, 0.001...20))
    static let population = Parameter(
        name: "population", defaultValue: "5",
        summary: "pseudo-engagements of the population prior a host hands in (--prior); 0 = ignore it; no effect without one",
        values: .number(.population, 0...1000))
    static let exploration = Parameter(name: "exploration", defaultValue: "epsilon", summary: "epsilon (epsilon-greedy) or softmax",
                                       values: .exploration)
    static let epsilon = Parameter(name: "epsilon", defaultValue: "0.05", summary: "share of decisions picked uniformly at random (0...1)",
                                   values: .number(.epsilon, 0...1))
    static let temperature = Parameter(name: "temperature", defaultValue: "0.5", summary: "softmax temperature (> 0); lower is greedier",
                                       values: .number(.temperature, 0.001...1000))
    static let banditLearningRate = Parameter(name: "learning_rate", defaultValue: "0.05", summary: "step size of the online gradient updates (>= 0)",
                                              values: .number(.learningRate, 0...10))

    /// Every built-in policy, baselines first.
    static let policies: [Policy] = [
        Policy(kind: .staticOrder, summary: "the stack's configured order, never rotates", parameters: []),
        Policy(kind: .roundRobin, summary: "rotates through the configured order on a fixed timer", parameters: [interval]),
        Policy(kind: .mru, summary: "most recently used widget first (launches of its app, taps)", parameters: []),
        Policy(kind: .mfu, summary: "most frequently used widget first (all-time count)", parameters: []),
        Policy(kind: .frecency, summary: "exponentially decayed launch counts, as open-source launchers rank apps",
               parameters: [frecencyHalfLife]),
        Policy(kind: .timeOfDay, summary: "hour-of-day histogram of each widget's use, this hour first", parameters: []),
        Policy(kind: .contextual,
               summary: "SmartStack's model: time of day, weekday, place, app sequence, context, hints, feedback, with Bayesian back-off",
               parameters: [halfLife, recentHalfLife, bandwidth, prior, sequencePrior, contextualLearningRate, mixture, explore,
                            exploreMargin, population]),
        Policy(kind: .bandit,
               summary: "online logistic model over the contextual features with seeded exploration; logs its propensity",
               parameters: [halfLife, recentHalfLife, bandwidth, prior, sequencePrior, exploration, epsilon, temperature, banditLearningRate,
                            population]),
    ]

    /// The parameters whose defaults every policy starts from, one per field of
    /// `ResolvedPolicy` (a policy without such a parameter still keeps the features and
    /// settings they describe); a policy's own parameters' defaults are applied on top.
    static let baseline: [Parameter] = [
        interval, halfLife, frecencyHalfLife, recentHalfLife, bandwidth, prior, sequencePrior, exploration, epsilon, temperature,
        banditLearningRate, explore, exploreMargin, population,
    ]

    /// The policy of `kind`, `nil` for an outside scorer.
    static func policy(_ kind: ResolvedPolicy.Kind) -> Policy? { policies.first { $0.kind == kind } }
}
