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
/// - `place = log((c · p_place(w) + (1 − c) · p0(w)) / p0(w))`, `c` the confidence that the
///   person is still at the visit's place (`PlaceTracker`); `sequence = log(p_seq(w) / p0(w))`
///   backing off the last three apps → the last two → the last three configured widgets' apps
///   → the last two of those → previous app + gap → previous app → `p0` (`SequenceModel`; the
///   widgets-only contexts, `FeatureState.routines`, are where a context broken by an unrelated
///   app backs off to: the routine it interrupted); `context` = sum over current key=value
///   pairs and the implicit one of the moment's UTC offset; `recent` = short-term decayed
///   usage (half-life `recent_half_life`, default 1 h).
///
///   Every specific distribution is Dirichlet-smoothed toward the more general one,
///   `p_spec(w) = (n_spec(w) + prior · p_general(w)) / (N_spec + prior)` (`prior` default 10), so
///   with thin data a signal contributes ~0 and it grows smoothly with evidence. The sequence
///   signal's chain of contexts of previous apps uses `sequence_prior` (default 20) instead: its
///   six levels are many thin contexts each, and trusting each after ten engagements let chance
///   runs steer the ranking (issue 14's test bed, tuning seeds: 20 against 10 gained on average
///   and on the sequence persona; 40 and more raised flicker on a bundled persona).
/// - `hint`: an active positive relevance hint `s` contributes `s / max_w - 0.5`, where
///   `max_w` is the largest positive hint that widget ever gave: hints are compared only with
///   the same widget's own hints (WidgetKit semantics). Active hints `<= 0` make it ineligible.
/// - `awake = log(p_awake(w) / p0(w))`: counts per band of time since the person's day began
///   (`WakeClock`); `hour = log(p_hour(w) / p0(w))`: all-time counts in this clock hour (what
///   the `time-of-day` baseline ranks by). Both smoothed toward `p0`; their weights start at 0:
///   they refine the time of day where the learner finds they help.
/// - `feedback = log((E + 1) / (E + 1 + R))`: `E` engagements and `R` rejections (swipes away;
///   impressions passed over for another widget of the stack, a quarter each) around this time
///   of day.
///
/// Initial weights: `ContextualModel.defaultWeights` (1 for each log-ratio, 0.5 for context
/// pairs, 2 for hints, 1 for feedback, 0 for `awake` and `hour`), then learned online by
/// `BanditModel` (AdaGrad for `contextual`; at each screen-on followed by an engagement of the
/// stack, or at session starts in data without screen-on) unless `learning_rate=0`.
enum ContextualModel {
    /// The columns of the feature vector (`ScoringScratch.features`): the terms the score weighs.
    /// A new feature is one case, with its name and initial weight, plus its value in `logRatios`
    /// (snapshots hold weights and kept features: a new one needs a new `UserEngine.Snapshot` version).
    enum Feature: Int, ScratchColumn {
        case base, time, place, sequence, context, recent, hint, feedback, awake, hour

        static let count = allCases.count

        /// Its name in `FeatureVector.names` and its weight before any learning.
        var declaration: (name: String, defaultWeight: Double) {
            switch self {
            case .base: ("base", 1)
            case .time: ("time", 1)
            case .place: ("place", 1)
            case .sequence: ("sequence", 1)
            case .context: ("context", 0.5)
            case .recent: ("recent", 1)
            case .hint: ("hint", 2)
            case .feedback: ("feedback", 1)
            // Refinements of the time of day, learned in from nothing.
            case .awake: ("awake", 0)
            case .hour: ("hour", 0)
            }
        }
    }

    /// The columns of the raw evidence behind the features (`ScoringScratch.raw`), decayed to
    /// the instant scored: filled by `evidence`, except `p0` (by `logRatios`).
    enum Evidence: Int, ScratchColumn {
        /// The configured-order weight, `orderDecay^position`.
        case order
        /// Usage (long decay).
        case usage
        /// Time-of-day kernel counts of engagements, all days and this kind of day (weekday or
        /// weekend day).
        case timeAllDays, timeSameDays
        /// Counts at the current place, after the previous app, after it with the current gap,
        /// after the last two and the last three apps (`SequenceModel`).
        case place, previousApp, previousAppGap, lastTwoApps, lastThreeApps
        /// Counts after the last two and three configured widgets' apps (`FeatureState.routines`).
        case routineTwo, routineThree
        /// Short-term usage (recent decay).
        case recent
        /// Time-of-day kernel count of rejections.
        case rejections
        /// Counts in this band of time awake (`WakeClock`), and in this clock hour (all days,
        /// not decayed).
        case awake, hour
        /// The widget's overall probability, which `contextPairs` smooths toward.
        case p0

        static let count = allCases.count
    }

    static let featureCount = Feature.count
    static let defaultWeights = Feature.allCases.map(\.declaration.defaultWeight)
    static let orderDecay = 0.8
    static let orderPriorWeight = 1.0

    /// Fills `scratch.features` (a row of `Feature` columns per widget) with the feature values
    /// of `widgets` at `time`.
    ///
    /// Hot path of every ranking and of every learning step. Arrays of `fs` are read through
    /// pointers (the kernel's bins, the widgets' signals and, per stack, the row of each context
    /// in its count table), never bound to a local (a local copy of a class's array costs an
    /// atomic reference count each way). Every sum and product is the same as a plain loop's, in
    /// the same order.
    /// - Complexity: O(n · (kernel bins + context pairs)).
    /// `records` counts the events `fs` has recorded: the moment's context (the same for every
    /// stack) is computed once per instant and count, and kept in `scratch`.
    /// `population`, when given, is the person's reading of a host's population prior: `p0` and
    /// the time of day then smooth toward it (`ContextualModel+Population.swift`). Each case runs
    /// its own specialization of the same code: without a prior, none of the prior's.
    @inline(__always)
    static func features(
        _ fs: FeatureState, widgets: [Int32], at time: EventTime, records: UInt64, prior: Double, sequencePrior: Double,
        population: PopulationLookup? = nil, scratch: inout ScoringScratch
    ) {
        if let population {
            features(fs, widgets: widgets, at: time, records: records, prior: prior, sequencePrior: sequencePrior,
                     source: population, scratch: &scratch)
        } else {
            features(fs, widgets: widgets, at: time, records: records, prior: prior, sequencePrior: sequencePrior,
                     source: NoPopulation(), scratch: &scratch)
        }
    }

    private static func features<Source: PopulationSource>(
        _ fs: FeatureState, widgets: [Int32], at time: EventTime, records: UInt64, prior: Double, sequencePrior: Double,
        source: Source, scratch: inout ScoringScratch
    ) {
        let n = widgets.count
        scratch.prepare(widgets: n)
        guard n > 0 else { return }
        let ts = time.secondsSinceEpoch
        if scratch.moment?.time != time || scratch.moment?.records != records {
            scratch.moment = Moment(fs, at: time, records: records)
        }
        let moment = scratch.moment!
        let fL = moment.long, fR = moment.recent, context = moment.context
        scratch.withRawAndFeatures { raw, x in
            widgets.withUnsafeBufferPointer { widgets in
                let totals = evidence(fs, widgets: widgets, at: time, context: context, long: fL, recent: fR, into: raw)
                fs.signals.withUnsafeBufferPointer { signals in
                    if let terms = source.terms(fs, widgets: widgets, at: time, context: context, raw: raw, totals: totals) {
                        logRatios(signals, widgets: widgets, at: ts, prior: prior, sequencePrior: sequencePrior, totals: totals,
                                  placeConfidence: context.placeConfidence, hasApp: context.app >= 0,
                                  targets: PopulationTargets(terms: terms), raw: raw, into: x)
                    } else {
                        logRatios(signals, widgets: widgets, at: ts, prior: prior, sequencePrior: sequencePrior, totals: totals,
                                  placeConfidence: context.placeConfidence, hasApp: context.app >= 0, targets: OwnTargets(),
                                  raw: raw, into: x)
                    }
                }
                contextPairs(fs, widgets: widgets, offset: time.utcOffsetSeconds, prior: prior, long: fL, raw: raw, into: x)
            }
        }
    }

    /// What the moment's contexts are: the visit's place and the confidence in it, the previous
    /// app and its gap bucket, the rows of the last two and three apps and of the last two and
    /// three widgets' apps, the band of time awake.
    struct Context {
        var place: Int, placeConfidence: Double, app: Int, appGap: Int
        var runs: (order2: Int, order3: Int)
        var routines: (order2: Int, order3: Int)
        var awake: Int
    }

    /// The context at `time` after `records` events and the long and recent clocks' factors then.
    struct Moment {
        let time: EventTime, records: UInt64
        let long: Double, recent: Double
        let context: Context

        init(_ fs: FeatureState, at time: EventTime, records: UInt64) {
            let ts = time.secondsSinceEpoch
            self.time = time
            self.records = records
            long = fs.longClock.factor(at: ts)
            recent = fs.recentClock.factor(at: ts)
            let visit = fs.place(at: ts)
            let app = fs.previousApp(at: ts)
            context = Context(
                place: visit.map { Int($0.0) } ?? -1, placeConfidence: visit?.1 ?? 0,
                app: app?.0 ?? -1, appGap: app.map { $0.0 * 4 + $0.1 } ?? -1,
                runs: app != nil ? fs.sequence.rows(at: ts) : (order2: -1, order3: -1),
                routines: app != nil ? fs.routines.rows(at: ts) : (order2: -1, order3: -1),
                awake: fs.wakeClock.band(at: ts))
        }
    }

    /// Sums of the raw evidence columns over a stack's widgets (the smoothing denominators).
    struct Totals {
        var u = 0.0, c0 = 0.0, all = 0.0, dt = 0.0, place = 0.0, app = 0.0, gap = 0.0, recent = 0.0
        var lastTwo = 0.0, lastThree = 0.0, routineTwo = 0.0, routineThree = 0.0, awake = 0.0, hour = 0.0
    }

    /// Fills the raw evidence rows (every `Evidence` column but `p0`) and returns their column
    /// sums.
    @inline(__always)
    private static func evidence(
        _ fs: FeatureState, widgets: UnsafeBufferPointer<Int32>, at time: EventTime,
        context c: Context, long fL: Double, recent fR: Double,
        into raw: ScratchRows<Evidence>
    ) -> Totals {
        let perDay = WidgetBins.binsPerDay
        let hour = time.localHour
        let dayOffset = WidgetBins.slot(bin: 0, weekend: time.isWeekend)
        var totals = Totals()
        var order = 1.0
        fs.kernel.withWeights(atSecond: time.localSecondsOfDay) { first, kw in
            // The kernel's bins are `(first + k) mod 96`, one wrap at most (reach < 48): two
            // runs of consecutive bins, `k + before` for k < split and `k + after` from there.
            let count = kw.count
            let split = first < 0 ? -first : min(count, perDay - first)
            let before = first < 0 ? first + perDay : first
            let after = first < 0 ? first : first - perDay
            fs.bins.withUnsafeBufferPointer { rows in
                // Every bin read is in 0..<96 of a block of an interned widget's row (laid out by
                // `WidgetBins`), so the unchecked reads of `kernelSums` stay inside that row.
                let rows = rows.baseAddress!, kw = kw.baseAddress!
                let times = WidgetBins.timeBins, rejections = WidgetBins.rejections
                // Kernel sums into the raw time and rejection columns (scaled below), two
                // widgets at a time in the lanes of SIMD2 vectors (a last odd widget fills both
                // lanes): each lane adds and multiplies exactly as a scalar loop over
                // `(first + k) mod 96` would, in the same order, so the sums are bit-identical.
                for i in stride(from: 0, to: widgets.count, by: 2) {
                    let hasPair = i + 1 < widgets.count
                    let w0 = Int(widgets[i]), w1 = hasPair ? Int(widgets[i + 1]) : w0
                    var sums = (all: SIMD2<Double>(), dt: SIMD2<Double>(), rr: SIMD2<Double>())
                    kernelSums(kw, rows + times.index(w0, before), rows + times.index(w1, before), dayOffset: dayOffset,
                               rows + rejections.index(w0, before), rows + rejections.index(w1, before),
                               count: split, into: &sums)
                    if split < count {
                        kernelSums(kw + split, rows + times.index(w0, after + split), rows + times.index(w1, after + split),
                                   dayOffset: dayOffset, rows + rejections.index(w0, after + split),
                                   rows + rejections.index(w1, after + split), count: count - split, into: &sums)
                    }
                    for lane in 0..<(hasPair ? 2 : 1) {
                        raw[i + lane, .timeAllDays] = sums.all[lane]
                        raw[i + lane, .timeSameDays] = sums.dt[lane]
                        raw[i + lane, .rejections] = sums.rr[lane]
                    }
                }
                withRows(fs, c) { t in
                    for i in 0..<widgets.count {
                        let w = Int(widgets[i])
                        let all = raw[i, .timeAllDays], dt = raw[i, .timeSameDays], rr = raw[i, .rejections]
                        raw[i, .order] = order
                        raw[i, .usage] = t.signals[w].usage * fL
                        raw[i, .timeAllDays] = all * fL
                        raw[i, .timeSameDays] = dt * fL
                        raw[i, .place] = t.place.entry(w) * fL
                        raw[i, .previousApp] = t.app.entry(w) * fL
                        raw[i, .previousAppGap] = t.appGap.entry(w) * fL
                        raw[i, .lastTwoApps] = t.lastTwo.entry(w) * fL
                        raw[i, .lastThreeApps] = t.lastThree.entry(w) * fL
                        raw[i, .routineTwo] = t.routineTwo.entry(w) * fL
                        raw[i, .routineThree] = t.routineThree.entry(w) * fL
                        raw[i, .recent] = t.signals[w].recent * fR
                        raw[i, .rejections] = rr * fL
                        raw[i, .awake] = t.awake.entry(w) * fL
                        raw[i, .hour] = rows[WidgetBins.hourCounts.index(w, hour)]
                        totals.u += order; totals.c0 += raw[i, .usage]; totals.all += raw[i, .timeAllDays]
                        totals.dt += raw[i, .timeSameDays]; totals.place += raw[i, .place]
                        totals.app += raw[i, .previousApp]; totals.gap += raw[i, .previousAppGap]
                        totals.lastTwo += raw[i, .lastTwoApps]; totals.lastThree += raw[i, .lastThreeApps]
                        totals.routineTwo += raw[i, .routineTwo]; totals.routineThree += raw[i, .routineThree]
                        totals.recent += raw[i, .recent]; totals.awake += raw[i, .awake]; totals.hour += raw[i, .hour]
                        order = max(order * orderDecay, 1e-9)
                    }
                }
            }
        }
        return totals
    }

    /// The rows of the moment's contexts in the count tables, and the widgets' signals, read in
    /// place (an empty row where a context has none): one look-up per stack, then one bounds
    /// check per widget and table.
    private struct Rows {
        let signals: UnsafeBufferPointer<WidgetSignals>
        let place, app, appGap, lastTwo, lastThree, routineTwo, routineThree, awake: UnsafeBufferPointer<Double>
    }

    /// Calls `body` with the `Rows` of context `c`.
    @inline(__always)
    private static func withRows<T>(_ fs: FeatureState, _ c: Context, _ body: (Rows) -> T) -> T {
        fs.signals.withUnsafeBufferPointer { signals in
            fs.placeTable.withRow(c.place) { place in
                fs.appTable.withRow(c.app) { app in
                    fs.appGapTable.withRow(c.appGap) { appGap in
                        fs.sequence.withRow(c.runs.order2) { lastTwo in
                            fs.sequence.withRow(c.runs.order3) { lastThree in
                                fs.routines.withRow(c.routines.order2) { routineTwo in
                                    fs.routines.withRow(c.routines.order3) { routineThree in
                                        fs.awakeTable.withRow(c.awake) { awake in
                                            body(Rows(signals: signals, place: place, app: app, appGap: appGap, lastTwo: lastTwo,
                                                      lastThree: lastThree, routineTwo: routineTwo, routineThree: routineThree,
                                                      awake: awake))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Adds `Σ kw[k]·(days[k] + days[96 + k])`, `Σ kw[k]·day[k]` and `Σ kw[k]·rejections[k]`
    /// over `k < count`, in order of k, to `sums`, for two widgets at once: `a` and `b` point at
    /// the first bin in their `WidgetBins.timeBins` (weekday half), `ra` and `rb` in their
    /// rejections; lane 0 is `a`'s, lane 1 `b`'s, each computed exactly as a scalar loop would (no
    /// fused or reordered operation).
    @inline(__always)
    private static func kernelSums(
        _ kw: UnsafePointer<Double>, _ a: UnsafePointer<Double>, _ b: UnsafePointer<Double>, dayOffset: Int,
        _ ra: UnsafePointer<Double>, _ rb: UnsafePointer<Double>, count: Int,
        into sums: inout (all: SIMD2<Double>, dt: SIMD2<Double>, rr: SIMD2<Double>)
    ) {
        var (all, dt, rr) = sums
        // Offsets folded into pointers up front: no checked index arithmetic in the loop.
        let weekend = WidgetBins.slot(bin: 0, weekend: true)
        let a2 = a + weekend, b2 = b + weekend, ad = a + dayOffset, bd = b + dayOffset
        for k in 0..<count {
            let weight = SIMD2(repeating: kw[k])
            all += weight * (SIMD2(a[k], b[k]) + SIMD2(a2[k], b2[k]))
            dt += weight * SIMD2(ad[k], bd[k])
            rr += weight * SIMD2(ra[k], rb[k])
        }
        sums = (all, dt, rr)
    }

    /// Every feature of every widget from its raw evidence (`context` is 0 here, summed by
    /// `contextPairs`); stores each widget's `p0` in its raw row. `targets` says what `p0` and
    /// the time of day smooth toward: the configured order and `p0` (`OwnTargets`), or a
    /// population prior's terms (`PopulationTargets`); specialized for each, so the first costs
    /// what it did before there were priors.
    @inline(__always)
    private static func logRatios<Targets: SmoothingTargets>(
        _ signals: UnsafeBufferPointer<WidgetSignals>, widgets: UnsafeBufferPointer<Int32>, at ts: Double, prior a: Double,
        sequencePrior b: Double, totals: Totals, placeConfidence c: Double, hasApp: Bool, targets: Targets,
        raw: ScratchRows<Evidence>, into x: ScratchRows<Feature>
    ) {
        let dn = Double(widgets.count)
        for i in 0..<widgets.count {
            let u = raw[i, .order] / totals.u
            let p0 = targets.p0(row: i, own: (raw[i, .usage] + orderPriorWeight * u) / (totals.c0 + orderPriorWeight))
            raw[i, .p0] = p0
            let pAll = (raw[i, .timeAllDays] + a * targets.timeOfDay(row: i, p0: p0)) / (totals.all + a)
            let pDt = (raw[i, .timeSameDays] + a * pAll) / (totals.dt + a)
            x[i, .base] = log(dn * p0)
            x[i, .time] = log(pDt / p0)
            // The place's distribution mixed with the place-free one by the visit's confidence.
            x[i, .place] = c > 0 ? log(c * (raw[i, .place] + a * p0) / (totals.place + a) / p0 + (1 - c)) : 0
            if hasApp {
                let pApp = (raw[i, .previousApp] + b * p0) / (totals.app + b)
                let pGap = (raw[i, .previousAppGap] + b * pApp) / (totals.gap + b)
                // The routine of widgets' apps, then the apps as they came: a context an unrelated
                // app broke is thin, and backs off to the routine it interrupted.
                let pRoutineTwo = (raw[i, .routineTwo] + b * pGap) / (totals.routineTwo + b)
                let pRoutineThree = (raw[i, .routineThree] + b * pRoutineTwo) / (totals.routineThree + b)
                let pTwo = (raw[i, .lastTwoApps] + b * pRoutineThree) / (totals.lastTwo + b)
                let pThree = (raw[i, .lastThreeApps] + b * pTwo) / (totals.lastThree + b)
                x[i, .sequence] = log(pThree / p0)
            } else {
                x[i, .sequence] = 0
            }
            x[i, .context] = 0
            x[i, .recent] = log((raw[i, .recent] + a * p0) / (totals.recent + a) / p0)
            let signal = signals[Int(widgets[i])]
            if signal.hintStart <= ts && ts < signal.hintEnd && signal.hintScore > 0 && signal.hintMax > 0 {
                x[i, .hint] = min(signal.hintScore / signal.hintMax, 1) - 0.5
            } else {
                x[i, .hint] = 0
            }
            // No rejection: the ratio is exactly 1, its log exactly 0.
            let e = raw[i, .timeAllDays], rejections = raw[i, .rejections]
            x[i, .feedback] = rejections == 0 ? 0 : log((e + 1) / (e + 1 + rejections))
            x[i, .awake] = log((raw[i, .awake] + a * p0) / (totals.awake + a) / p0)
            x[i, .hour] = log((raw[i, .hour] + a * p0) / (totals.hour + a) / p0)
        }
    }

    /// Adds the `context` feature: one smoothed distribution per context key currently set, and
    /// one for the UTC offset of the moment.
    @inline(__always)
    private static func contextPairs(
        _ fs: FeatureState, widgets: UnsafeBufferPointer<Int32>, offset: Int32, prior a: Double, long fL: Double,
        raw: ScratchRows<Evidence>, into x: ScratchRows<Feature>
    ) {
        let n = widgets.count
        // The pairs of the keys set, then the implicit one of the moment's UTC offset.
        let offsetPair = fs.offsetPair(offset)
        for k in 0...fs.currentPairs.count {
            let pair = k < fs.currentPairs.count ? Int(fs.currentPairs[k]) : Int(offsetPair)
            guard pair >= 0 else { continue }
            fs.pairTable.withRow(pair) { row in
                var total = 0.0
                for i in 0..<n { total += row.entry(Int(widgets[i])) * fL }
                if total == 0 { return }
                for i in 0..<n {
                    let p0 = raw[i, .p0]
                    let v = row.entry(Int(widgets[i])) * fL
                    x[i, .context] += log((v + a * p0) / (total + a) / p0)
                }
            }
        }
    }
}

extension Array where Element: Numeric {
    /// Makes this array a copy of the first `count` values of `source`, in place: its storage
    /// is reused (no allocation, no reference counting) while its size stays the same.
    mutating func overwrite(withFirst count: Int, of source: UnsafeBufferPointer<Element>) {
        precondition(count <= source.count, "overwrite: \(count) values asked of \(source.count)")
        if self.count != count { self = [Element](repeating: 0, count: count) }
        guard count > 0 else { return }
        withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: source.baseAddress!, count: count) }
    }
}

/// Reusable buffers so a ranking allocates nothing but its result. They only grow: stacks of
/// different sizes share them, and readers index rows `< n` of the stack at hand.
struct ScoringScratch: Sendable {
    /// Rows of `ContextualModel.Evidence` and of `ContextualModel.Feature` columns, one per widget.
    var raw: [Double] = []
    var features: [Double] = []
    var scores: [Double] = []
    var eligible: [Bool] = []
    var order: [Int] = []
    var probabilities: [Double] = []
    /// The mixture's buffers: each expert's probability per widget, each ranked expert's rank
    /// per widget, one ranking's scores, the experts' weights, a calibration.
    var experts: [Double] = []
    var ranks: [Int32] = []
    var baseline: [Double] = []
    /// Per stack, each ranked expert's last order of its widgets (`rankedCount` blocks of the
    /// stack's size): the next ranking's sort starts from it, and an order that did not change
    /// sorts in one pass.
    var rankOrders: [[Int]] = []
    var weights: [Double] = []
    var calibration: [Double] = []
    /// Rank calibrations per stack size up to `SignalMixture.rankCells` (rows of `rankCells` per
    /// size and ranked expert) and the mixture `version` each size was computed at (-1: none).
    var calibrationCache: [Double] = []
    var calibrationVersion: [Int] = []
    /// The last moment `ContextualModel.features` read, and the mixture's weights with the
    /// instant and mixture `version` they were computed for.
    var moment: ContextualModel.Moment?
    var weightsTime = Double.nan
    var weightsVersion = -1
    /// The explanations' text of the mixture's weights, and the weights it shows.
    var weightsText: (weights: [Double], text: String)?

    /// Grows `raw` and `features` to hold `n` widgets.
    mutating func prepare(widgets n: Int) {
        if raw.count < n * ContextualModel.Evidence.count {
            raw = [Double](repeating: 0, count: n * ContextualModel.Evidence.count)
        }
        if features.count < n * ContextualModel.Feature.count {
            features = [Double](repeating: 0, count: n * ContextualModel.Feature.count)
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

    /// Grows the mixture's buffers to hold `n` widgets of stack `stack`.
    mutating func prepareMixture(widgets n: Int, stack: Int) {
        if rankOrders.count <= stack { rankOrders.append(contentsOf: repeatElement([], count: stack + 1 - rankOrders.count)) }
        if rankOrders[stack].count != n * SignalMixture.rankedCount {
            rankOrders[stack] = (0..<SignalMixture.rankedCount).flatMap { _ in 0..<n }
        }
        if calibrationVersion.isEmpty {
            let R = SignalMixture.rankCells
            calibrationVersion = [Int](repeating: -1, count: R + 1)
            calibrationCache = [Double](repeating: 0, count: (R + 1) * SignalMixture.rankedCount * R)
            calibration = [Double](repeating: 0, count: R)
        }
        if experts.count < n * SignalMixture.expertCount {
            experts = [Double](repeating: 0, count: n * SignalMixture.expertCount)
            ranks = [Int32](repeating: 0, count: n * SignalMixture.rankedCount)
            baseline = [Double](repeating: 0, count: n)
        }
    }

    /// Sorts `order[0..<n]` by `score`, highest first, ties in index order.
    static func sort(_ order: UnsafeMutableBufferPointer<Int>, count n: Int, by score: UnsafeBufferPointer<Double>) {
        guard n > 1 else { return }
        if n <= 32 {
            for i in 1..<n {
                let x = order[i]
                var j = i - 1
                while j >= 0 && (score[x] > score[order[j]] || (score[x] == score[order[j]] && x < order[j])) {
                    order[j + 1] = order[j]; j -= 1
                }
                order[j + 1] = x
            }
        } else {
            order[0..<n].sort { score[$0] > score[$1] || (score[$0] == score[$1] && $0 < $1) }
        }
    }

    /// The mixture's buffers (and the model's scores) as pointers, valid inside
    /// `withMixtureBuffers`.
    struct MixtureBuffers {
        let scores: UnsafeMutableBufferPointer<Double>
        let experts: UnsafeMutableBufferPointer<Double>
        let ranks: UnsafeMutableBufferPointer<Int32>
        let baseline: UnsafeMutableBufferPointer<Double>
        let rankOrders: UnsafeMutableBufferPointer<Int>
        let calibration: UnsafeMutableBufferPointer<Double>
        let calibrationCache: UnsafeMutableBufferPointer<Double>
    }

    /// Runs `body` with the mixture's buffers as pointers, the rank orders of stack `stack`
    /// (grown by `prepareMixture` first).
    @inline(__always)
    mutating func withMixtureBuffers<T>(stack: Int, _ body: (MixtureBuffers) -> T) -> T {
        scores.withUnsafeMutableBufferPointer { scores in
            experts.withUnsafeMutableBufferPointer { experts in
                ranks.withUnsafeMutableBufferPointer { ranks in
                    baseline.withUnsafeMutableBufferPointer { baseline in
                        rankOrders[stack].withUnsafeMutableBufferPointer { rankOrders in
                            calibration.withUnsafeMutableBufferPointer { calibration in
                                calibrationCache.withUnsafeMutableBufferPointer { cache in
                                    body(MixtureBuffers(scores: scores, experts: experts, ranks: ranks, baseline: baseline,
                                                        rankOrders: rankOrders, calibration: calibration, calibrationCache: cache))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Runs `body` with `experts` read and `scores` written as buffers.
    @inline(__always)
    mutating func withExpertsAndScores<T>(
        _ body: (UnsafeBufferPointer<Double>, UnsafeMutableBufferPointer<Double>) -> T
    ) -> T {
        experts.withUnsafeBufferPointer { x in scores.withUnsafeMutableBufferPointer { body(x, $0) } }
    }

    /// Runs `body` with `raw` and `features` as rows read and written in place at once (both
    /// grown by `prepare` first).
    @inline(__always)
    mutating func withRawAndFeatures<T>(
        _ body: (ScratchRows<ContextualModel.Evidence>, ScratchRows<ContextualModel.Feature>) -> T
    ) -> T {
        raw.withUnsafeMutableBufferPointer { raw in
            features.withUnsafeMutableBufferPointer { x in body(ScratchRows(raw.baseAddress!), ScratchRows(x.baseAddress!)) }
        }
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

/// The columns of a scratch table of doubles, one row per widget of the stack at hand: the
/// cases of an `Int` enum, in order (`ContextualModel.Feature`, `ContextualModel.Evidence`).
protocol ScratchColumn: CaseIterable, RawRepresentable where RawValue == Int {
    /// Columns per row (the number of cases).
    static var count: Int { get }
}

extension ScratchColumn {
    /// This column's index in row `row` of a row-major table.
    @inline(__always) func index(row: Int) -> Int { row * Self.count + rawValue }
}

/// A scratch table's rows read and written in place by column name, `raw[i, .usage]`: a pointer
/// into the table's storage, valid while the table is (see `ScoringScratch.withRawAndFeatures`).
struct ScratchRows<Column: ScratchColumn> {
    let base: UnsafeMutablePointer<Double>

    @inline(__always) init(_ base: UnsafeMutablePointer<Double>) { self.base = base }

    @inline(__always) subscript(row: Int, column: Column) -> Double {
        get { base[column.index(row: row)] }
        nonmutating set { base[column.index(row: row)] = newValue }
    }
}

