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
    /// Hot path of every ranking and of every learning step. Arrays of `fs` are subscripted in
    /// place, never bound to a local (a local copy of a class's array costs an atomic reference
    /// count each way); only the kernel loop's three arrays are read through pointers. Every sum
    /// and product is the same as a plain loop's, in the same order.
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
                    // Kernel sums into raw columns 2, 3 and 8 (scaled below), two widgets at a
                    // time in the lanes of SIMD2 vectors (a last odd widget fills both lanes):
                    // each lane adds and multiplies exactly as a scalar loop over
                    // `(first + k) mod 96` would, in the same order, so the sums are bit-identical.
                    for i in stride(from: 0, to: widgets.count, by: 2) {
                        let hasPair = i + 1 < widgets.count
                        let w0 = Int(widgets[i]), w1 = hasPair ? Int(widgets[i + 1]) : w0
                        var sums = (all: SIMD2<Double>(), dt: SIMD2<Double>(), rr: SIMD2<Double>())
                        kernelSums(kw, bins + (w0 * 192 + before), bins + (w1 * 192 + before), dayOffset: dayOffset,
                                   rej + (w0 * 96 + before), rej + (w1 * 96 + before), count: split, into: &sums)
                        if split < count {
                            kernelSums(kw + split, bins + (w0 * 192 + after + split), bins + (w1 * 192 + after + split),
                                       dayOffset: dayOffset, rej + (w0 * 96 + after + split), rej + (w1 * 96 + after + split),
                                       count: count - split, into: &sums)
                        }
                        for lane in 0..<(hasPair ? 2 : 1) {
                            let r = (i + lane) * R
                            raw[r + 2] = sums.all[lane]; raw[r + 3] = sums.dt[lane]; raw[r + 8] = sums.rr[lane]
                        }
                    }
                    for i in 0..<widgets.count {
                        let w = Int(widgets[i])
                        let r = i * R
                        let all = raw[r + 2], dt = raw[r + 3], rr = raw[r + 8]
                        raw[r] = order
                        raw[r + 1] = fs.usage[w] * fL
                        raw[r + 2] = all * fL
                        raw[r + 3] = dt * fL
                        raw[r + 4] = fs.placeTable.value(place, w) * fL
                        raw[r + 5] = fs.appTable.value(app, w) * fL
                        raw[r + 6] = fs.appGapTable.value(appGap, w) * fL
                        raw[r + 7] = fs.recent[w] * fR
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
    /// over `k < count`, in order of k, to `sums`, for two widgets at once: `a` and `b` are their
    /// 192 time bins from the first bin, `ra` and `rb` their rejections; lane 0 is `a`'s, lane 1
    /// `b`'s, each computed exactly as a scalar loop would (no fused or reordered operation).
    @inline(__always)
    private static func kernelSums(
        _ kw: UnsafePointer<Double>, _ a: UnsafePointer<Double>, _ b: UnsafePointer<Double>, dayOffset: Int,
        _ ra: UnsafePointer<Double>, _ rb: UnsafePointer<Double>, count: Int,
        into sums: inout (all: SIMD2<Double>, dt: SIMD2<Double>, rr: SIMD2<Double>)
    ) {
        var (all, dt, rr) = sums
        // Offsets folded into pointers up front: no checked index arithmetic in the loop.
        let a2 = a + 96, b2 = b + 96, ad = a + dayOffset, bd = b + dayOffset
        for k in 0..<count {
            let weight = SIMD2(repeating: kw[k])
            all += weight * (SIMD2(a[k], b[k]) + SIMD2(a2[k], b2[k]))
            dt += weight * SIMD2(ad[k], bd[k])
            rr += weight * SIMD2(ra[k], rb[k])
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
            if fs.hintStart[w] <= ts && ts < fs.hintEnd[w] && fs.hintScore[w] > 0 && fs.hintMax[w] > 0 {
                x[o + 6] = min(fs.hintScore[w] / fs.hintMax[w], 1) - 0.5
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
        for k in 0..<fs.currentPairs.count where fs.currentPairs[k] >= 0 {
            let pair = Int(fs.currentPairs[k])
            var total = 0.0
            for i in 0..<n { total += fs.pairTable.value(pair, Int(widgets[i])) * fL }
            if total == 0 { continue }
            for i in 0..<n {
                let p0 = raw[i * R + 9]
                let v = fs.pairTable.value(pair, Int(widgets[i])) * fL
                x[i * F + 4] += log((v + a * p0) / (total + a) / p0)
            }
        }
    }
}

extension Array where Element == Double {
    /// Makes this array a copy of the first `count` values of `source`, in place: its storage
    /// is reused (no allocation, no reference counting) while its size stays the same.
    mutating func overwrite(withFirst count: Int, of source: UnsafeBufferPointer<Double>) {
        precondition(count <= source.count, "overwrite: \(count) values asked of \(source.count)")
        if self.count != count { self = [Double](repeating: 0, count: count) }
        guard count > 0 else { return }
        withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: source.baseAddress!, count: count) }
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

    /// Runs `body` with `features` and `scores` as buffers (one uniqueness check per array,
    /// not one per write).
    @inline(__always)
    mutating func withFeaturesAndScores<T>(
        _ body: (UnsafeBufferPointer<Double>, UnsafeMutableBufferPointer<Double>) -> T
    ) -> T {
        features.withUnsafeBufferPointer { x in scores.withUnsafeMutableBufferPointer { body(x, $0) } }
    }

    /// Runs `body` with `scores`, `eligible` and `order` as mutable buffers at once.
    @inline(__always)
    mutating func withRanking<T>(
        _ body: (UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<Bool>, UnsafeMutableBufferPointer<Int>) -> T
    ) -> T {
        scores.withUnsafeMutableBufferPointer { scores in
            eligible.withUnsafeMutableBufferPointer { eligible in
                order.withUnsafeMutableBufferPointer { body(scores, eligible, $0) }
            }
        }
    }
}
