/// A policy chosen by name with parameters, parsed from `name[:key=value,key=value]`,
/// e.g. `contextual:half_life=14d` or `round-robin:interval=30m`.
///
/// Durations are written with a unit: `45s`, `30m`, `2h`, `14d`, `1w`.
///
/// ```swift
/// let spec = try PolicySpec(parsing: "bandit:epsilon=0.1,half_life=7d")
/// spec.name          // "bandit"
/// spec.description   // "bandit:epsilon=0.1,half_life=7d"
/// ```
public struct PolicySpec: Sendable, Hashable, CustomStringConvertible {
    /// The policy's name as listed by `PolicyRegistry.policies`.
    public var name: String
    /// The parameters given, by name; missing ones take their documented defaults.
    public var parameters: [String: String]
    /// Creates a spec without validating it (`UserEngine` validates when it is used).
    public init(name: String, parameters: [String: String] = [:]) { self.name = name; self.parameters = parameters }

    /// Parses and validates against the registry (an unknown policy or parameter throws an
    /// ``EngineError`` of kind ``EngineError/Kind/unknownPolicy`` or ``EngineError/Kind/invalidParameter``).
    public init(parsing text: String) throws(EngineError) {
        let trimmed = text.trimmingBlanks()
        guard !trimmed.isEmpty else {
            throw EngineError(.unknownPolicy, "empty policy (valid: \(PolicyRegistry.names.joined(separator: ", ")))")
        }
        var name = trimmed
        var parameters: [String: String] = [:]
        if let colon = trimmed.firstIndex(of: ":") {
            name = String(trimmed[..<colon]).trimmingBlanks()
            let rest = trimmed[trimmed.index(after: colon)...]
            for item in rest.split(separator: ",", omittingEmptySubsequences: false) {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = pair.first.map { String($0).trimmingBlanks() } ?? ""
                guard pair.count == 2, !key.isEmpty else {
                    throw EngineError(.invalidParameter, "policy '\(trimmed)': parameter '\(item)' is not of the form key=value")
                }
                guard parameters[key] == nil else {
                    throw EngineError(.invalidParameter, "policy '\(trimmed)': parameter '\(key)' given twice")
                }
                parameters[key] = String(pair[1]).trimmingBlanks()
            }
        }
        self.init(name: name, parameters: parameters)
        _ = try ResolvedPolicy(self)
    }

    /// `name` followed by `:key=value,...` in key order when there are parameters.
    public var description: String {
        if parameters.isEmpty { return name }
        return name + ":" + parameters.keys.sorted().map { "\($0)=\(parameters[$0]!)" }.joined(separator: ",")
    }
}

extension StringProtocol {
    fileprivate func trimmingBlanks() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
