/// One logged decision for off-policy evaluation, as the evaluator builds it from a
/// `widget_impression` with a propensity: the candidates shown, which one the logging policy
/// put on top and with what probability, whether it was engaged, and the evaluated policy's
/// distribution over the same candidates.
///
/// ```swift
/// let round = LoggedRound(candidateCount: 3, loggedAction: 1, propensity: 0.5, reward: 1,
///                         targetDistribution: [0, 1, 0], contextKey: "morning")
/// ```
public struct LoggedRound: Sendable, Hashable, Codable {
    /// The number of candidates (actions) in this round.
    public var candidateCount: Int
    /// The index of the logged action in `0..<candidateCount`.
    public var loggedAction: Int
    /// The logging policy's probability of the logged action, in `(0, 1]`.
    public var propensity: Double
    /// The observed reward (1 engaged, 0 not, or any finite value).
    public var reward: Double
    /// The evaluated policy's distribution over the candidates (`candidateCount` entries, sum 1).
    public var targetDistribution: [Double]
    /// The context the reward model groups by (e.g. hour bucket, place). The built-in model
    /// keys on (context key, candidate index), so rounds sharing a key should list their
    /// candidates in the same order (e.g. put the stack id in the key).
    public var contextKey: String
    /// The logging policy's full distribution over the candidates, if known (zero-support
    /// diagnostic only).
    public var loggingDistribution: [Double]?
    /// Reward predictions `q̂` per candidate, if the caller has its own reward model; when every
    /// round has them, they replace the built-in ``RewardModel``.
    public var estimatedRewards: [Double]?
    /// The group the bootstrap resamples as one unit (the evaluator gives each user-day its own),
    /// so rounds that share a cause — one person's day — widen the interval together instead of
    /// counting as independent. Rounds without one are each their own unit. Non-negative.
    public var cluster: Int?

    /// Creates a logged round; validated when estimated.
    public init(candidateCount: Int, loggedAction: Int, propensity: Double, reward: Double,
                targetDistribution: [Double], contextKey: String = "",
                loggingDistribution: [Double]? = nil, estimatedRewards: [Double]? = nil, cluster: Int? = nil) {
        self.candidateCount = candidateCount
        self.loggedAction = loggedAction
        self.propensity = propensity
        self.reward = reward
        self.targetDistribution = targetDistribution
        self.contextKey = contextKey
        self.loggingDistribution = loggingDistribution
        self.estimatedRewards = estimatedRewards
        self.cluster = cluster
    }

    enum CodingKeys: String, CodingKey {
        case candidateCount = "candidate_count", loggedAction = "logged_action", propensity, reward
        case targetDistribution = "target_distribution", contextKey = "context_key"
        case loggingDistribution = "logging_distribution", estimatedRewards = "estimated_rewards", cluster
    }

    /// Checks the round; `i` is its index for the error.
    func validate(index i: Int) throws(OffPolicyError) {
        guard candidateCount > 0 else {
            throw OffPolicyError(round: i, field: "candidate_count", message: "must be at least 1, got \(candidateCount)")
        }
        try OffPolicyValidation.check(round: i, action: loggedAction, actionCount: candidateCount,
                                      reward: reward, propensity: propensity)
        guard targetDistribution.count == candidateCount else {
            throw OffPolicyError(round: i, field: "target_distribution",
                                 message: "has \(targetDistribution.count) entries for \(candidateCount) candidates")
        }
        try OffPolicyValidation.checkDistribution(targetDistribution[...], round: i, field: "target_distribution")
        if let loggingDistribution {
            guard loggingDistribution.count == candidateCount else {
                throw OffPolicyError(round: i, field: "logging_distribution",
                                     message: "has \(loggingDistribution.count) entries for \(candidateCount) candidates")
            }
            try OffPolicyValidation.checkDistribution(loggingDistribution[...], round: i, field: "logging_distribution")
        }
        if let cluster, cluster < 0 {
            throw OffPolicyError(round: i, field: "cluster", message: "must be >= 0, got \(cluster)")
        }
        if let estimatedRewards {
            guard estimatedRewards.count == candidateCount, estimatedRewards.allSatisfy(\.isFinite) else {
                throw OffPolicyError(round: i, field: "estimated_rewards",
                                     message: "needs \(candidateCount) finite values, got \(estimatedRewards.count)")
            }
        }
    }
}
