import Dispatch
import Synchronization
import SmartStack

/// Off-policy estimates of a policy's mean reward from logged rounds: point estimates matching
/// Open Bandit Pipeline 0.5.7, seeded bootstrap intervals and weight diagnostics. Pure: the
/// same input and seed always give the same result.
///
/// ```swift
/// let result = try OffPolicyEvaluation.estimate(rounds, seed: 42)
/// print(result[.snips]?.value ?? .nan, result.diagnostics.effectiveSampleSize)
/// ```
public enum OffPolicyEvaluation {
    /// Estimates on obp-shaped feedback. The direct method and the DR family need
    /// `feedback.estimatedRewards`.
    ///
    /// Intervals: `bootstrap.samples` resamples of the rounds with replacement (drawn with
    /// SplitMix64 from `seed`), each estimator recomputed on every resample (ratio estimators —
    /// replay, SNIPS — as ratios; a resample where the ratio is undefined is left out), then
    /// the `alpha/2` and `1 − alpha/2` percentiles with linear interpolation (numpy's default).
    /// obp bootstraps the per-round terms instead, which is the same for the linear estimators.
    /// The reward model is held fixed across resamples, so the direct method's interval shows
    /// only the sampling of rounds, not the model's own error: read it as a lower bound on the
    /// uncertainty.
    ///
    /// - Throws: ``OffPolicyError`` for an estimator parameter that is negative or NaN, bad
    ///   bootstrap options, or a reward-model estimator without `estimatedRewards`.
    /// - Complexity: O(n · actions + bootstrap.samples · n · estimators).
    public static func estimate(
        _ feedback: BanditFeedback, estimators: [OffPolicyEstimator] = OffPolicyEstimator.standard,
        bootstrap: BootstrapOptions = BootstrapOptions(), seed: UInt64, threads: Int = 1
    ) throws(OffPolicyError) -> OffPolicyResult {
        try check(estimators: estimators, bootstrap: bootstrap)
        if estimators.contains(where: \.needsRewardModel), feedback.estimatedRewards == nil {
            throw OffPolicyError(field: "estimated_rewards",
                                 message: "the direct method and doubly robust estimators need reward-model predictions")
        }
        let terms = RoundTerms(feedback)
        return terms.result(estimators: estimators, bootstrap: bootstrap, seed: seed, threads: threads)
    }

    /// Estimates on rounds with any number of candidates each — the evaluator's entry point.
    ///
    /// The reward model: each round's own `estimatedRewards` when every round has them, else a
    /// ``RewardModel`` (prior strength `rewardModelPriorStrength`) fitted on the logged
    /// `(contextKey, loggedAction, reward)` rows. With `crossFitFolds` k > 1, round i is
    /// predicted by a model fitted without the rounds of its fold (`i mod k`), so a round's own
    /// reward never enters its prediction. Intervals as in the `BanditFeedback` overload,
    /// except that rounds naming the same ``LoggedRound/cluster`` are resampled together (a
    /// resample draws as many units as there are, rounds without a cluster being units alone).
    ///
    /// - Throws: ``OffPolicyError`` naming the round and field of the first invalid value.
    /// - Complexity: O(Σ candidates · crossFitFolds + bootstrap.samples · units · estimators).
    public static func estimate(
        _ rounds: [LoggedRound], estimators: [OffPolicyEstimator] = OffPolicyEstimator.standard,
        rewardModelPriorStrength: Double = 5, crossFitFolds: Int = 1,
        bootstrap: BootstrapOptions = BootstrapOptions(), seed: UInt64, threads: Int = 1
    ) throws(OffPolicyError) -> OffPolicyResult {
        try check(estimators: estimators, bootstrap: bootstrap)
        guard crossFitFolds >= 1 else {
            throw OffPolicyError(field: "cross_fit_folds", message: "must be at least 1, got \(crossFitFolds)")
        }
        for (i, round) in rounds.enumerated() { try round.validate(index: i) }
        let ownPredictions = !rounds.isEmpty && rounds.allSatisfy { $0.estimatedRewards != nil }
        var models: [RewardModel] = []
        if !ownPredictions {
            let folds = min(crossFitFolds, max(1, rounds.count))
            models = (0..<folds).map { fold in
                var model = RewardModel(priorStrength: rewardModelPriorStrength)
                for (i, round) in rounds.enumerated() where folds == 1 || i % folds != fold {
                    model.add(contextKey: round.contextKey, action: round.loggedAction, reward: round.reward)
                }
                return model
            }
        }
        // Predictions depend only on (fold, context key, candidate count): computed once each.
        struct CacheKey: Hashable {
            var fold: Int
            var context: String
            var candidates: Int
        }
        var cache: [CacheKey: [Double]] = [:]
        let terms = RoundTerms(rounds) { i, round in
            if ownPredictions { return round.estimatedRewards! }
            let fold = i % models.count
            let key = CacheKey(fold: fold, context: round.contextKey, candidates: round.candidateCount)
            if let cached = cache[key] { return cached }
            let q = (0..<round.candidateCount).map {
                models[fold].prediction(contextKey: round.contextKey, action: $0)
            }
            cache[key] = q
            return q
        }
        return terms.result(estimators: estimators, bootstrap: bootstrap, seed: seed, threads: threads)
    }

    /// The point estimate alone (no bootstrap), e.g. to compare with obp.
    ///
    /// - Throws: as the `BanditFeedback` overload.
    /// - Complexity: O(n · actions).
    public static func pointEstimate(_ estimator: OffPolicyEstimator, on feedback: BanditFeedback)
        throws(OffPolicyError) -> Double? {
        try estimate(feedback, estimators: [estimator], bootstrap: BootstrapOptions(samples: 0), seed: 0)
            .estimates[0].value
    }

    private static func check(estimators: [OffPolicyEstimator], bootstrap: BootstrapOptions) throws(OffPolicyError) {
        for estimator in estimators {
            if let problem = estimator.parameterProblem { throw OffPolicyError(field: "estimators", message: problem) }
        }
        guard bootstrap.samples >= 0 else {
            throw OffPolicyError(field: "bootstrap.samples", message: "must be >= 0, got \(bootstrap.samples)")
        }
        guard bootstrap.alpha > 0, bootstrap.alpha < 1 else {
            throw OffPolicyError(field: "bootstrap.alpha", message: "must be in (0, 1), got \(bootstrap.alpha)")
        }
    }
}

/// The per-round quantities every estimator is built from (structure of arrays).
struct RoundTerms {
    /// π_e(a_i) / p_i, unclipped.
    var weight: [Double] = []
    /// π_e(a_i).
    var targetAtLogged: [Double] = []
    var reward: [Double] = []
    /// q̂(x_i, a_i).
    var qFactual: [Double] = []
    /// Σ_a π_e(a) q̂(x_i, a) / Σ_a π_e(a) (obp's weighted average).
    var direct: [Double] = []
    var supportKnown = 0
    var supportViolations = 0
    /// Each round's bootstrap unit, dense in `0..<unitCount` in first-seen order, when some
    /// round names a cluster (rounds without one are units of their own); `nil`: every round.
    var units: [Int]?
    var unitCount = 0

    var count: Int { weight.count }

    init(_ feedback: BanditFeedback) {
        let k = feedback.actionCount
        reserve(feedback.count)
        for i in 0..<feedback.count {
            let base = i * k
            let a = feedback.actions[i]
            let target = feedback.targetDistribution[base..<(base + k)]
            var direct = 0.0, qFactual = 0.0
            if let q = feedback.estimatedRewards {
                direct = Self.weightedAverage(q[base..<(base + k)], weights: target)
                qFactual = q[base + a]
            }
            append(target: target[base + a], propensity: feedback.propensities[i], reward: feedback.rewards[i],
                   qFactual: qFactual, direct: direct)
            if let logging = feedback.loggingDistribution {
                noteSupport(target: target, logging: logging[base..<(base + k)])
            } else if feedback.propensities[i] == 1 {
                noteSupport(target: target, loggedOnly: a)
            }
        }
    }

    /// `predictions(i, round)` gives q̂ for each of the round's candidates.
    init(_ rounds: [LoggedRound], predictions: (Int, LoggedRound) -> [Double]) {
        reserve(rounds.count)
        for (i, round) in rounds.enumerated() {
            let target = round.targetDistribution[...]
            let q = predictions(i, round)
            append(target: target[round.loggedAction], propensity: round.propensity, reward: round.reward,
                   qFactual: q[round.loggedAction], direct: Self.weightedAverage(q[...], weights: target))
            if let logging = round.loggingDistribution {
                noteSupport(target: target, logging: logging[...])
            } else if round.propensity == 1 {
                noteSupport(target: target, loggedOnly: round.loggedAction)
            }
        }
        if rounds.contains(where: { $0.cluster != nil }) { numberUnits(rounds.lazy.map(\.cluster)) }
    }

    /// Numbers each round's bootstrap unit densely, in order of first sight: rounds of one
    /// cluster share a unit, a round without one is a unit alone.
    private mutating func numberUnits<Clusters: Sequence>(_ clusters: Clusters) where Clusters.Element == Int? {
        var dense: [Int: Int] = [:]
        var units: [Int] = []
        units.reserveCapacity(count)
        for cluster in clusters {
            if let cluster, let u = dense[cluster] {
                units.append(u)
                continue
            }
            if let cluster { dense[cluster] = unitCount }
            units.append(unitCount)
            unitCount += 1
        }
        self.units = units
    }

    private mutating func reserve(_ n: Int) {
        weight.reserveCapacity(n); targetAtLogged.reserveCapacity(n); reward.reserveCapacity(n)
        qFactual.reserveCapacity(n); direct.reserveCapacity(n)
    }

    private mutating func append(target: Double, propensity: Double, reward: Double, qFactual: Double, direct: Double) {
        weight.append(target / propensity)
        targetAtLogged.append(target)
        self.reward.append(reward)
        self.qFactual.append(qFactual)
        self.direct.append(direct)
    }

    private mutating func noteSupport(target: ArraySlice<Double>, logging: ArraySlice<Double>) {
        supportKnown += 1
        let offset = logging.startIndex - target.startIndex
        if target.indices.contains(where: { target[$0] > 0 && logging[$0 + offset] == 0 }) { supportViolations += 1 }
    }

    private mutating func noteSupport(target: ArraySlice<Double>, loggedOnly action: Int) {
        supportKnown += 1
        let start = target.startIndex
        if target.indices.contains(where: { $0 - start != action && target[$0] > 0 }) { supportViolations += 1 }
    }

    private static func weightedAverage(_ values: ArraySlice<Double>, weights: ArraySlice<Double>) -> Double {
        var numerator = 0.0, total = 0.0
        var v = values.startIndex, w = weights.startIndex
        while v < values.endIndex, w < weights.endIndex {
            numerator += values[v] * weights[w]
            total += weights[w]
            v += 1
            w += 1
        }
        return total > 0 ? numerator / total : 0
    }

    /// The quantities of round `i` that every estimator's terms are built from.
    func base(_ i: Int) -> RoundBase {
        RoundBase(weight: weight[i], target: targetAtLogged[i], reward: reward[i], qFactual: qFactual[i], direct: direct[i])
    }

    /// Every estimator's value and interval, with the weight diagnostics: the rounds' terms are
    /// summed per unit as `UnitTerms` reads them, one round at a time.
    func result(estimators: [OffPolicyEstimator], bootstrap: BootstrapOptions, seed: UInt64, threads: Int = 1) -> OffPolicyResult {
        var sums = UnitTerms(estimators: estimators, clustered: units != nil)
        for i in 0..<count { sums.add(base(i), unit: units?[i] ?? i) }
        sums.supportKnown = supportKnown
        sums.supportViolations = supportViolations
        return sums.result(bootstrap: bootstrap, seed: seed, threads: threads)
    }

    /// Each unit's summed terms, one row per unit (`width` columns), and which column holds
    /// each estimator's numerator, denominator and (with `countColumn`) the unit's rounds.
    struct UnitTable {
        var terms: [Double]
        var width: Int
        var units: Int
        var numerator: [Int]
        var denominator: [Int?]
        /// The column counting each unit's rounds; `nil`: every unit is one round.
        var countColumn: Int?
        var rounds: Int
    }

    /// Each estimator's value on `samples` resamples of the units of `table` (the same
    /// resamples for every estimator); resamples where a ratio estimator is undefined are left
    /// out.
    ///
    /// A resample draws `table.units` units with replacement and takes all their rounds, so a
    /// mean is the drawn units' sum over their rounds' count (`countColumn`; without it every
    /// unit is one round). Resample `s` takes draws `s × units ..< (s + 1) × units` of one
    /// generator seeded by `seed`, so resamples split among threads give the same replicates
    /// for any `threads`. A resample is summed as each unit's terms times the number of times it
    /// was drawn, in unit order: the draws only count into a small array, and the terms are then
    /// read once, in order, instead of at a random place per draw (a table of many units does
    /// not fit a cache: each random read was a miss). Each column is summed once per resample,
    /// so estimators sharing a column (SNIPS's numerator is IPS's) share its sum.
    ///
    /// - Complexity: O(samples × units × columns) / threads.
    static func replicates(_ table: UnitTable, samples: Int, seed: UInt64, threads: Int) -> [[Double]] {
        let g = table.units, width = table.width, n = table.rounds, countColumn = table.countColumn
        let numerator = table.numerator, denominator = table.denominator
        // Per resample, each estimator's value (`nil` where a ratio is undefined).
        let e = numerator.count
        let terms = table.terms
        // Up to 8 columns (the standard estimators' distinct terms and the rounds' count), each
        // unit's terms are one vector: a drawn unit is added in one lanewise multiply and add,
        // the same operations, in the same order, as column by column.
        let packed: [SIMD8<Double>]? = width <= 8 ? (0..<g).map { i in
            var v = SIMD8<Double>.zero
            for k in 0..<width { v[k] = terms[i * width + k] }
            return v
        } : nil
        let store = Mutex<[[Double?]]>(Array(repeating: [], count: samples))
        let chunks = max(1, min(threads, samples))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let lo = samples * chunk / chunks, hi = samples * (chunk + 1) / chunks
            var generator = SeededGenerator(seed: seed).advanced(by: UInt64(lo) &* UInt64(g))
            var sums = [Double](repeating: 0, count: width)
            var drawn = [UInt32](repeating: 0, count: g)
            var local: [[Double?]] = []
            local.reserveCapacity(hi - lo)
            terms.withUnsafeBufferPointer { terms in
                drawn.withUnsafeMutableBufferPointer { drawn in
                    sums.withUnsafeMutableBufferPointer { acc in
                        for _ in lo..<hi {
                            for _ in 0..<g { drawn[generator.index(below: g)] &+= 1 }
                            if let packed {
                                var total = SIMD8<Double>.zero
                                for i in 0..<g where drawn[i] != 0 {
                                    total += Double(drawn[i]) * packed[i]
                                    drawn[i] = 0
                                }
                                for k in 0..<width { acc[k] = total[k] }
                            } else {
                                for k in 0..<width { acc[k] = 0 }
                                for i in 0..<g where drawn[i] != 0 {
                                    let times = Double(drawn[i])
                                    drawn[i] = 0
                                    let base = i * width
                                    for k in 0..<width { acc[k] += times * terms[base + k] }
                                }
                            }
                            let rounds = countColumn.map { acc[$0] } ?? Double(n)
                            local.append((0..<e).map { k in
                                let den = denominator[k].map { acc[$0] } ?? rounds
                                return den > 0 ? acc[numerator[k]] / den : nil
                            })
                        }
                    }
                }
            }
            store.withLock { all in for r in lo..<hi { all[r] = local[r - lo] } }
        }
        let values = store.withLock { $0 }
        return (0..<e).map { k in values.compactMap { $0[k] } }
    }

    /// numpy's default (linear) percentile of sorted values, `q` in [0, 1].
    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}

extension SeededGenerator {
    /// The generator `draws` calls of `next()` later, in O(1): SplitMix64's state advances by the
    /// same constant at every call (a test holds this to the step in `next()`).
    func advanced(by draws: UInt64) -> SeededGenerator {
        var g = self
        g.state &+= draws &* 0x9E37_79B9_7F4A_7C15
        return g
    }
}
