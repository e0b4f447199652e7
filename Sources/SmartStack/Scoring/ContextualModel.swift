import Foundation

/// SmartStack's own scoring model (`contextual`), also the feature map of `bandit`.
///
/// The score of widget `w` in a stack is a sum of log-ratios, one per signal, each telling how
/// much more (or less) likely `w` is to be the next widget engaged given that signal than in
/// general (a naive-Bayes combination with hierarchical smoothing):
///
/// - `base = log(n · p0(w))`: decayed usage (half-life `half_life`, default 14 d) smoothed with
///   one pseudo-engagement spread over the configured order (weights 0.8^position), so a cold
///   stack keeps its configured order and global usage takes over as it accumulates.
/// - `time = log(p_dt(w) / p0(w))`: circular time-of-day kernel counts, backing off
///   weekday/weekend-specific → all days → `p0`.
/// - `place = log(p_place(w) / p0(w))`, `sequence = log(p_app,gap(w) / p0(w))` backing off
///   previous app + gap → previous app → `p0`, `context` = sum over current key=value pairs,
///   `recent` = short-term decayed usage (half-life `recent_half_life`, default 1 h).
///
///   Every specific distribution is Dirichlet-smoothed toward the more general one,
///   `p_spec(w) = (n_spec(w) + prior · p_general(w)) / (N_spec + prior)` (`prior` default 10), so
///   with thin data a signal contributes ~0 and it grows smoothly with evidence.
/// - `hint`: an active positive relevance hint `s` contributes `s / max_w - 0.5`, where
///   `max_w` is the largest positive hint that widget ever gave: hints are compared only with
///   the same widget's own hints (WidgetKit semantics). Active hints `<= 0` make it ineligible.
/// - `feedback = log((E + 1) / (E + 1 + R))`: `E` engagements and `R` rejections (swipes away;
///   impressions passed over for another widget of the stack, a quarter each) around this time
///   of day.
///
/// Initial weights: `ContextualModel.defaultWeights` (1 for each log-ratio, 0.5 for context
/// pairs, 2 for hints, 1 for feedback), then learned online by `BanditModel` (at each screen-on
/// followed by an engagement of the stack, or at session starts in data without screen-on)
/// unless `learning_rate=0`.
enum ContextualModel {
    static let featureCount = 8
    enum Feature: Int, CaseIterable { case base, time, place, sequence, context, recent, hint, feedback }
    static let defaultWeights: [Double] = [1, 1, 1, 1, 0.5, 1, 2, 1]
    static let orderDecay = 0.8
    static let orderPriorWeight = 1.0

    /// Fills `scratch.features` (n × 8, row-major) with the feature values of `widgets` at `time`.
    ///
    /// Hot path of every ranking and of every learning step: each array of `fs` is fetched once
    /// per call (one reference count per array, none per widget) and the kernel loop reads
    /// through pointers; every sum and product is the same as a plain loop's, in the same order.
    /// - Complexity: O(n · (kernel bins + context pairs)).
    static func features(
        _ fs: FeatureState, widgets: [Int32], at time: EventTime, prior: Double,
        scratch: inout ScoringScratch
    ) {
        let n = widgets.count
        scratch.prepare(widgets: n)
        guard n > 0 else { return }
        let ts = time.secondsSinceEpoch
        let fL = fs.longClock.factor(at: ts)
        let fR = fs.recentClock.factor(at: ts)
        let place = fs.place(at: ts).map(Int.init) ?? -1
        let previous = fs.previousApp(at: ts)
        let app = previous?.0 ?? -1
        let appGap = previous.map { $0.0 * 4 + $0.1 } ?? -1
        scratch.withRawAndFeatures { raw, x in
            widgets.withUnsafeBufferPointer { widgets in
                let totals = evidence(fs, widgets: widgets, at: time, place: place, app: app, appGap: appGap,
                                      long: fL, recent: fR, into: raw)
                logRatios(fs, widgets: widgets, at: ts, prior: prior, totals: totals,
                          hasPlace: place >= 0, hasApp: app >= 0, raw: raw, into: x)
                contextPairs(fs, widgets: widgets, prior: prior, long: fL, raw: raw, into: x)
            }
        }
    }

    /// Sums of the raw evidence columns over a stack's widgets (the smoothing denominators).
    private struct Totals {
        var u = 0.0, c0 = 0.0, all = 0.0, dt = 0.0, place = 0.0, app = 0.0, gap = 0.0, recent = 0.0
    }

    /// Fills the raw evidence rows (`ScoringScratch.rawCount` columns per widget: configured-order
    /// weight, usage, kernel counts all days and this kind of day, place, previous app, previous
    /// app and gap, recent usage, kernel rejections) and returns their column sums.
    @inline(__always)
    private static func evidence(
        _ fs: FeatureState, widgets: UnsafeBufferPointer<Int32>, at time: EventTime,
        place: Int, app: Int, appGap: Int, long fL: Double, recent fR: Double,
        into raw: UnsafeMutableBufferPointer<Double>
    ) -> Totals {
        let R = ScoringScratch.rawCount
        let dayOffset = time.isWeekend ? 96 : 0
        var totals = Totals()
        var order = 1.0
        let usage = fs.usage, recent = fs.recent
        let placeRow = fs.placeTable.row(place), appRow = fs.appTable.row(app), gapRow = fs.appGapTable.row(appGap)
        @inline(__always) func at(_ row: [Double], _ w: Int) -> Double { w < row.count ? row[w] : 0 }
        fs.kernel.withWeights(atSecond: time.localSecondsOfDay) { first, kw in
            // The kernel's bins are `(first + k) mod 96`, one wrap at most (reach < 48): two
            // runs of consecutive bins, `k + before` for k < split and `k + after` from there.
            let count = kw.count
            let split = first < 0 ? -first : min(count, 96 - first)
            let before = first < 0 ? first + 96 : first
            let after = first < 0 ? first : first - 96
            fs.timeBins.withUnsafeBufferPointer { bins in
                fs.rejections.withUnsafeBufferPointer { rej in
                    // `timeBins` holds 192 and `rejections` 96 values per interned widget
                    // (FeatureState.internWidget) and every bin is in 0..<96, so the unchecked
                    // reads of `kernelSums` stay inside the widget's own rows.
                    let bins = bins.baseAddress!, rej = rej.baseAddress!, kw = kw.baseAddress!
                    for i in 0..<widgets.count {
                        let w = Int(widgets[i])
                        let base = w * 192
                        var sums = (all: 0.0, dt: 0.0, rr: 0.0)
                        // In order of k, exactly as one loop over `(first + k) mod 96`.
                        kernelSums(kw, bins + (base + before), bins + (base + dayOffset + before), rej + (w * 96 + before),
                                   count: split, into: &sums)
                        if split < count {
                            kernelSums(kw + split, bins + (base + after + split), bins + (base + dayOffset + after + split),
                                       rej + (w * 96 + after + split), count: count - split, into: &sums)
                        }
                        let (all, dt, rr) = sums
                        let r = i * R
                        raw[r] = order
                        raw[r + 1] = usage[w] * fL
                        raw[r + 2] = all * fL
                        raw[r + 3] = dt * fL
                        raw[r + 4] = at(placeRow, w) * fL
                        raw[r + 5] = at(appRow, w) * fL
                        raw[r + 6] = at(gapRow, w) * fL
                        raw[r + 7] = recent[w] * fR
                        raw[r + 8] = rr * fL
                        totals.u += order; totals.c0 += raw[r + 1]; totals.all += raw[r + 2]
                        totals.dt += raw[r + 3]; totals.place += raw[r + 4]
                        totals.app += raw[r + 5]; totals.gap += raw[r + 6]
                        totals.recent += raw[r + 7]
                        order = max(order * orderDecay, 1e-9)
                    }
                }
            }
        }
        return totals
    }

    /// Adds `Σ kw[k]·(days[k] + days[96 + k])`, `Σ kw[k]·day[k]` and `Σ kw[k]·rejections[k]`
    /// over `k < count`, in order of k, to `sums`.
    @inline(__always)
    private static func kernelSums(
        _ kw: UnsafePointer<Double>, _ days: UnsafePointer<Double>, _ day: UnsafePointer<Double>,
        _ rejections: UnsafePointer<Double>, count: Int, into sums: inout (all: Double, dt: Double, rr: Double)
    ) {
        var (all, dt, rr) = sums
        for k in 0..<count {
            all += kw[k] * (days[k] + days[96 + k])
            dt += kw[k] * day[k]
            rr += kw[k] * rejections[k]
        }
        sums = (all, dt, rr)
    }

    /// The eight log-ratio features of every widget from its raw evidence (context pairs are
    /// added by `contextPairs`); stores each widget's `p0` in raw column 9.
    @inline(__always)
    private static func logRatios(
        _ fs: FeatureState, widgets: UnsafeBufferPointer<Int32>, at ts: Double, prior a: Double,
        totals: Totals, hasPlace: Bool, hasApp: Bool,
        raw: UnsafeMutableBufferPointer<Double>, into x: UnsafeMutableBufferPointer<Double>
    ) {
        let F = featureCount
        let R = ScoringScratch.rawCount
        let dn = Double(widgets.count)
        let hintStart = fs.hintStart, hintEnd = fs.hintEnd, hintScore = fs.hintScore, hintMax = fs.hintMax
        for i in 0..<widgets.count {
            let r = i * R
            let u = raw[r] / totals.u
            let p0 = (raw[r + 1] + orderPriorWeight * u) / (totals.c0 + orderPriorWeight)
            raw[r + 9] = p0
            let pAll = (raw[r + 2] + a * p0) / (totals.all + a)
            let pDt = (raw[r + 3] + a * pAll) / (totals.dt + a)
            let o = i * F
            x[o] = log(dn * p0)
            x[o + 1] = log(pDt / p0)
            x[o + 2] = hasPlace ? log((raw[r + 4] + a * p0) / (totals.place + a) / p0) : 0
            if hasApp {
                let pApp = (raw[r + 5] + a * p0) / (totals.app + a)
                let pGap = (raw[r + 6] + a * pApp) / (totals.gap + a)
                x[o + 3] = log(pGap / p0)
            } else {
                x[o + 3] = 0
            }
            x[o + 4] = 0
            x[o + 5] = log((raw[r + 7] + a * p0) / (totals.recent + a) / p0)
            let w = Int(widgets[i])
            if hintStart[w] <= ts && ts < hintEnd[w] && hintScore[w] > 0 && hintMax[w] > 0 {
                x[o + 6] = min(hintScore[w] / hintMax[w], 1) - 0.5
            } else {
                x[o + 6] = 0
            }
            let e = raw[r + 2]
            x[o + 7] = log((e + 1) / (e + 1 + raw[r + 8]))
        }
    }

    /// Adds the `context` feature: one smoothed distribution per context key currently set.
    @inline(__always)
    private static func contextPairs(
        _ fs: FeatureState, widgets: UnsafeBufferPointer<Int32>, prior a: Double, long fL: Double,
        raw: UnsafeMutableBufferPointer<Double>, into x: UnsafeMutableBufferPointer<Double>
    ) {
        let F = featureCount
        let R = ScoringScratch.rawCount
        let n = widgets.count
        let pairs = fs.currentPairs
        guard !pairs.isEmpty else { return }
        let table = fs.pairTable
        @inline(__always) func at(_ row: [Double], _ w: Int) -> Double { w < row.count ? row[w] : 0 }
        for pair in pairs where pair >= 0 {
            let row = table.row(Int(pair))
            var total = 0.0
            for i in 0..<n { total += at(row, Int(widgets[i])) * fL }
            if total == 0 { continue }
            for i in 0..<n {
                let p0 = raw[i * R + 9]
                let v = at(row, Int(widgets[i])) * fL
                x[i * F + 4] += log((v + a * p0) / (total + a) / p0)
            }
        }
    }
}

/// Reusable buffers so a ranking allocates nothing but its result. They only grow: stacks of
/// different sizes share them, and readers index rows `< n` of the stack at hand.
struct ScoringScratch: Sendable {
    static let rawCount = 10
    var raw: [Double] = []
    var features: [Double] = []
    var scores: [Double] = []
    var eligible: [Bool] = []
    var order: [Int] = []
    var probabilities: [Double] = []

    /// Grows `raw` and `features` to hold `n` widgets.
    mutating func prepare(widgets n: Int) {
        if raw.count < n * Self.rawCount { raw = [Double](repeating: 0, count: n * Self.rawCount) }
        if features.count < n * ContextualModel.featureCount {
            features = [Double](repeating: 0, count: n * ContextualModel.featureCount)
        }
    }

    /// Grows `scores`, `eligible` and `order` to hold `n` widgets.
    mutating func prepareRanking(widgets n: Int) {
        if scores.count < n {
            scores = [Double](repeating: 0, count: n)
            eligible = [Bool](repeating: true, count: n)
        }
        if order.count < n { order = Array(0..<n) }
    }

    /// Runs `body` with `raw` and `features` as mutable buffers at once.
    @inline(__always)
    mutating func withRawAndFeatures<T>(
        _ body: (UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<Double>) -> T
    ) -> T {
        raw.withUnsafeMutableBufferPointer { raw in features.withUnsafeMutableBufferPointer { x in body(raw, x) } }
    }
}
