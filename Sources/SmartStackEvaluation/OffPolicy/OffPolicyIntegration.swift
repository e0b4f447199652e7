import SmartStack

/// The single place where the evaluator calls the off-policy estimators on the logged
/// impressions of a replay paired with each policy.
///
/// Each `widget_impression` with a `propensity` becomes a `LoggedRound`: the candidates are the
/// stack's widgets at that moment, the logged action the impression's widget with its
/// propensity, the reward 1 when that widget was engaged within the attribution window (cut at
/// the next `screen_on`, as a decision's target is: a later session's engagement is not this
/// impression's), the
/// evaluated policy's distribution one-hot on the top it was showing for that stack (its last
/// decision at or before the impression), and the reward model's context `stack|local hour`.
/// Impressions where the policy showed nothing on that stack are left out. Beyond `roundLimit`
/// impressions, a seeded uniform sample is used, the same for every policy.
///
/// Users are given one at a time in user order, so only the sample is kept (at most
/// `roundLimit` impressions with every policy's action), whatever the number of users.
struct OffPolicyIntegration {
    /// Logged impressions of all users together, known before the first user is given: the
    /// sample is drawn in one pass.
    let total: Int
    private let limit: Int
    private var generator: SeededGenerator
    private var needed: Int
    private var remaining: Int
    private var given = 0
    /// The sampled impressions, their reward-model contexts and, per policy, its action at each.
    private var sample: [LoggedImpression] = []
    private var contexts: [String] = []
    private var actions: [[Int16]]
    /// One shared string per context.
    private var contextNames: [String: String] = [:]

    /// A sample of at most `roundLimit` of `total` impressions, seeded by `seed`.
    init(total: Int, roundLimit: Int, seed: UInt64, policies: Int) {
        self.total = total
        limit = max(1, roundLimit)
        // Selection sampling (Knuth's algorithm S): a uniform sample of `limit` impressions,
        // depending only on the seed and the data's order.
        generator = SeededGenerator(seed: SeededGenerator.mix(seed, 0x0FF_1C7))
        needed = min(limit, total)
        remaining = total
        actions = Array(repeating: [], count: policies)
    }

    /// Impressions given so far.
    var impressionsGiven: Int { given }

    /// Offers one user's impressions; `actions[p]` is policy `p`'s action at each.
    ///
    /// - Complexity: O(impressions × policies).
    mutating func add(stacks: [String], impressions: [LoggedImpression], actions userActions: [[Int16]]) {
        for (k, imp) in impressions.enumerated() {
            given += 1
            if total > limit {
                guard remaining > 0 else { continue }
                let take = generator.index(below: remaining) < needed
                remaining -= 1
                guard take else { continue }
                needed -= 1
            }
            sample.append(imp)
            let raw = "\(stacks[Int(imp.stack)])|\(imp.hour)"
            let context = contextNames[raw] ?? raw
            contextNames[raw] = context
            contexts.append(context)
            for p in actions.indices { actions[p].append(userActions[p][k]) }
        }
    }

    /// Off-policy estimates for policy `p`, or `nil` when no impression with a propensity could
    /// be paired with it.
    ///
    /// - Parameters:
    ///   - resamples: bootstrap resamples of the estimators' intervals.
    ///   - seed: the bootstrap's seed.
    ///   - threads: threads of the bootstrap (results do not depend on it).
    /// - Complexity: O(sample × (candidates + resamples × estimators)) / threads.
    func report(policy p: Int, resamples: Int, seed: UInt64, threads: Int) -> OffPolicyReport? {
        guard total > 0 else { return nil }
        var rounds: [LoggedRound] = []
        rounds.reserveCapacity(sample.count)
        var engaged = 0.0
        for (i, imp) in sample.enumerated() {
            let action = actions[p][i]
            guard action >= 0, action < imp.actionCount else { continue }
            var target = [Double](repeating: 0, count: Int(imp.actionCount))
            target[Int(action)] = 1
            if imp.isEngaged { engaged += 1 }
            rounds.append(LoggedRound(candidateCount: Int(imp.actionCount), loggedAction: Int(imp.loggedAction),
                                      propensity: imp.propensity, reward: imp.isEngaged ? 1 : 0,
                                      targetDistribution: target, contextKey: contexts[i]))
        }
        guard !rounds.isEmpty else { return nil }
        let rate = engaged / Double(rounds.count)
        do {
            let result = try OffPolicyEvaluation.estimate(
                rounds, bootstrap: BootstrapOptions(samples: resamples), seed: seed, threads: threads)
            let note = total > limit ? "a seeded uniform sample of \(limit) of the \(total) logged impressions" : nil
            return OffPolicyReport(impressions: rounds.count, loggedRate: rate, estimates: result, note: note)
        } catch {
            return OffPolicyReport(impressions: rounds.count, loggedRate: rate, estimates: nil,
                                   note: "off-policy estimation failed: \(error)")
        }
    }

    /// The doubly robust difference of policy `a` minus policy `b` on the sampled impressions
    /// where both showed a widget, with its paired percentile interval over the same resamples
    /// of those rounds (`nil` without any such round). The reward model is the one the reports'
    /// DR estimates use (context `stack|local hour`, fitted on every sampled round), held
    /// fixed, so each round's term is `q(x, top) + 1[logged = top] / p · (r − q(x, logged))`.
    ///
    /// - Complexity: O(sample + resamples × sample).
    func pairedDoublyRobust(_ a: Int, minus b: Int, resamples: Int, seed: UInt64, level: Double = 0.95)
        -> (difference: Double, interval: ClosedRange<Double>?)? {
        var model = RewardModel()
        for (i, imp) in sample.enumerated() {
            model.add(contextKey: contexts[i], action: Int(imp.loggedAction), reward: imp.isEngaged ? 1 : 0)
        }
        func term(_ imp: LoggedImpression, _ context: String, _ action: Int) -> Double {
            let q = model.prediction(contextKey: context, action: action)
            guard action == Int(imp.loggedAction) else { return q }
            let r = imp.isEngaged ? 1.0 : 0.0
            return q + (r - model.prediction(contextKey: context, action: Int(imp.loggedAction))) / imp.propensity
        }
        var differences: [Double] = []
        for (i, imp) in sample.enumerated() {
            let x = actions[a][i], y = actions[b][i]
            guard x >= 0, x < imp.actionCount, y >= 0, y < imp.actionCount else { continue }
            differences.append(term(imp, contexts[i], Int(x)) - term(imp, contexts[i], Int(y)))
        }
        guard !differences.isEmpty else { return nil }
        let n = differences.count
        let mean = differences.reduce(0, +) / Double(n)
        guard resamples > 0 else { return (mean, nil) }
        var means: [Double] = []
        means.reserveCapacity(resamples)
        for r in 0..<resamples {
            var g = SeededGenerator(seed: SeededGenerator.mix(SeededGenerator.mix(seed, 0xD1FF), UInt64(r)))
            var total = 0.0
            for _ in 0..<n { total += differences[g.index(below: n)] }
            means.append(total / Double(n))
        }
        return (mean, Bootstrap.percentileInterval(means, level: level))
    }
}
