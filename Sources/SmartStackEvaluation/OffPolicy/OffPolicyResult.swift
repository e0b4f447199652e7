/// One estimator's figure: the point estimate and its bootstrap interval.
public struct OffPolicyEstimate: Sendable, Hashable {
    /// Which estimator.
    public var estimator: OffPolicyEstimator
    /// The estimate; `nil` when undefined (replay with no matching round, SNIPS with all
    /// weights zero).
    public var value: Double?
    /// The bootstrap percentile interval `[lower, upper]`, `nil` without bootstrap or when undefined.
    public var interval: [Double]?

    /// Creates an estimate.
    public init(estimator: OffPolicyEstimator, value: Double?, interval: [Double]?) {
        self.estimator = estimator
        self.value = value
        self.interval = interval
    }
}

/// Health of the importance weights `w = π_e(a_i) / p_i` (unclipped), to judge whether the
/// estimates can be trusted.
public struct OffPolicyDiagnostics: Sendable, Hashable, Codable {
    /// Effective sample size `(Σw)² / Σw²` (0 when every weight is 0); compare with `rounds`.
    public var effectiveSampleSize: Double
    /// The largest weight.
    public var maxWeight: Double
    /// The mean weight (≈ 1 when the evaluation policy stays within the logging support).
    public var meanWeight: Double
    /// Share of rounds with weight 0: the evaluation policy never picks the logged action.
    public var zeroWeightShare: Double
    /// Share of all rounds in which the evaluation policy puts mass on an action the logging
    /// policy could not choose (the policy's pick had zero logging probability). Known for a
    /// round when its full logging distribution is given, or when its propensity is 1 (then the
    /// logger could choose nothing else). With only some rounds known it is a lower bound; `nil`
    /// when no round's logging support is known.
    public var zeroSupportShare: Double?
    /// The number of rounds whose logging support is known (see `zeroSupportShare`).
    public var supportKnownRounds: Int
    /// The (expected) number of rounds the replay estimator accepts, `Σ π_e(a_i)`.
    public var replayAccepted: Double

    /// Creates diagnostics.
    public init(effectiveSampleSize: Double, maxWeight: Double, meanWeight: Double, zeroWeightShare: Double,
                zeroSupportShare: Double?, supportKnownRounds: Int, replayAccepted: Double) {
        self.effectiveSampleSize = effectiveSampleSize
        self.maxWeight = maxWeight
        self.meanWeight = meanWeight
        self.zeroWeightShare = zeroWeightShare
        self.zeroSupportShare = zeroSupportShare
        self.supportKnownRounds = supportKnownRounds
        self.replayAccepted = replayAccepted
    }

    enum CodingKeys: String, CodingKey {
        case effectiveSampleSize = "ess", maxWeight = "max_weight", meanWeight = "mean_weight"
        case zeroWeightShare = "zero_weight_share", zeroSupportShare = "zero_support_share"
        case supportKnownRounds = "support_known_rounds", replayAccepted = "replay_accepted"
    }

    /// Encodes every key, `zero_support_share` as `null` when unknown.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(effectiveSampleSize, forKey: .effectiveSampleSize)
        try c.encode(maxWeight, forKey: .maxWeight)
        try c.encode(meanWeight, forKey: .meanWeight)
        try c.encode(zeroWeightShare, forKey: .zeroWeightShare)
        try c.encode(zeroSupportShare, forKey: .zeroSupportShare)
        try c.encode(supportKnownRounds, forKey: .supportKnownRounds)
        try c.encode(replayAccepted, forKey: .replayAccepted)
    }
}

/// How intervals are computed: percentile bootstrap over rounds, seeded.
public struct BootstrapOptions: Sendable, Hashable, Codable {
    /// Resamples (0 = no intervals).
    public var samples: Int
    /// Significance level; the interval covers `1 − alpha`.
    public var alpha: Double

    /// 1000 resamples, 95% intervals by default.
    public init(samples: Int = 1000, alpha: Double = 0.05) {
        self.samples = samples
        self.alpha = alpha
    }
}

/// The result of ``OffPolicyEvaluation``: one entry per estimator, the weight diagnostics and
/// the number of rounds. Encodes as
/// `{"ips":{"value":..,"ci":[lo,hi]},...,"diagnostics":{"ess":..,...},"rounds":n,"bootstrap":{...}}`.
///
/// ```swift
/// let data = try JSONEncoder().encode(result)
/// ```
public struct OffPolicyResult: Sendable, Hashable, Codable {
    /// The estimates, in the order the estimators were asked for.
    public var estimates: [OffPolicyEstimate]
    /// The weight diagnostics.
    public var diagnostics: OffPolicyDiagnostics
    /// The number of rounds.
    public var rounds: Int
    /// How the intervals were computed, with the seed.
    public var bootstrap: BootstrapOptions
    /// The bootstrap seed.
    public var seed: UInt64

    /// Creates a result.
    public init(estimates: [OffPolicyEstimate], diagnostics: OffPolicyDiagnostics, rounds: Int,
                bootstrap: BootstrapOptions, seed: UInt64) {
        self.estimates = estimates
        self.diagnostics = diagnostics
        self.rounds = rounds
        self.bootstrap = bootstrap
        self.seed = seed
    }

    /// The estimate of `estimator`, if it was computed.
    ///
    /// - Complexity: O(number of estimators).
    public subscript(estimator: OffPolicyEstimator) -> OffPolicyEstimate? {
        estimates.first { $0.estimator == estimator }
    }

    private struct Entry: Codable {
        var value: Double?
        var ci: [Double]?
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: NameKey.self)
            try c.encode(value, forKey: NameKey("value"))
            try c.encode(ci, forKey: NameKey("ci"))
        }
    }
    private struct Bootstrap: Codable {
        var samples: Int
        var alpha: Double
        var seed: UInt64
    }

    /// Encodes with estimator keys at the top level; undefined values and intervals as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: NameKey.self)
        for estimate in estimates {
            try c.encode(Entry(value: estimate.value, ci: estimate.interval), forKey: NameKey(estimate.estimator.key))
        }
        try c.encode(diagnostics, forKey: NameKey("diagnostics"))
        try c.encode(rounds, forKey: NameKey("rounds"))
        try c.encode(Bootstrap(samples: bootstrap.samples, alpha: bootstrap.alpha, seed: seed), forKey: NameKey("bootstrap"))
    }

    /// Decodes what ``encode(to:)`` writes (estimators in key order, since JSON objects are unordered).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: NameKey.self)
        diagnostics = try c.decode(OffPolicyDiagnostics.self, forKey: NameKey("diagnostics"))
        rounds = try c.decode(Int.self, forKey: NameKey("rounds"))
        let b = try c.decode(Bootstrap.self, forKey: NameKey("bootstrap"))
        bootstrap = BootstrapOptions(samples: b.samples, alpha: b.alpha)
        seed = b.seed
        var estimates: [OffPolicyEstimate] = []
        for key in c.allKeys.sorted(by: { $0.stringValue < $1.stringValue })
        where !["diagnostics", "rounds", "bootstrap"].contains(key.stringValue) {
            guard let estimator = OffPolicyEstimator(key: key.stringValue) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c, debugDescription: "unknown off-policy estimator '\(key.stringValue)'")
            }
            let entry = try c.decode(Entry.self, forKey: key)
            estimates.append(OffPolicyEstimate(estimator: estimator, value: entry.value, interval: entry.ci))
        }
        self.estimates = estimates
    }
}
