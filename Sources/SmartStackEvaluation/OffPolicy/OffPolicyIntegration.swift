import SmartStack

/// The single place where the evaluator calls the off-policy estimators on the logged
/// impressions of a replay paired with one policy.
///
/// Each `widget_impression` with a `propensity` becomes a `LoggedRound`: the candidates are the
/// stack's widgets at that moment, the logged action the impression's widget with its
/// propensity, the reward 1 when that widget was engaged within the attribution window, the
/// evaluated policy's distribution one-hot on the top it was showing for that stack (its last
/// decision at or before the impression), and the reward model's context `stack|local hour`.
/// Impressions where the policy showed nothing on that stack are left out. Beyond `roundLimit`
/// impressions, a seeded uniform sample is used.
enum OffPolicyIntegration {
    /// Off-policy estimates for one policy, or `nil` when the data logged no impression with a
    /// propensity that could be paired with the policy.
    ///
    /// - Parameters:
    ///   - roundLimit: the most impressions given to the estimators (a sample beyond it).
    ///   - resamples: bootstrap resamples of the estimators' intervals.
    ///   - seed: the seed of the sample and of the bootstrap.
    /// - Complexity: O(impressions × (candidates + resamples × estimators)).
    static func report(impressions users: [UserImpressions], roundLimit: Int, resamples: Int, seed: UInt64) -> OffPolicyReport? {
        let total = users.reduce(0) { $0 + $1.impressions.count }
        guard total > 0 else { return nil }
        // Selection sampling (Knuth's algorithm S): a uniform sample of `limit` impressions,
        // the same for every policy since it depends only on the seed and the data's order.
        let limit = max(1, roundLimit)
        var generator = SeededGenerator(seed: SeededGenerator.mix(seed, 0x0FF_1C7))
        var needed = min(limit, total), remaining = total
        var rounds: [LoggedRound] = []
        rounds.reserveCapacity(needed)
        var engaged = 0.0
        var contexts: [String: String] = [:]
        for user in users {
            for (imp, action) in zip(user.impressions, user.actions) {
                if total > limit {
                    let take = generator.index(below: remaining) < needed
                    remaining -= 1
                    guard take else { continue }
                    needed -= 1
                }
                guard action >= 0, action < imp.actionCount else { continue }
                var target = [Double](repeating: 0, count: Int(imp.actionCount))
                target[Int(action)] = 1
                let raw = "\(user.stacks[Int(imp.stack)])|\(imp.hour)"
                let context = contexts[raw] ?? raw   // one shared string per context
                contexts[raw] = context
                if imp.isEngaged { engaged += 1 }
                rounds.append(LoggedRound(candidateCount: Int(imp.actionCount), loggedAction: Int(imp.loggedAction),
                                          propensity: imp.propensity, reward: imp.isEngaged ? 1 : 0,
                                          targetDistribution: target, contextKey: context))
            }
        }
        guard !rounds.isEmpty else { return nil }
        let rate = engaged / Double(rounds.count)
        do {
            let result = try OffPolicyEvaluation.estimate(
                rounds, bootstrap: BootstrapOptions(samples: resamples), seed: seed)
            let note = total > limit ? "a seeded uniform sample of \(limit) of the \(total) logged impressions" : nil
            return OffPolicyReport(impressions: rounds.count, loggedRate: rate, estimates: result, note: note)
        } catch {
            return OffPolicyReport(impressions: rounds.count, loggedRate: rate, estimates: nil,
                                   note: "off-policy estimation failed: \(error)")
        }
    }
}

/// One user's logged impressions and one policy's actions at them, with the names their stack
/// slots stand for.
struct UserImpressions: Sendable {
    var stacks: [String]
    var impressions: [LoggedImpression]
    var actions: [Int16]
}
