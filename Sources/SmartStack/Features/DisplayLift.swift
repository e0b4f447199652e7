/// How much showing a widget on top adds to its engagement, learnt per stack from the logged
/// impressions with a propensity, so that the engine learns what the person came for rather than
/// what was shown to them (`FeatureState.displayDiscount`).
///
/// People tap what is on top even when they came for nothing in particular: the engagement of a
/// widget shown with probability `p` is its intent `q(w)` plus a display lift `λ`. Each
/// impression of a randomised display (`0 < p < 1`) is settled by what follows it within the
/// impression window: `Y_s` whether the shown widget was engaged, `Y_any` whether any widget of
/// the stack was. Under a logging policy that can show every widget of the stack,
/// `E[Y_s / p] = Σ_w q(w) + n·λ` and `E[Y_any] = Σ_w q(w) + λ`, so
/// `λ = E[(Y_s / p − Y_any) / (n − 1)]` (inverse propensity weighting; `n` the stack's size).
/// The estimate is shrunk toward 0 by `priorImpressions` pseudo-impressions and clipped at 0:
/// with few or no randomised impressions (a deterministic display, no impressions at all) the
/// lift is 0 and the engine learns as if there were no display effect.
///
/// An engagement of the widget shown is then counted with weight `1 − λ / r(w)`, `r(w)` the
/// rate at which `w` was engaged when shown (smoothed toward the stack's): in expectation, the
/// share of those engagements that the person's intent explains.
struct DisplayLift: Sendable, Codable, Hashable {
    /// Pseudo-impressions of lift 0 the estimate is shrunk with.
    static let priorImpressions = 50.0

    /// Per stack, decayed (long clock) sums of `(Y_s / p − Y_any) / (n − 1)` and of the weights,
    /// and the number of settled randomised impressions.
    private(set) var sums: [Double] = []
    private(set) var weights: [Double] = []
    private(set) var impressions: [Double] = []
    /// Per stack, decayed impressions and engagements of the shown widget (every impression).
    private(set) var stackShown: [Double] = []
    private(set) var stackEngaged: [Double] = []
    /// Per widget, decayed times shown and times engaged when shown.
    private(set) var shown: [Double] = []
    private(set) var engagedWhenShown: [Double] = []

    init() {}

    /// Grows the arrays to `stacks` stacks and `widgets` widgets.
    mutating func ensure(stacks: Int, widgets: Int) {
        let more = stacks - sums.count
        if more > 0 {
            sums += repeatElement(0, count: more); weights += repeatElement(0, count: more)
            impressions += repeatElement(0, count: more)
            stackShown += repeatElement(0, count: more); stackEngaged += repeatElement(0, count: more)
        }
        if shown.count < widgets {
            engagedWhenShown += repeatElement(0, count: widgets - shown.count)
            shown += repeatElement(0, count: widgets - shown.count)
        }
    }

    /// The lift of stack `s` (0 until randomised impressions say otherwise).
    func lift(stack s: Int) -> Double {
        guard s < sums.count, weights[s] > 0 else { return 0 }
        let estimate = sums[s] / weights[s]
        guard estimate > 0 else { return 0 }
        return estimate * impressions[s] / (impressions[s] + Self.priorImpressions)
    }

    /// Settles an impression of widget `w` on stack `s` (of `size` widgets) shown with
    /// probability `propensity`, given what followed it; `weight` is its decay weight.
    mutating func settle(stack s: Int, widget w: Int, propensity: Double, size: Int, shownEngaged: Bool, anyEngaged: Bool,
                         weight: Double) {
        ensure(stacks: s + 1, widgets: w + 1)
        let ys = shownEngaged ? 1.0 : 0.0
        stackShown[s] += weight; stackEngaged[s] += weight * ys
        shown[w] += weight; engagedWhenShown[w] += weight * ys
        guard propensity > 0, propensity < 1, size > 1 else { return }
        sums[s] += weight * (ys / propensity - (anyEngaged ? 1 : 0)) / Double(size - 1)
        weights[s] += weight
        impressions[s] += 1
    }

    /// The weight of an engagement of widget `w` while it is shown on stack `s`: the share of
    /// such engagements the person's intent explains, `1 − λ / r(w)` in [0, 1].
    func discount(widget w: Int, stack s: Int) -> Double {
        let lambda = lift(stack: s)
        guard lambda > 0 else { return 1 }
        let stackRate = stackShown[s] > 0 ? stackEngaged[s] / stackShown[s] : 0
        // The widget's own rate, smoothed toward its stack's with one pseudo-impression.
        let rate = w < shown.count ? (engagedWhenShown[w] + stackRate) / (shown[w] + 1) : stackRate
        guard rate > lambda else { return 0 }
        return 1 - lambda / rate
    }

    /// Multiplies every decayed sum by `factor` (the long clock's rescaling).
    mutating func scale(by factor: Double) {
        for i in sums.indices { sums[i] *= factor; weights[i] *= factor; stackShown[i] *= factor; stackEngaged[i] *= factor }
        for i in shown.indices { shown[i] *= factor; engagedWhenShown[i] *= factor }
    }

    /// Whether the arrays are sized and finite (checked when restoring a snapshot).
    func isConsistent(stacks: Int, widgets: Int) -> Bool {
        let perStack = [sums, weights, impressions, stackShown, stackEngaged]
        return perStack.allSatisfy { $0.count <= stacks && $0.count == sums.count && $0.allSatisfy(\.isFinite) }
            && shown.count <= widgets && engagedWhenShown.count == shown.count
            && shown.allSatisfy(\.isFinite) && engagedWhenShown.allSatisfy(\.isFinite)
    }
}
