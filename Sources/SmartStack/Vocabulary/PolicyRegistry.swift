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
    public static let policies: [PolicyInfo] = PolicyTable.policies.map { policy in
        PolicyInfo(name: policy.kind.rawValue, summary: policy.summary, parameters: policy.parameters.map {
            PolicyParameter(name: $0.name, defaultValue: $0.defaultValue, summary: $0.summary)
        })
    }

    /// The names of all policies, in listing order.
    public static var names: [String] { policies.map(\.name) }

    /// The policy named `name`, if any.
    public static func info(named name: String) -> PolicyInfo? { policies.first { $0.name == name } }
}
