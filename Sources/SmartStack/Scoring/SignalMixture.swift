import Foundation

/// The `contextual` policy's safety net: an online Bayesian mixture (exponential weights on
/// log-loss) of SmartStack's model and the counting baselines, so that a person whose data
/// carries no time, place or sequence structure still gets the best counter's picks.
///
/// Experts: the model as a forecaster in four calibrations — the softmax of its scores at
/// temperatures 1, 2 and 4 (a naive-Bayes sum of signals is often overconfident; the mixture
/// finds the temperature that fits this person), and its ranking read through its record —
/// and the baselines `mfu`, `mru`, `frecency`, `time-of-day`. A ranking becomes a forecaster
/// through its own record: the probability that the engaged widget is at its rank `r`, counted
/// per person (decayed with `half_life`; a Zipf prior of one pseudo-count per rank), so every expert is judged
/// on the same scale. At each learning
/// moment (the stacks as scored at a screen-on, then the first widget engaged; or a session
/// start in data without screen-on) each expert `e` pays `−log p_e(engaged)`; its weight is
/// `π_e · exp(−L_e)` normalised, `L_e` its loss decayed with `half_life` and `π_e` its prior:
/// the policy parameter `mixture` (default 0.01) shared by the four baselines, the rest by the
/// model's calibrations. This is Bayesian model averaging, i.e. exponential weights with
/// learning rate 1 on log-loss: over any stretch in which the losses are not discounted, the
/// mixture's log-loss exceeds the best expert's by at most `ln(1 / π_best)` (`ln 400` ≈ 6 nats
/// for a baseline at the default, `ln 4.04` for the model's best calibration). The small prior
/// means a baseline must out-predict the model by about 5 nats before it steers the ranking:
/// a structured person keeps the model, a person with nothing but frequency gets the counter's
/// picks within days. A widget's score is `log Σ_e w_e p_e(widget)`; the weights are shown in
/// every explanation.
///
/// ```swift
/// var mixture = SignalMixture()
/// mixture.weights(at: now, halfLife: 14 * 86_400)   // [0.2, 0.2, 0.2, 0.2, 0.2] at first
/// ```
struct SignalMixture: Sendable, Codable, Hashable {
    /// The experts, in the order of `weights`.
    enum Expert: Int, CaseIterable, Sendable {
        case model, modelWarm, modelWarmer, modelRanks, mfu, mru, frecency, timeOfDay

        /// The name shown in explanations (the model's calibrations count as one).
        var name: String {
            switch self {
            case .model, .modelWarm, .modelWarmer, .modelRanks: "model"
            case .mfu: "mfu"
            case .mru: "mru"
            case .frecency: "frecency"
            case .timeOfDay: "time-of-day"
            }
        }
    }

    static let expertCount = Expert.allCases.count
    /// The model's softmax temperatures, experts 0... in order (`experts` computes each from the
    /// previous by a square root).
    static let temperatures: [Double] = [1, 2, 4]
    /// The baselines' policies, in the order of their experts (after the model's ranking).
    static let baselines: [ResolvedPolicy.Kind] = [.mfu, .mru, .frecency, .timeOfDay]
    /// Experts read through their rank record: the model's ranking, then each baseline's.
    static let rankedCount = baselines.count + 1
    /// The model's experts (its calibrations), first in `Expert` order.
    static let modelCount = temperatures.count + 1
    /// Ranks counted separately; ranks beyond share the last cell.
    static let rankCells = 16  // at most 16: `rankProbabilities` keeps 16 cells on the stack
    /// The Zipf prior of rank `k` in a stack of `n <= rankCells`, at `n * rankCells + k`:
    /// `scale / (k + 1)` with `scale = n / H(n)`, computed once exactly as `rankProbabilities`
    /// computes it for larger stacks.
    private static let zipfPriors: [Double] = {
        let R = rankCells
        var table = [Double](repeating: 0, count: (R + 1) * R)
        for n in 1...R {
            let scale = zipfScale(n)
            for k in 0..<n { table[n * R + k] = scale / Double(k + 1) }
        }
        return table
    }()

    /// `n / H(n)` (`H` the harmonic number): the Zipf prior's scale, one pseudo-count per rank.
    private static func zipfScale(_ n: Int) -> Double {
        var harmonic = 0.0
        for k in 0..<n { harmonic += 1 / Double(k + 1) }
        return Double(n) / harmonic
    }

    /// Decayed log-losses per expert, and when they were last decayed.
    private(set) var losses = [Double](repeating: 0, count: SignalMixture.expertCount)
    private(set) var updated = -Double.infinity
    /// Per ranked expert, decayed counts of the engaged widget's rank (`rankCells` each).
    private(set) var rankHits = [Double](repeating: 0, count: SignalMixture.rankedCount * SignalMixture.rankCells)
    /// Counts the learning steps: rank calibrations kept in a scratch are valid while it stays.
    private(set) var version = 0

    init() {}

    @inline(__always) private func decay(to ts: Double, halfLife: Double) -> Double {
        guard updated.isFinite, ts > updated, halfLife > 0 else { return 1 }
        return exp2(-(ts - updated) / halfLife)
    }

    /// The experts' weights at `ts` into `w` (`expertCount` values summing to 1), the baselines
    /// sharing the prior weight `baselines` and the model's calibrations the rest.
    func weights(at ts: Double, halfLife: Double, baselines prior: Double, into w: inout [Double]) {
        if w.count != Self.expertCount { w = [Double](repeating: 0, count: Self.expertCount) }
        let f = decay(to: ts, halfLife: halfLife)
        let modelShare = (1 - prior) / Double(Self.modelCount), baselineShare = prior / Double(Self.baselines.count)
        var least = Double.infinity
        for e in 0..<Self.expertCount { least = min(least, losses[e] * f) }
        var total = 0.0
        for e in 0..<Self.expertCount {
            w[e] = (e < Self.modelCount ? modelShare : baselineShare) * exp(least - losses[e] * f)
            total += w[e]
        }
        for e in 0..<Self.expertCount { w[e] /= total }
    }

    /// The probabilities ranked expert `b` gives ranks `0..<min(n, rankCells)` of a stack of `n`
    /// into `q`: its record (a Zipf prior, one pseudo-count per rank), made non-increasing in rank by pooling
    /// adjacent violators (a ranking claims its first places are likelier; a thin record that
    /// says otherwise by chance must not turn the ranking upside down). When `n` exceeds
    /// `rankCells`, the last value is shared by every rank from there on.
    /// - Complexity: O(rankCells).
    func rankProbabilities(ranked b: Int, of n: Int, into q: UnsafeMutableBufferPointer<Double>) {
        let R = Self.rankCells
        let m = min(n, R)
        precondition(q.count >= R, "rankProbabilities: \(q.count) values for \(R) rank cells")
        precondition(R <= 16, "rankProbabilities: its stack buffers hold 16 rank cells")
        guard m > 0 else { return }
        // Per-rank values, each cell weighing the ranks it stands for. The prior is a ranking's
        // generic claim, Zipf's 1/(rank + 1) scaled to one pseudo-count per rank: its first
        // places are likelier, so a baseline's forecasts are informative from its first day.
        let lastWeight = n > R ? Double(n - R + 1) : 1
        if n <= R {
            rankHits.withUnsafeBufferPointer { hits in
                Self.zipfPriors.withUnsafeBufferPointer { zipf in
                    let own = hits.baseAddress! + b * R, prior = zipf.baseAddress! + n * R
                    for k in 0..<m { q[k] = own[k] + prior[k] }
                }
            }
        } else {
            let scale = Self.zipfScale(n)
            for k in 0..<m { q[k] = rankHits[b * R + k] + scale / Double(k + 1) }
            for k in m..<n { q[m - 1] += scale / Double(k + 1) }
        }
        // Dividing by a last weight of 1 (a stack of at most `rankCells`) changes nothing: skipped.
        if lastWeight != 1 { q[m - 1] /= lastWeight }
        // Pool adjacent violators: blocks of ranks (value, weight, first rank) on the stack (a
        // constant capacity, `rankCells`, which `m` never exceeds). A record already
        // non-increasing in rank, the usual case, pools nothing: skipped.
        var violated = false
        for k in 1..<max(1, m) where q[k] > q[k - 1] { violated = true; break }
        if violated {
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 32) { buffer in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 16) { starts in
                    let values = buffer.baseAddress!, weights = values + 16
                    var count = 0
                    for k in 0..<m {
                        values[count] = q[k]; weights[count] = k == m - 1 ? lastWeight : 1; starts[count] = k
                        count += 1
                        // Merge while a later block is likelier than the one before it.
                        while count > 1 && values[count - 1] > values[count - 2] {
                            let weight = weights[count - 2] + weights[count - 1]
                            values[count - 2] = (values[count - 2] * weights[count - 2] + values[count - 1] * weights[count - 1]) / weight
                            weights[count - 2] = weight
                            count -= 1
                        }
                    }
                    if count < m {  // some ranks were pooled: spread each block's value over its ranks
                        for j in 0..<count {
                            let end = j + 1 < count ? starts[j + 1] : m
                            for k in starts[j]..<end { q[k] = values[j] }
                        }
                    }
                }
            }
        }
        var total = 0.0
        if lastWeight == 1 {
            for k in 0..<m { total += q[k] }
        } else {
            for k in 0..<m { total += q[k] * (k == m - 1 ? lastWeight : 1) }
        }
        for k in 0..<m { q[k] /= total }
    }

    /// Each expert's probability of each widget of stack `s` into `scratch.experts` (row-major,
    /// `expertCount` per widget) and each ranked expert's rank of each widget into
    /// `scratch.ranks` (`rankedCount` per widget), from the model's scores in `scratch.scores`.
    /// - Complexity: O(n log n) per ranked expert.
    func experts(_ fs: FeatureState, policy: ResolvedPolicy, stack s: Int, widgets: [Int32], at time: EventTime,
                 scratch: inout ScoringScratch) {
        let n = widgets.count
        let E = Self.expertCount, B = Self.rankedCount, T = Self.temperatures.count, R = Self.rankCells
        scratch.prepareMixture(widgets: n, stack: s)
        let stale = n <= R && scratch.calibrationVersion[n] != version
        if stale { scratch.calibrationVersion[n] = version }
        // Every buffer read and written through pointers: one uniqueness check per array per
        // call, not one per element.
        scratch.withMixtureBuffers(stack: s) { buffers in
            guard n > 0 else { return }  // an empty stack: nothing to forecast (and no buffer addresses)
            let scores = buffers.scores, experts = buffers.experts, ranks = buffers.ranks
            let baseline = buffers.baseline
            let calibration = buffers.calibration, calibrationCache = buffers.calibrationCache
            // The model's softmax at temperatures 1, 2 and 4: exp(x / 2) is the square root of exp(x).
            var top = -Double.infinity
            for i in 0..<n { top = max(top, scores[i]) }
            var totals = (0.0, 0.0, 0.0)
            for i in 0..<n {
                let v = top.isFinite && scores[i].isFinite ? exp(scores[i] - top) : 1
                let half = v.squareRoot(), quarter = half.squareRoot()
                experts[i * E] = v; experts[i * E + 1] = half; experts[i * E + 2] = quarter
                totals.0 += v; totals.1 += half; totals.2 += quarter
            }
            for i in 0..<n {
                experts[i * E] /= totals.0; experts[i * E + 1] /= totals.1; experts[i * E + 2] /= totals.2
            }
            // Each ranking (ties in configured order), read through its record: the calibrations
            // of a stack size are kept until the record changes (`version`).
            let m = min(n, R)
            if stale {
                for b in 0..<B {
                    rankProbabilities(ranked: b, of: n, into: calibration)
                    for k in 0..<m { calibrationCache[(n * B + b) * R + k] = calibration[k] }
                }
            }
            precondition(buffers.rankOrders.count >= B * n, "experts: rank orders for \(buffers.rankOrders.count / n) of \(B) rankings")
            for b in 0..<B {
                if n > R { rankProbabilities(ranked: b, of: n, into: calibration) }
                if b == 0 {
                    for i in 0..<n { baseline[i] = scores[i] }
                } else {
                    Baselines.scores(Self.baselines[b - 1], policy: policy, fs, widgets: widgets, at: time, into: baseline)
                }
                // From this expert's last order of the stack: the sorted order is the same from
                // any start (scores descending, ties by index: a total order without NaN).
                // `rankOrders` holds `rankedCount` orders of `n` (`prepareMixture`).
                let rankOrder = UnsafeMutableBufferPointer(start: buffers.rankOrders.baseAddress! + b * n, count: n)
                // A NaN score is the only value unequal to itself: one comparison per widget.
                var comparable = true
                for i in 0..<n { comparable = comparable && baseline[i] == baseline[i] }
                if !comparable { for i in 0..<n { rankOrder[i] = i } }
                ScoringScratch.sort(rankOrder, count: n, by: UnsafeBufferPointer(baseline))
                // This expert's column of `experts` and `ranks`, and its calibration by rank.
                let expert = experts.baseAddress! + T + b, rank = ranks.baseAddress! + b
                if n <= R {
                    let cached = calibrationCache.baseAddress! + (n * B + b) * R
                    for k in 0..<n {
                        let i = rankOrder[k]
                        rank[i &* B] = Int32(truncatingIfNeeded: k)
                        expert[i &* E] = cached[k]
                    }
                } else {
                    for k in 0..<n {
                        let i = rankOrder[k]
                        rank[i &* B] = Int32(truncatingIfNeeded: k)
                        expert[i &* E] = calibration[min(k, m - 1)]
                    }
                }
            }
        }
    }

    /// Replaces `scratch.scores` by the log of the mixture's probability of each widget.
    func mix(weights w: [Double], widgets n: Int, scratch: inout ScoringScratch) {
        let E = Self.expertCount
        scratch.withExpertsAndScores { experts, scores in
            for i in 0..<n {
                var m = 0.0
                for e in 0..<E { m += w[e] * experts[i * E + e] }
                scores[i] = log(max(m, 1e-300))
            }
        }
    }

    /// One learning moment at `ts`: `engaged` holds each expert's probability of the widget
    /// engaged (`expertCount` values), `ranks` each ranked expert's rank of it; `weight` (in
    /// [0, 1]) is how much the engagement counts: less when the display explains part of it.
    mutating func learn(engaged p: UnsafeBufferPointer<Double>, ranks: UnsafeBufferPointer<Int32>, at ts: Double, halfLife: Double,
                        weight: Double = 1) {
        let f = decay(to: ts, halfLife: halfLife)
        if weight == 1 {
            for e in 0..<Self.expertCount { losses[e] = losses[e] * f - log(max(p[e], 1e-12)) }
        } else {
            for e in 0..<Self.expertCount { losses[e] = losses[e] * f - weight * log(max(p[e], 1e-12)) }
        }
        for i in rankHits.indices { rankHits[i] *= f }
        for b in 0..<Self.rankedCount where ranks[b] >= 0 {
            rankHits[b * Self.rankCells + min(Int(ranks[b]), Self.rankCells - 1)] += weight
        }
        if !updated.isFinite || ts > updated { updated = ts }
        version &+= 1
    }

    /// Whether the stored values are usable (checked when restoring a snapshot).
    var isConsistent: Bool {
        losses.count == Self.expertCount && rankHits.count == Self.rankedCount * Self.rankCells
            && (losses + rankHits).allSatisfy(\.isFinite)
    }
}
