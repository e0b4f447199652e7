/// A validated `PolicySpec` with every parameter parsed and defaulted from `PolicyTable`.
struct ResolvedPolicy: Sendable, Hashable, Codable {
    enum Kind: String, Sendable, Hashable, Codable {
        case staticOrder = "static", roundRobin = "round-robin", mru, mfu, frecency
        case timeOfDay = "time-of-day", contextual, bandit, external
    }
    typealias Exploration = BanditExploration

    // Every field is set from the table's defaults by `init(kind:)` (the zeros are never read).
    // Saved snapshots store them in this order.
    var kind: Kind
    var interval = 0.0
    var halfLife = 0.0
    var frecencyHalfLife = 0.0
    var recentHalfLife = 0.0
    var bandwidth = 0.0
    var prior = 0.0
    /// The prior of the sequence signal's back-off chain (contexts of previous apps).
    var sequencePrior = 0.0
    var exploration = Exploration.epsilon
    var epsilon = 0.0
    var temperature = 0.0
    var learningRate = 0.0
    /// The prior weight of the counting baselines in `contextual`'s mixture (`SignalMixture`);
    /// 0 for the model alone (and every other policy).
    var mixture = 0.0
    /// `contextual`'s exploration: the share of decisions that show, at random, another
    /// candidate within `exploreMargin` (log-score units) of the best; 0 for none.
    var explore = 0.0
    var exploreMargin = 0.0
    /// Pseudo-engagements of the host's population prior, if one is handed in (`PopulationPrior`);
    /// 0 ignores it.
    var population = 0.0

    /// A policy of `kind` with every parameter at its default: the table's baseline, then the
    /// defaults of the policy's own parameters.
    /// Whether the rotation picks the top at random (with a propensity) rather than greedily:
    /// `bandit` always, `contextual` when `explore` > 0.
    var explores: Bool { kind == .bandit || (kind == .contextual && explore > 0) }

    /// Whether a host's population prior is smoothed toward: `contextual` and `bandit` with a
    /// positive `population`.
    var takesPopulationPrior: Bool { (kind == .contextual || kind == .bandit) && population > 0 }

    init(kind: Kind) {
        self.kind = kind
        for parameter in PolicyTable.baseline + (PolicyTable.policy(kind)?.parameters ?? []) {
            do { try set(parameter, to: parameter.defaultValue, policy: kind.rawValue) } catch {
                preconditionFailure("the policy table's default is invalid: \(error)")
            }
        }
    }

    init(_ spec: PolicySpec) throws(EngineError) {
        guard let kind = Kind(rawValue: spec.name), let policy = PolicyTable.policy(kind) else {
            throw EngineError(.unknownPolicy, "unknown policy '\(spec.name)' (valid: \(PolicyRegistry.names.joined(separator: ", ")))")
        }
        self.init(kind: kind)
        for key in spec.parameters.keys.sorted() {
            guard let parameter = policy.parameters.first(where: { $0.name == key }) else {
                let valid = policy.parameters.map(\.name)
                throw EngineError(.invalidParameter, "unknown parameter '\(key)' for policy '\(spec.name)' (valid: \(valid.isEmpty ? "none" : valid.joined(separator: ", ")))")
            }
            try set(parameter, to: spec.parameters[key]!, policy: spec.name)
        }
    }

    /// Parses `value` as `parameter` takes it and sets its field.
    private mutating func set(_ parameter: PolicyTable.Parameter, to value: String, policy: String) throws(EngineError) {
        func fail(_ what: String) -> EngineError {
            EngineError(.invalidParameter, "policy '\(policy)': parameter '\(parameter.name)' = '\(value)' \(what)")
        }
        switch parameter.values {
        case .duration(let field, let range):
            guard let d = TimeSpan(parsing: value)?.seconds else {
                throw fail("is not a duration (write e.g. 45s, 30m, 2h, 14d, 1w)")
            }
            guard range.contains(d) else {
                throw fail("is out of range (\(TimeSpan(seconds: range.lowerBound))...\(TimeSpan(seconds: range.upperBound)))")
            }
            assign(d, to: field)
        case .number(let field, let range):
            guard let d = Double(value), d.isFinite else { throw fail("is not a number") }
            guard range.contains(d) else { throw fail("is out of range (\(range.lowerBound)...\(range.upperBound))") }
            assign(d, to: field)
        case .exploration:
            guard let e = Exploration(rawValue: value) else {
                throw fail("is not one of: \(Exploration.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            exploration = e
        }
    }

    /// The policy with every one of its parameters written out at the value it resolved to,
    /// in the table's order: equal for every way of writing the same policy (`contextual`,
    /// `contextual:half_life=14d`, `.contextual(halfLife: .weeks(2))`).
    var canonicalDescription: String {
        let parameters = PolicyTable.policy(kind)?.parameters ?? []
        guard !parameters.isEmpty else { return kind.rawValue }
        return kind.rawValue + ":" + parameters.map { parameter in
            switch parameter.values {
            case .duration(let field, _): "\(parameter.name)=\(TimeSpan(seconds: value(of: field)))"
            case .number(let field, _): "\(parameter.name)=\(value(of: field))"
            case .exploration: "\(parameter.name)=\(exploration.rawValue)"
            }
        }.joined(separator: ",")
    }

    private func value(of field: PolicyTable.Field) -> Double {
        switch field {
        case .interval: interval
        case .halfLife: halfLife
        case .frecencyHalfLife: frecencyHalfLife
        case .recentHalfLife: recentHalfLife
        case .bandwidth: bandwidth
        case .prior: prior
        case .sequencePrior: sequencePrior
        case .epsilon: epsilon
        case .temperature: temperature
        case .learningRate: learningRate
        case .mixture: mixture
        case .explore: explore
        case .exploreMargin: exploreMargin
        case .population: population
        }
    }

    private mutating func assign(_ value: Double, to field: PolicyTable.Field) {
        switch field {
        case .interval: interval = value
        case .halfLife: halfLife = value
        case .frecencyHalfLife: frecencyHalfLife = value
        case .recentHalfLife: recentHalfLife = value
        case .bandwidth: bandwidth = value
        case .prior: prior = value
        case .sequencePrior: sequencePrior = value
        case .epsilon: epsilon = value
        case .temperature: temperature = value
        case .learningRate: learningRate = value
        case .mixture: mixture = value
        case .explore: explore = value
        case .exploreMargin: exploreMargin = value
        case .population: population = value
        }
    }
}

extension PolicySpec {
    /// Whether this policy uses a population prior handed to the engine (`contextual` and
    /// `bandit` with a positive `population`); `false` for an invalid spec.
    public var takesPopulationPrior: Bool { (try? ResolvedPolicy(self))?.takesPopulationPrior ?? false }
}
