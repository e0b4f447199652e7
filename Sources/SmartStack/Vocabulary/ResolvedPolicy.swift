/// A validated `PolicySpec` with every parameter parsed and defaulted.
struct ResolvedPolicy: Sendable, Hashable, Codable {
    enum Kind: String, Sendable, Hashable, Codable {
        case staticOrder = "static", roundRobin = "round-robin", mru, mfu, frecency
        case timeOfDay = "time-of-day", contextual, bandit, external
    }
    typealias Exploration = BanditExploration

    var kind: Kind
    var interval: Double = 3600
    var halfLife: Double = 14 * 86_400
    var frecencyHalfLife: Double = 3 * 86_400
    var recentHalfLife: Double = 3600
    var bandwidth: Double = 45 * 60
    var prior: Double = 10
    var exploration: Exploration = .epsilon
    var epsilon: Double = 0.05
    var temperature: Double = 0.5
    var learningRate: Double = 0.05

    init(kind: Kind) { self.kind = kind }

    init(_ spec: PolicySpec) throws(EngineError) {
        guard let info = PolicyRegistry.info(named: spec.name), let kind = Kind(rawValue: spec.name) else {
            throw EngineError(.unknownPolicy, "unknown policy '\(spec.name)' (valid: \(PolicyRegistry.names.joined(separator: ", ")))")
        }
        self.kind = kind
        if kind == .contextual { learningRate = 0.02 }
        for key in spec.parameters.keys.sorted() {
            let value = spec.parameters[key]!
            guard info.parameters.contains(where: { $0.name == key }) else {
                let valid = info.parameters.map(\.name)
                throw EngineError(.invalidParameter, "unknown parameter '\(key)' for policy '\(spec.name)' (valid: \(valid.isEmpty ? "none" : valid.joined(separator: ", ")))")
            }
            func fail(_ what: String) -> EngineError {
                EngineError(.invalidParameter, "policy '\(spec.name)': parameter '\(key)' = '\(value)' \(what)")
            }
            func duration(_ range: ClosedRange<Double>) throws(EngineError) -> Double {
                guard let d = TimeSpan(parsing: value)?.seconds else {
                    throw fail("is not a duration (write e.g. 45s, 30m, 2h, 14d, 1w)")
                }
                guard range.contains(d) else {
                    throw fail("is out of range (\(TimeSpan(seconds: range.lowerBound))...\(TimeSpan(seconds: range.upperBound)))")
                }
                return d
            }
            func number(_ range: ClosedRange<Double>) throws(EngineError) -> Double {
                guard let d = Double(value), d.isFinite else { throw fail("is not a number") }
                guard range.contains(d) else { throw fail("is out of range (\(range.lowerBound)...\(range.upperBound))") }
                return d
            }
            switch key {
            case "interval": interval = try duration(1...(366 * 86_400))
            case "half_life":
                if kind == .frecency { frecencyHalfLife = try duration(60...(3660 * 86_400)) }
                else { halfLife = try duration(60...(3660 * 86_400)) }
            case "recent_half_life": recentHalfLife = try duration(60...(30 * 86_400))
            case "bandwidth": bandwidth = try duration(600...(6 * 3600))
            case "prior": prior = try number(0.01...1000)
            case "exploration":
                guard let e = Exploration(rawValue: value) else { throw fail("is not one of: epsilon, softmax") }
                exploration = e
            case "epsilon": epsilon = try number(0...1)
            case "temperature": temperature = try number(0.001...1000)
            case "learning_rate": learningRate = try number(0...10)
            default: throw fail("is not handled")  // unreachable: every listed parameter is handled above
            }
        }
    }
}
