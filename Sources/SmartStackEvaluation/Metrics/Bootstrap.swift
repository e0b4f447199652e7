import Synchronization
import Dispatch
import SmartStack

/// Percentile bootstrap over user-days, seeded and parallel, with results that do not depend on
/// the number of threads: resample `r` draws its units from its own generator seeded by
/// `mix(seed, r)`, and every policy is measured on the same resample (so paired differences
/// against a reference are paired on the same decisions).
enum Bootstrap {
    /// The confidence level of every interval in a report.
    static let confidenceLevel = 0.95

    /// The outcome: per policy a 95% interval of each metric, and, when a reference is given,
    /// the paired difference's interval for every other policy.
    struct Result: Sendable {
        var intervals: [MetricIntervals]
        var pairedIntervals: [MetricIntervals?]
        /// Per policy, per estimated metric (`Metric.estimated` order), the value in each
        /// resample (NaN where undefined): what any other paired comparison is computed from.
        var samples: [[[Double]]]

        /// The paired interval of `metric` for policy `a` − policy `b` on the same resamples,
        /// `nil` without resamples or when it is undefined in most of them.
        func pairedInterval(_ metric: Metric, _ a: Int, minus b: Int, level: Double = confidenceLevel) -> ClosedRange<Double>? {
            guard let m = Metric.estimated.firstIndex(of: metric), a < samples.count, b < samples.count,
                  !samples[a].isEmpty else { return nil }
            return percentileInterval(zip(samples[a][m], samples[b][m]).map { $0 - $1 }, level: level)
        }
    }

    /// Runs `resamples` resamples of the units of `table` (finished).
    ///
    /// - Complexity: O(resamples × policies × units) / threads, plus the medians' walks off
    ///   their pivots (`DwellOrder`).
    static func run(_ table: ScoredDays, resamples: Int, seed: UInt64, threads: Int, reference: Int?, level: Double = confidenceLevel) -> Result {
        let policies = table.policies.count
        let metrics = Metric.estimated
        let units = table.unitCount
        guard resamples > 0, units > 0 else {
            return Result(intervals: Array(repeating: MetricIntervals(), count: policies),
                          pairedIntervals: Array(repeating: nil, count: policies),
                          samples: Array(repeating: [], count: policies))
        }
        // samples[policy][metric][r], NaN where undefined.
        let store = Mutex<[[[Double]]]>(Array(repeating: Array(repeating: Array(repeating: .nan, count: resamples), count: metrics.count), count: policies))
        let chunks = max(1, min(threads, resamples))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let lo = resamples * chunk / chunks, hi = resamples * (chunk + 1) / chunks
            var scratch = ResampleScratch(table)
            var local = Array(repeating: Array(repeating: Array(repeating: Double.nan, count: hi - lo), count: metrics.count), count: policies)
            for r in lo..<hi {
                var g = SeededGenerator(seed: SeededGenerator.mix(seed, UInt64(r)))
                scratch.draw(&g)
                for p in 0..<policies {
                    let v = scratch.values(of: table, policy: p)
                    for (m, metric) in metrics.enumerated() { local[p][m][r - lo] = v[metric] ?? .nan }
                }
            }
            store.withLock { all in
                for p in 0..<policies { for m in 0..<metrics.count { for r in lo..<hi { all[p][m][r] = local[p][m][r - lo] } } }
            }
        }
        let samples = store.withLock { $0 }
        var intervals: [MetricIntervals] = []
        var paired: [MetricIntervals?] = []
        for p in 0..<policies {
            var ci = MetricIntervals()
            for (m, metric) in metrics.enumerated() { ci[metric] = percentileInterval(samples[p][m], level: level) }
            intervals.append(ci)
            if let reference, reference != p {
                var d = MetricIntervals()
                for (m, metric) in metrics.enumerated() {
                    let diffs = zip(samples[p][m], samples[reference][m]).map { $0 - $1 }
                    d[metric] = percentileInterval(diffs, level: level)
                }
                paired.append(d)
            } else {
                paired.append(nil)
            }
        }
        return Result(intervals: intervals, pairedIntervals: paired, samples: samples)
    }

    /// The central `level` percentile interval of the finite values (linear interpolation
    /// between order statistics, R's type 7); `nil` when fewer than half the values are finite.
    ///
    /// - Complexity: O(n log n).
    static func percentileInterval(_ values: [Double], level: Double) -> ClosedRange<Double>? {
        let finite = values.filter(\.isFinite).sorted()
        guard !finite.isEmpty, finite.count * 2 >= values.count else { return nil }
        let alpha = (1 - level) / 2
        return quantile(finite, alpha)...quantile(finite, 1 - alpha)
    }

    /// Type-7 quantile of sorted values.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let h = Double(sorted.count - 1) * q
        let lo = Int(h.rounded(.down))
        let hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (h - Double(lo)) * (sorted[hi] - sorted[lo])
    }
}
