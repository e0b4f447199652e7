/// An off-policy estimator of a policy's mean reward (engagement rate) from logged rounds.
///
/// Each case follows Open Bandit Pipeline 0.5.7's estimator of the same name, so the point
/// estimates agree with obp on identical arrays (checked by `OffPolicyReferenceTests`).
/// With `w = π_e(a_i | x_i) / p_i` the importance weight of the logged action, `q̂` the reward
/// model and `DM_i = Σ_a π_e(a | x_i) q̂(x_i, a)`:
///
/// ```swift
/// let estimators: [OffPolicyEstimator] = [.ips(clip: 10), .snips, .doublyRobust()]
/// print(estimators.map(\.key))   // ["ips_lambda_10", "snips", "dr"]
/// ```
public enum OffPolicyEstimator: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Replay / rejection sampling (Li et al., WSDM 2011): the mean reward over the rounds where
    /// the evaluation policy picks the logged action. For a stochastic policy a round counts with
    /// the probability `π_e(a_i)` that the policy would have picked it (the expectation of the
    /// rejection sampler over the policy's own draw): `Σ π_e(a_i) r_i / Σ π_e(a_i)`. For
    /// deterministic policies this is obp's `ReplayMethod`; obp counts only rounds with
    /// `π_e(a_i) == 1`, so for stochastic policies obp returns 0 instead. Unbiased when the
    /// logging policy is uniform. Undefined (`nil`) when no round matches.
    case replay
    /// Inverse propensity scoring `mean(min(w, clip) · r)`; `clip` is obp's `lambda_`
    /// (`nil` = no clipping).
    case ips(clip: Double? = nil)
    /// Self-normalized IPS `Σ w r / Σ w` (obp's `SelfNormalizedInverseProbabilityWeighting`).
    case snips
    /// The direct method `mean(DM_i)`: the reward model's prediction under the evaluation policy.
    case directMethod
    /// Doubly robust `mean(DM_i + min(w, clip) (r_i − q̂(x_i, a_i)))` (obp's `DoublyRobust`).
    case doublyRobust(clip: Double? = nil)
    /// Switch-DR: the DR correction only on rounds with `w ≤ tau`, the direct method alone
    /// elsewhere (obp's `SwitchDoublyRobust(lambda_=tau)`).
    case switchDoublyRobust(tau: Double)
    /// DR with optimistic shrinkage: the weight becomes `λ w / (w² + λ)`
    /// (obp's `DoublyRobustWithShrinkage(lambda_)`; `λ = ∞` is plain DR, `λ = 0` the direct method).
    case doublyRobustWithShrinkage(lambda: Double)

    /// The estimators the evaluator reports by default: replay, IPS, SNIPS, DM, DR,
    /// Switch-DR (τ = 100) and DRos (λ = 100). The two hyperparameters are conventional
    /// middle-of-the-road choices, not tuned to any dataset; pass your own list to change them.
    public static let standard: [OffPolicyEstimator] = [
        .replay, .ips(), .snips, .directMethod, .doublyRobust(),
        .switchDoublyRobust(tau: 100), .doublyRobustWithShrinkage(lambda: 100),
    ]

    /// Whether the estimator needs a reward model `q̂`.
    public var needsRewardModel: Bool {
        switch self {
        case .replay, .ips, .snips: false
        case .directMethod, .doublyRobust, .switchDoublyRobust, .doublyRobustWithShrinkage: true
        }
    }

    /// The snake_case key used in JSON results: `replay`, `ips`, `ips_lambda_10`, `snips`, `dm`,
    /// `dr`, `dr_lambda_5`, `switch_dr_tau_100`, `dr_os_lambda_100`.
    public var key: String {
        switch self {
        case .replay: "replay"
        case .ips(let clip): clip.map { "ips_lambda_\(Self.format($0))" } ?? "ips"
        case .snips: "snips"
        case .directMethod: "dm"
        case .doublyRobust(let clip): clip.map { "dr_lambda_\(Self.format($0))" } ?? "dr"
        case .switchDoublyRobust(let tau): "switch_dr_tau_\(Self.format(tau))"
        case .doublyRobustWithShrinkage(let lambda): "dr_os_lambda_\(Self.format(lambda))"
        }
    }

    /// Parses a ``key`` back (`"ips_lambda_10"` → `.ips(clip: 10)`); `nil` for anything else.
    public init?(key: String) {
        func parameter(after prefix: String) -> Double? {
            guard key.hasPrefix(prefix) else { return nil }
            let text = key.dropFirst(prefix.count)
            if text == "inf" { return .infinity }
            guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
            return value
        }
        switch key {
        case "replay": self = .replay
        case "ips": self = .ips()
        case "snips": self = .snips
        case "dm": self = .directMethod
        case "dr": self = .doublyRobust()
        default:
            if let v = parameter(after: "ips_lambda_") { self = .ips(clip: v) }
            else if let v = parameter(after: "dr_lambda_") { self = .doublyRobust(clip: v) }
            else if let v = parameter(after: "switch_dr_tau_") { self = .switchDoublyRobust(tau: v) }
            else if let v = parameter(after: "dr_os_lambda_") { self = .doublyRobustWithShrinkage(lambda: v) }
            else { return nil }
        }
    }

    /// The ``key``.
    public var description: String { key }

    /// Encodes as its ``key`` string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(key)
    }

    /// Decodes from a ``key`` string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let key = try container.decode(String.self)
        guard let estimator = OffPolicyEstimator(key: key) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "unknown off-policy estimator '\(key)'")
        }
        self = estimator
    }

    /// The hyperparameter, checked: `nil` when valid, else what is wrong.
    var parameterProblem: String? {
        let value: Double?
        switch self {
        case .replay, .snips, .directMethod: value = nil
        case .ips(let clip), .doublyRobust(let clip): value = clip
        case .switchDoublyRobust(let tau): value = tau
        case .doublyRobustWithShrinkage(let lambda): value = lambda
        }
        guard let value else { return nil }
        if value.isNaN || value < 0 { return "\(self): the parameter must be >= 0, got \(value)" }
        return nil
    }

    private static func format(_ value: Double) -> String {
        if value == .infinity { return "inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
