/// Logged bandit feedback in Open Bandit Pipeline's shape: `n` rounds over a fixed set of
/// `actionCount` actions, stored row-major (`n × actionCount`), validated on creation.
///
/// obp's `action_dist` and `estimated_rewards_by_reg_model` have a third, position axis, but
/// every obp estimator reads only `[i, :, position[i]]`; so a round's rows here are the
/// evaluation distribution and reward model *at the round's logged position*. The
/// ``init(actions:rewards:propensities:positions:targetDistribution:estimatedRewards:)``
/// initializer takes obp's 3-D arrays and a position array and slices them that way.
///
/// ```swift
/// let feedback = try BanditFeedback(
///     actions: [0, 1], rewards: [1, 0], propensities: [0.5, 0.5], actionCount: 2,
///     targetDistribution: [1, 0,  1, 0])
/// ```
public struct BanditFeedback: Sendable, Hashable {
    /// The logged action of each round, in `0..<actionCount`.
    public let actions: [Int]
    /// The observed reward of each round.
    public let rewards: [Double]
    /// The logging policy's probability of the logged action (obp's `pscore`), in `(0, 1]`.
    public let propensities: [Double]
    /// The number of actions.
    public let actionCount: Int
    /// The evaluation policy's distribution, row-major `n × actionCount`; rows sum to 1.
    public let targetDistribution: [Double]
    /// The reward model's predictions `q̂`, row-major `n × actionCount`, when given.
    public let estimatedRewards: [Double]?
    /// The logging policy's full distribution, row-major `n × actionCount`, when known; used only
    /// for the zero-support diagnostic.
    public let loggingDistribution: [Double]?

    /// The number of rounds.
    public var count: Int { actions.count }

    /// Creates validated feedback from flat row-major arrays.
    ///
    /// - Throws: ``OffPolicyError`` naming the round and field of the first bad value: lengths
    ///   that disagree, an action out of range, a propensity outside `(0, 1]`, a non-finite
    ///   reward, a distribution row that is negative or does not sum to 1 (±1e-6).
    /// - Complexity: O(n · actionCount).
    public init(
        actions: [Int], rewards: [Double], propensities: [Double], actionCount: Int,
        targetDistribution: [Double], estimatedRewards: [Double]? = nil,
        loggingDistribution: [Double]? = nil
    ) throws(OffPolicyError) {
        let n = actions.count
        guard actionCount > 0 else {
            throw OffPolicyError(field: "action_count", message: "must be at least 1, got \(actionCount)")
        }
        guard rewards.count == n else {
            throw OffPolicyError(field: "rewards", message: "has \(rewards.count) values for \(n) rounds")
        }
        guard propensities.count == n else {
            throw OffPolicyError(field: "propensities", message: "has \(propensities.count) values for \(n) rounds")
        }
        for (name, matrix) in [("target_distribution", targetDistribution), ("estimated_rewards", estimatedRewards),
                               ("logging_distribution", loggingDistribution)] {
            if let matrix, matrix.count != n * actionCount {
                throw OffPolicyError(
                    field: name,
                    message: "has \(matrix.count) values, expected rounds × actions = \(n) × \(actionCount)")
            }
        }
        for i in 0..<n {
            let base = i * actionCount
            try OffPolicyValidation.check(
                round: i, action: actions[i], actionCount: actionCount, reward: rewards[i],
                propensity: propensities[i])
            try OffPolicyValidation.checkDistribution(
                targetDistribution[base..<(base + actionCount)], round: i, field: "target_distribution")
            if let estimatedRewards {
                for a in 0..<actionCount where !estimatedRewards[base + a].isFinite {
                    throw OffPolicyError(round: i, field: "estimated_rewards",
                                         message: "action \(a): not a finite number")
                }
            }
            if let loggingDistribution {
                try OffPolicyValidation.checkDistribution(
                    loggingDistribution[base..<(base + actionCount)], round: i, field: "logging_distribution")
            }
        }
        self.actions = actions
        self.rewards = rewards
        self.propensities = propensities
        self.actionCount = actionCount
        self.targetDistribution = targetDistribution
        self.estimatedRewards = estimatedRewards
        self.loggingDistribution = loggingDistribution
    }

    /// Creates feedback from obp-shaped arrays with a position axis: `targetDistribution[i][a][k]`
    /// and `estimatedRewards[i][a][k]` (`n × actions × positions`), `positions[i]` the slot the
    /// round was shown in. Keeps the slices at each round's position, which is all that obp's
    /// estimators read.
    ///
    /// - Throws: ``OffPolicyError`` for ragged arrays or a position out of range, then as the
    ///   flat initializer.
    /// - Complexity: O(n · actions).
    public init(
        actions: [Int], rewards: [Double], propensities: [Double], positions: [Int],
        targetDistribution: [[[Double]]], estimatedRewards: [[[Double]]]? = nil
    ) throws(OffPolicyError) {
        let n = actions.count
        guard positions.count == n, targetDistribution.count == n, estimatedRewards.map({ $0.count == n }) ?? true else {
            throw OffPolicyError(field: "positions", message: "positions, target_distribution and estimated_rewards must have one entry per round (\(n))")
        }
        let actionCount = targetDistribution.first?.count ?? 1
        func slice(_ cube: [[[Double]]], field: String) throws(OffPolicyError) -> [Double] {
            var flat: [Double] = []
            flat.reserveCapacity(n * actionCount)
            for i in 0..<n {
                guard cube[i].count == actionCount else {
                    throw OffPolicyError(round: i, field: field, message: "has \(cube[i].count) actions, expected \(actionCount)")
                }
                for a in 0..<actionCount {
                    let row = cube[i][a]
                    guard positions[i] >= 0, positions[i] < row.count else {
                        throw OffPolicyError(round: i, field: "positions",
                                             message: "position \(positions[i]) outside 0..<\(row.count)")
                    }
                    flat.append(row[positions[i]])
                }
            }
            return flat
        }
        let target = try slice(targetDistribution, field: "target_distribution")
        let rewardsModel = try estimatedRewards.map { (cube) throws(OffPolicyError) in try slice(cube, field: "estimated_rewards") }
        try self.init(actions: actions, rewards: rewards, propensities: propensities, actionCount: actionCount,
                      targetDistribution: target, estimatedRewards: rewardsModel)
    }
}

/// Input checks shared by ``BanditFeedback`` and ``LoggedRound`` sequences.
enum OffPolicyValidation {
    /// Tolerance on a distribution's total.
    static let sumTolerance = 1e-6

    static func check(round i: Int, action: Int, actionCount: Int, reward: Double,
                      propensity: Double) throws(OffPolicyError) {
        guard action >= 0, action < actionCount else {
            throw OffPolicyError(round: i, field: "action", message: "\(action) is outside 0..<\(actionCount)")
        }
        guard reward.isFinite else {
            throw OffPolicyError(round: i, field: "reward", message: "not a finite number (\(reward))")
        }
        guard propensity > 0, propensity <= 1 else {
            throw OffPolicyError(round: i, field: "propensity", message: "must be in (0, 1], got \(propensity)")
        }
    }

    static func checkDistribution(_ row: ArraySlice<Double>, round i: Int, field: String) throws(OffPolicyError) {
        var total = 0.0
        for index in row.indices {
            let p = row[index]
            guard p.isFinite, p >= 0 else {
                throw OffPolicyError(round: i, field: field,
                                     message: "action \(index - row.startIndex): probability \(p) is not in [0, 1]")
            }
            total += p
        }
        guard abs(total - 1) <= sumTolerance else {
            throw OffPolicyError(round: i, field: field, message: "probabilities sum to \(total), not 1")
        }
    }
}
