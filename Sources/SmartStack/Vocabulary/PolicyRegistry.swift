/// One parameter of a policy: its name, default and meaning.
public struct PolicyParameter: Sendable, Hashable {
    /// The name written in a `PolicySpec`, e.g. `half_life`.
    public var name: String
    /// The default value, written as a user would write it (e.g. `14d`).
    public var defaultValue: String
    /// One line saying what it does and what values it takes.
    public var summary: String
    /// Creates a parameter description.
    public init(name: String, defaultValue: String, summary: String) {
        self.name = name; self.defaultValue = defaultValue; self.summary = summary
    }
}

/// A built-in policy: its name, a one-line description and its parameters.
public struct PolicyInfo: Sendable, Hashable {
    /// The name written in a `PolicySpec`.
    public var name: String
    /// One line saying how it ranks widgets.
    public var summary: String
    /// The parameters it accepts.
    public var parameters: [PolicyParameter]
    /// Creates a policy description.
    public init(name: String, summary: String, parameters: [PolicyParameter]) {
        self.name = name; self.summary = summary; self.parameters = parameters
    }
}

/// The built-in policies, as listed by `smartstack policies`.
///
/// ```swift
/// for p in PolicyRegistry.policies { print(p.name, "-", p.summary) }
/// ```
public enum PolicyRegistry {
    /// The policy used when none is chosen.
    public static let defaultPolicy = "contextual"

    /// Every built-in policy, baselines first.
    public static let policies: [PolicyInfo] = [
        PolicyInfo(name: "static", summary: "the stack's configured order, never rotates", parameters: []),
        PolicyInfo(
            name: "round-robin", summary: "rotates through the configured order on a fixed timer",
            parameters: [PolicyParameter(name: "interval", defaultValue: "1h", summary: "time each widget stays on top (duration)")]),
        PolicyInfo(name: "mru", summary: "most recently used widget first (launches of its app, taps)", parameters: []),
        PolicyInfo(name: "mfu", summary: "most frequently used widget first (all-time count)", parameters: []),
        PolicyInfo(
            name: "frecency", summary: "exponentially decayed launch counts, as open-source launchers rank apps",
            parameters: [PolicyParameter(name: "half_life", defaultValue: "3d", summary: "age at which a launch counts half (duration)")]),
        PolicyInfo(name: "time-of-day", summary: "hour-of-day histogram of each widget's use, this hour first", parameters: []),
        PolicyInfo(
            name: "contextual",
            summary: "SmartStack's model: time of day, weekday, place, app sequence, context, hints, feedback, with Bayesian back-off",
            parameters: contextualParameters + [
                PolicyParameter(name: "learning_rate", defaultValue: "0.02", summary: "step size for learning the signal weights online (0 = fixed naive-Bayes weights)"),
            ]),
        PolicyInfo(
            name: "bandit",
            summary: "online logistic model over the contextual features with seeded exploration; logs its propensity",
            parameters: contextualParameters + [
                PolicyParameter(name: "exploration", defaultValue: "epsilon", summary: "epsilon (epsilon-greedy) or softmax"),
                PolicyParameter(name: "epsilon", defaultValue: "0.05", summary: "share of decisions picked uniformly at random (0...1)"),
                PolicyParameter(name: "temperature", defaultValue: "0.5", summary: "softmax temperature (> 0); lower is greedier"),
                PolicyParameter(name: "learning_rate", defaultValue: "0.05", summary: "step size of the online gradient updates (>= 0)"),
            ]),
    ]

    static let contextualParameters: [PolicyParameter] = [
        PolicyParameter(name: "half_life", defaultValue: "14d", summary: "age at which past use counts half (duration)"),
        PolicyParameter(name: "recent_half_life", defaultValue: "1h", summary: "half-life of the short-term recency signal (duration)"),
        PolicyParameter(name: "bandwidth", defaultValue: "45m", summary: "width of the circular time-of-day kernel (duration, 10m...6h)"),
        PolicyParameter(name: "prior", defaultValue: "10", summary: "pseudo-count pulling a specific context toward the general one (> 0)"),
    ]

    /// The names of all policies, in listing order.
    public static var names: [String] { policies.map(\.name) }

    /// The policy named `name`, if any.
    public static func info(named name: String) -> PolicyInfo? { policies.first { $0.name == name } }
}
