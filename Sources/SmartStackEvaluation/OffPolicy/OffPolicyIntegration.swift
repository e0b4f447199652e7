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
/// decision at or before the impression), and the reward model's context `stack|local hour`
/// (the model fitted once on every sampled impression: what the logged widgets earned does not
/// depend on the policy evaluated).
/// Impressions where the policy showed nothing on that stack are left out. Beyond `roundLimit`
/// impressions, a seeded uniform sample is used, the same for every policy.
///
/// The bootstrap resamples user-days, the unit of every other interval of the report: one
/// person's impressions of a day share their causes (the day's routine, the widget on top for
/// hours), so resampling them one by one would count them as independent and narrow the
/// interval. It also makes a resample cost O(user-days) instead of O(impressions).
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
    /// The sampled impressions, their reward-model contexts (numbered in `contextIndex`) and, per
    /// policy, its action at each.
    private var sample: [LoggedImpression] = []
    private var contexts: [Int32] = []
    /// Each sampled impression's user-day, numbered in order of first sight.
    private var userDays: [Int32] = []
    private var userDayCount: Int32 = 0
    private var actions: [[Int16]]
    /// Each context `stack|local hour` seen, numbered in order of first sight.
    private var contextIndex: [String: Int32] = [:]
    /// The reward model, fitted by `finish()` once every user is given.
    private var model: Model?

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
        // The sample's size is known: its arrays are allocated once.
        sample.reserveCapacity(needed)
        contexts.reserveCapacity(needed)
        userDays.reserveCapacity(needed)
        for p in actions.indices { actions[p].reserveCapacity(needed) }
    }

    /// Impressions given so far.
    var impressionsGiven: Int { given }

    /// Offers one user's impressions; `actions[p]` is policy `p`'s action at each.
    ///
    /// - Complexity: O(impressions × policies).
    mutating func add(stacks: [String], impressions: [LoggedImpression], actions userActions: [[Int16]]) {
        var days: [Int32: Int32] = [:]
        // A user's impressions come in time order: most share the previous one's day.
        var lastDay: (day: Int32, unit: Int32)?
        // This user's context per (stack slot, hour), looked up once each.
        var userContexts = [Int32](repeating: -1, count: stacks.count * 24)
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
            let cell = Int(imp.stack) * 24 + Int(imp.hour)
            if userContexts[cell] < 0 {
                let name = "\(stacks[Int(imp.stack)])|\(imp.hour)"
                let index = contextIndex[name] ?? Int32(contextIndex.count)
                contextIndex[name] = index
                userContexts[cell] = index
            }
            contexts.append(userContexts[cell])
            if let lastDay, lastDay.day == imp.day {
                userDays.append(lastDay.unit)
            } else if let d = days[imp.day] {
                userDays.append(d)
                lastDay = (imp.day, d)
            } else {
                days[imp.day] = userDayCount
                userDays.append(userDayCount)
                lastDay = (imp.day, userDayCount)
                userDayCount += 1
            }
            for p in actions.indices { actions[p].append(userActions[p][k]) }
        }
    }

    /// Fits the reward model on the sample, after the last user: every policy's report and
    /// every paired difference use it.
    mutating func finish() {
        model = Model(sample, contexts: contexts, contextCount: contextIndex.count)
    }

    /// The model `finish()` fitted.
    private var fitted: Model {
        guard let model else { preconditionFailure("OffPolicyIntegration.finish() must be called before its reports") }
        return model
    }

    /// ``RewardModel``'s shrunk means (prior strength 5) fitted on every sampled impression,
    /// with contexts and actions as array indices: the global mean, per action (candidate
    /// index), per (context, action).
    private struct Model {
        private static let strength = 5.0
        private var sum = 0.0, count = 0.0
        private var actionSums: [Double] = [], actionCounts: [Double] = []
        private var cellSums: [Double], cellCounts: [Double]
        private let width: Int
        /// Every (context, action) cell's prediction, computed once.
        private var predictions: [Double]

        init(_ sample: [LoggedImpression], contexts: [Int32], contextCount: Int) {
            width = Int(sample.lazy.map(\.actionCount).max() ?? 0)
            cellSums = [Double](repeating: 0, count: contextCount * width)
            cellCounts = cellSums
            actionSums = [Double](repeating: 0, count: width)
            actionCounts = actionSums
            for (i, imp) in sample.enumerated() {
                let reward = imp.isEngaged ? 1.0 : 0.0
                let a = Int(imp.loggedAction), cell = Int(contexts[i]) * width + a
                sum += reward; count += 1
                actionSums[a] += reward; actionCounts[a] += 1
                cellSums[cell] += reward; cellCounts[cell] += 1
            }
            predictions = []   // every property set: `predict` may read them
            predictions = cellSums.indices.map(predict)
        }

        func prediction(context: Int32, action: Int) -> Double {
            predictions[Int(context) * width + action]
        }

        /// The prediction of cell `context × width + action`.
        private func predict(_ cell: Int) -> Double {
            guard count > 0 else { return 0 }
            let m = Self.strength
            let mu = sum / count
            let action = cell % width
            let muAction = (actionSums[action] + m * mu) / (actionCounts[action] + m)
            return (cellSums[cell] + m * muAction) / (cellCounts[cell] + m)
        }
    }

    /// Off-policy estimates for policy `p`, or `nil` when no impression with a propensity could
    /// be paired with it.
    ///
    /// - Parameters:
    ///   - resamples: bootstrap resamples of the estimators' intervals.
    ///   - seed: the bootstrap's seed.
    ///   - threads: threads of the bootstrap (results do not depend on it).
    /// - Complexity: O(sample + resamples × user-days × estimators) / threads.
    func report(policy p: Int, resamples: Int, seed: UInt64, threads: Int) -> OffPolicyReport? {
        guard total > 0 else { return nil }
        let model = fitted
        // The sampled impressions where the policy showed a widget, and how many were engaged.
        var paired: [Int32] = []
        paired.reserveCapacity(sample.count)
        var engaged = 0.0
        for (i, imp) in sample.enumerated() {
            let action = actions[p][i]
            guard action >= 0, action < imp.actionCount else { continue }
            if imp.isEngaged { engaged += 1 }
            paired.append(Int32(i))
        }
        guard !paired.isEmpty else { return nil }
        let rate = engaged / Double(paired.count)
        let note = total > limit ? "a seeded uniform sample of \(limit) of the \(total) logged impressions" : nil
        // Units are the user-days of the paired rounds, numbered densely in order of first sight.
        var unitOf = [Int32](repeating: -1, count: Int(userDayCount))
        var sums = UnitTerms(estimators: OffPolicyEstimator.standard, clustered: true)
        for k in paired {
            let i = Int(k)
            let imp = sample[i]
            let top = Int(actions[p][i]), logged = Int(imp.loggedAction)
            let day = Int(userDays[i])
            if unitOf[day] < 0 { unitOf[day] = Int32(sums.unitCount) }
            sums.addOneHot(top: top, logged: logged, propensity: imp.propensity, reward: imp.isEngaged ? 1 : 0,
                           qTop: model.prediction(context: contexts[i], action: top),
                           qLogged: model.prediction(context: contexts[i], action: logged), unit: Int(unitOf[day]))
        }
        let result = sums.result(bootstrap: BootstrapOptions(samples: resamples), seed: seed, threads: threads)
        return OffPolicyReport(impressions: paired.count, loggedRate: rate, estimates: result, note: note)
    }

    /// The doubly robust difference of policy `a` minus policy `b` on the sampled impressions
    /// where both showed a widget, with its paired percentile interval over the same resamples
    /// of the user-days of those rounds (`nil` without any such round). The reward model is the
    /// one of the reports' DR estimates, so each round's term is
    /// `q(x, top) + 1[logged = top] / p · (r − q(x, logged))`; a resample's difference is its
    /// user-days' summed terms over their rounds.
    ///
    /// - Complexity: O(sample + resamples × user-days).
    func pairedDoublyRobust(_ a: Int, minus b: Int, resamples: Int, seed: UInt64, level: Double = 0.95)
        -> (difference: Double, interval: ClosedRange<Double>?)? {
        let model = fitted
        func term(_ imp: LoggedImpression, _ context: Int32, _ action: Int) -> Double {
            let q = model.prediction(context: context, action: action)
            guard action == Int(imp.loggedAction) else { return q }
            let r = imp.isEngaged ? 1.0 : 0.0
            return q + (r - q) / imp.propensity
        }
        // Per user-day with a paired round: the sum of its differences and its rounds.
        var unit = [Int32](repeating: -1, count: Int(userDayCount))
        var sums: [Double] = [], counts: [Double] = []
        var total = 0.0, n = 0
        for (i, imp) in sample.enumerated() {
            let x = actions[a][i], y = actions[b][i]
            guard x >= 0, x < imp.actionCount, y >= 0, y < imp.actionCount else { continue }
            let difference = term(imp, contexts[i], Int(x)) - term(imp, contexts[i], Int(y))
            let d = Int(userDays[i])
            if unit[d] < 0 {
                unit[d] = Int32(sums.count)
                sums.append(0)
                counts.append(0)
            }
            sums[Int(unit[d])] += difference
            counts[Int(unit[d])] += 1
            total += difference
            n += 1
        }
        guard n > 0 else { return nil }
        let mean = total / Double(n)
        guard resamples > 0 else { return (mean, nil) }
        let g = sums.count
        var means: [Double] = []
        means.reserveCapacity(resamples)
        for r in 0..<resamples {
            var generator = SeededGenerator(seed: SeededGenerator.mix(SeededGenerator.mix(seed, 0xD1FF), UInt64(r)))
            var sum = 0.0, rounds = 0.0
            for _ in 0..<g {
                let k = generator.index(below: g)
                sum += sums[k]
                rounds += counts[k]
            }
            means.append(sum / rounds)
        }
        return (mean, Bootstrap.percentileInterval(means, level: level))
    }
}
