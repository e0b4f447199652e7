/// What the model's distributions smooth toward where the person has little evidence: their own
/// configured order and overall usage (`OwnTargets`), or, with a host's population prior, the
/// population's terms (`PopulationTargets`, computed by `populationTerms`).
///
/// With a prior, for the widgets `w` of the stack scored at a local hour, kind of day and kind of
/// place (the visit's label when the person is more likely than not still there). The prior
/// compares only the widgets it names (`K`, at least two of the stack's, else it says nothing):
/// it is silent on how a widget it does not know compares with the ones it knows.
/// - `p0(w) = (usage(w) + u(w) + m · π(w)) / (U + 1 + m)`: the person's decayed usage, the
///   configured order's one pseudo-engagement `u` and `m` (the policy's `population`)
///   pseudo-engagements `π`: for `w` in `K`, the share of the configured order `K` holds, spread by
///   the population's rates (`u(K) · rate(w) / rate(K)`); for the others, their own `u(w)`;
/// - the time of day smooths toward `λ · g(w) + (1 − λ) · p0(w)` instead of `p0(w)`, where
///   `g(w) = p0(K) · p0(w) · L(w) / Σ_K p0 · L` for `w` in `K` (`L` the population's lift of `w` in
///   this cell) and `g(w) = p0(w)` for the others, and `λ = m / (m + T)`, `T` the person's own
///   engagements of the stack around this time of day (kernel-weighted, decayed): with none of
///   their own, the named widgets' `time` signal is the population's; after `m` of their own
///   around this time, half of it; then less.
/// Every other signal smooths toward `p0` as before.
protocol SmoothingTargets {
    /// `p0` of row `i`, given the one from the person's own usage and order.
    func p0(row i: Int, own: Double) -> Double
    /// What the time of day of row `i` smooths toward, given its `p0`.
    func timeOfDay(row i: Int, p0: Double) -> Double
}

/// Where the population's terms come from: nowhere (`NoPopulation`), or a person's reading of a
/// prior (`PopulationLookup`).
protocol PopulationSource {
    /// Computes the terms of `widgets` (`2i`: `p0`, `2i + 1`: the time-of-day target), `nil` when
    /// there are none; the pointer is valid until the next call.
    func terms(_ fs: FeatureState, widgets: UnsafeBufferPointer<Int32>, at time: EventTime, context: ContextualModel.Context,
               raw: ScratchRows<ContextualModel.Evidence>, totals: ContextualModel.Totals) -> UnsafePointer<Double>?
}

/// No population prior: the model as it is without one.
struct NoPopulation: PopulationSource {
    @inline(__always)
    func terms(_ fs: FeatureState, widgets: UnsafeBufferPointer<Int32>, at time: EventTime, context: ContextualModel.Context,
               raw: ScratchRows<ContextualModel.Evidence>, totals: ContextualModel.Totals) -> UnsafePointer<Double>? { nil }
}

extension PopulationLookup: PopulationSource {
    func terms(_ fs: FeatureState, widgets: UnsafeBufferPointer<Int32>, at time: EventTime, context: ContextualModel.Context,
               raw: ScratchRows<ContextualModel.Evidence>, totals: ContextualModel.Totals) -> UnsafePointer<Double>? {
        ContextualModel.populationTerms(fs, self, widgets: widgets, at: time, context: context, raw: raw, totals: totals)
            ? UnsafePointer(termsBuffer) : nil
    }
}

/// The person's own order and usage: the model without a population prior.
struct OwnTargets: SmoothingTargets {
    @inline(__always) func p0(row i: Int, own: Double) -> Double { own }
    @inline(__always) func timeOfDay(row i: Int, p0: Double) -> Double { p0 }
}

/// A population prior's terms, `p0` and the time-of-day target of row `i` at `2i` and `2i + 1`.
struct PopulationTargets: SmoothingTargets {
    let terms: UnsafePointer<Double>
    @inline(__always) func p0(row i: Int, own: Double) -> Double { terms[2 * i] }
    @inline(__always) func timeOfDay(row i: Int, p0: Double) -> Double { terms[2 * i + 1] }
}

extension ContextualModel {
    /// The visit's kind of place counts only when the person is more likely than not still there.
    static let placeKindConfidence = 0.5

    /// Computes the population's terms of `widgets` into `lookup` (see `SmoothingTargets`), from
    /// the raw evidence and its totals; `false`, and nothing to smooth toward, when the prior
    /// names none of the widgets.
    /// - Complexity: O(widgets), plus a dictionary look-up per widget the first time it is seen.
    static func populationTerms(
        _ fs: FeatureState, _ lookup: PopulationLookup, widgets: UnsafeBufferPointer<Int32>, at time: EventTime,
        context c: Context, raw: ScratchRows<Evidence>, totals: Totals
    ) -> Bool {
        let n = widgets.count
        lookup.prepare(widgets: n)
        let prior = lookup.prior
        var known = 0
        var rateSum = 0.0
        var knownOrder = 0.0
        for i in 0..<n {
            let r = lookup.row(Int(widgets[i]), fs)
            lookup.rowOf[i] = r
            if r >= 0 { known += 1; rateSum += prior.rates[Int(r)]; knownOrder += raw[i, .order] / totals.u }
        }
        // The prior compares the widgets it names among themselves: with fewer than two, it says
        // nothing about this stack.
        guard known > 1 else { return false }
        let kind = c.place >= 0 && c.placeConfidence >= placeKindConfidence ? lookup.kind(ofPlace: c.place, fs) : -1
        lookup.placeKind = kind
        let weekend = time.isWeekend, hour = time.localHour
        let m = lookup.weight
        var knownP0 = 0.0, knownTarget = 0.0
        for i in 0..<n {
            let r = Int(lookup.rowOf[i])
            let u = raw[i, .order] / totals.u
            // The named widgets' share of the configured order, spread by the population's rates.
            let share = r >= 0 && rateSum > 0 ? knownOrder * prior.rates[r] / rateSum : u
            let lift = r >= 0 ? prior.lifts[prior.liftIndex(row: r, weekend: weekend, placeKind: kind, hour: hour)] : 1
            let p0 = (raw[i, .usage] + orderPriorWeight * u + m * share) / (totals.c0 + orderPriorWeight + m)
            lookup.shares[i] = share
            lookup.liftOf[i] = lift
            lookup.termsBuffer[2 * i] = p0
            if r >= 0 { knownP0 += p0; knownTarget += p0 * lift }
        }
        // The time of day: the named widgets' share of p0 spread by p0 × lift; the others keep
        // their p0. The population's share of the target fades with the person's own evidence
        // around this time.
        let lambda = m / (m + totals.all)
        for i in 0..<n {
            let p0 = lookup.termsBuffer[2 * i]
            let target = lookup.rowOf[i] >= 0 ? knownP0 * p0 * lookup.liftOf[i] / knownTarget : p0
            lookup.termsBuffer[2 * i + 1] = lambda * target + (1 - lambda) * p0
        }
        return true
    }
}
