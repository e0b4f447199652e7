import SmartStackDatasets

/// The real-data check on the Open Bandit Dataset sample: the uniform-random policy's click
/// rate estimated off-policy from the Bernoulli Thompson Sampling log, next to the click rate
/// the uniform-random policy actually had in its own log; and the reverse, the BTS policy's
/// click rate estimated from the random log, next to BTS's observed rate.
///
/// For the reverse direction the BTS policy's distribution is needed at every round of the
/// random log, and the log holds only the probability of the item BTS showed. BTS here is
/// context-free (it ignores the user), so its value is `Σ_k P(k) Σ_a π̄(a | k) q(a, k)` with
/// `π̄(a | k)` its distribution over items at position `k` averaged over the logging period;
/// the check estimates `π̄(a | k)` by the share of BTS rounds at position `k` that showed item
/// `a`. (obp instead re-simulates BTS from its final posterior, which the sample does not hold.)
///
/// As in obp, a round is (item, position): the BTS log's `propensity_score` is the probability
/// that BTS showed the logged item at the logged position, and the uniform policy's
/// distribution at that position is 1/80 for every item. The reward model for DM and the DR
/// family is ``RewardModel`` with context key = position and action = item.
///
/// ```swift
/// let report = try OpenBanditCheck.run(directory: "../shared/datasets/obd", seed: 1)
/// print(report.uniformFromBTS[.ips()]?.value ?? .nan, report.observedRandom.rate)
/// ```
public enum OpenBanditCheck {
    /// An observed click rate with its bootstrap interval.
    public struct ObservedRate: Sendable, Hashable, Codable {
        /// The click rate.
        public var rate: Double
        /// The bootstrap percentile interval of the click rate (`nil` without bootstrap).
        public var ci: [Double]?
        /// The number of rounds.
        public var rounds: Int
        /// The number of clicks.
        public var clicks: Int
    }

    /// Everything the check measures.
    public struct Report: Sendable, Hashable, Codable {
        /// The uniform-random policy's value estimated from the BTS log.
        public var uniformFromBTS: OffPolicyResult
        /// The click rate observed in the uniform-random log (the estimate's target).
        public var observedRandom: ObservedRate
        /// The click rate observed in the BTS log (the logging policy's own value).
        public var observedBTS: ObservedRate
        /// The BTS policy's value estimated from the random log (see the type's notes).
        public var btsFromRandom: OffPolicyResult

        enum CodingKeys: String, CodingKey {
            case uniformFromBTS = "uniform_from_bts", observedRandom = "observed_random", observedBTS = "observed_bts"
            case btsFromRandom = "bts_from_random"
        }
    }

    /// Runs the check on `directory` holding `random_all.csv.gz` and `bts_all.csv.gz`.
    ///
    /// - Throws: ``OpenBanditLogError`` for a missing or malformed file, ``OffPolicyError`` for
    ///   invalid estimator or bootstrap options.
    /// - Complexity: O(rounds · (80 + bootstrap.samples · estimators)).
    public static func run(
        directory: String, estimators: [OffPolicyEstimator] = OffPolicyEstimator.standard,
        bootstrap: BootstrapOptions = BootstrapOptions(), seed: UInt64
    ) throws -> Report {
        let random = try OpenBanditLog(contentsOfFile: directory + "/random_all.csv.gz")
        let bts = try OpenBanditLog(contentsOfFile: directory + "/bts_all.csv.gz")
        return try report(random: random, bts: bts, estimators: estimators, bootstrap: bootstrap, seed: seed)
    }

    /// The check on logs already read.
    ///
    /// - Throws: ``OffPolicyError`` for invalid estimator or bootstrap options.
    /// - Complexity: O(rounds · (80 + bootstrap.samples · estimators)).
    public static func report(
        random: OpenBanditLog, bts: OpenBanditLog, estimators: [OffPolicyEstimator] = OffPolicyEstimator.standard,
        bootstrap: BootstrapOptions = BootstrapOptions(), seed: UInt64
    ) throws(OffPolicyError) -> Report {
        let uniform = [Double](repeating: 1 / Double(OpenBanditLog.itemCount), count: OpenBanditLog.itemCount)
        let rounds = (0..<bts.count).map { i in
            LoggedRound(candidateCount: OpenBanditLog.itemCount, loggedAction: bts.items[i],
                        propensity: bts.propensities[i], reward: bts.clicks[i],
                        targetDistribution: uniform, contextKey: "position=\(bts.positions[i] + 1)")
        }
        let estimate = try OffPolicyEvaluation.estimate(rounds, estimators: estimators, bootstrap: bootstrap, seed: seed)

        let btsShares = itemShares(bts)
        let reverseRounds = (0..<random.count).map { i in
            LoggedRound(candidateCount: OpenBanditLog.itemCount, loggedAction: random.items[i],
                        propensity: random.propensities[i], reward: random.clicks[i],
                        targetDistribution: btsShares[random.positions[i]],
                        contextKey: "position=\(random.positions[i] + 1)", loggingDistribution: uniform)
        }
        let reverse = try OffPolicyEvaluation.estimate(reverseRounds, estimators: estimators, bootstrap: bootstrap, seed: seed)
        return Report(uniformFromBTS: estimate,
                      observedRandom: try observed(random, bootstrap: bootstrap, seed: seed),
                      observedBTS: try observed(bts, bootstrap: bootstrap, seed: seed),
                      btsFromRandom: reverse)
    }

    /// Per position, the share of the log's rounds at that position showing each item (uniform
    /// for a position the log never used).
    static func itemShares(_ log: OpenBanditLog) -> [[Double]] {
        var counts = [[Double]](repeating: [Double](repeating: 0, count: OpenBanditLog.itemCount),
                                count: OpenBanditLog.positionCount)
        for i in 0..<log.count { counts[log.positions[i]][log.items[i]] += 1 }
        return counts.map { row in
            let total = row.reduce(0, +)
            return total > 0 ? row.map { $0 / total }
                : [Double](repeating: 1 / Double(OpenBanditLog.itemCount), count: OpenBanditLog.itemCount)
        }
    }

    /// The on-policy click rate with the same bootstrap (IPS with every weight 1 is the mean).
    private static func observed(_ log: OpenBanditLog, bootstrap: BootstrapOptions, seed: UInt64)
        throws(OffPolicyError) -> ObservedRate {
        let rounds = (0..<log.count).map { i in
            LoggedRound(candidateCount: 1, loggedAction: 0, propensity: 1, reward: log.clicks[i], targetDistribution: [1])
        }
        let result = try OffPolicyEvaluation.estimate(rounds, estimators: [.ips()], bootstrap: bootstrap, seed: seed)
        let estimate = result.estimates.first
        return ObservedRate(rate: log.clickRate, ci: estimate?.interval,
                            rounds: log.count, clicks: Int(log.clicks.reduce(0, +)))
    }
}
