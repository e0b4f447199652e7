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
/// rate at which `w` was engaged when shown at random (smoothed toward the stack's): in
/// expectation, the share of those engagements that the person's intent explains.
struct DisplayLift: Sendable, Codable, Hashable {
    /// Pseudo-impressions of lift 0 the estimate is shrunk with.
    static let priorImpressions = 50.0

    /// One stack's decayed (long clock) sum of `(Y_s / p − Y_any) / (n − 1)` and of the
    /// impressions' weights, its count of settled randomised impressions, and its decayed
    /// randomised impressions with the shown widget engaged.
    struct Stack: Sendable, Codable, Hashable {
        var sum = 0.0, weight = 0.0, impressions = 0.0, shown = 0.0, engaged = 0.0
    }
    /// One widget's decayed randomised impressions, and of those with it engaged.
    struct Widget: Sendable, Codable, Hashable {
        var shown = 0.0, engaged = 0.0
    }

    private(set) var stacks: [Stack] = []
    private(set) var widgets: [Widget] = []

    init() {}

    /// The lift of stack `s` (0 until randomised impressions say otherwise).
    func lift(stack s: Int) -> Double {
        guard s < stacks.count, stacks[s].weight > 0 else { return 0 }
        let estimate = stacks[s].sum / stacks[s].weight
        guard estimate > 0 else { return 0 }
        return estimate * stacks[s].impressions / (stacks[s].impressions + Self.priorImpressions)
    }

    /// Settles an impression of widget `w` on stack `s` (of `size` widgets) shown with
    /// probability `propensity`, given what followed it; `weight` is its decay weight. Only a
    /// randomised display (`0 < propensity < 1`, at least two widgets) tells the lift apart.
    mutating func settle(stack s: Int, widget w: Int, propensity: Double, size: Int, shownEngaged: Bool, anyEngaged: Bool,
                         weight: Double) {
        guard propensity > 0, propensity < 1, size > 1 else { return }
        if stacks.count <= s { stacks += repeatElement(Stack(), count: s + 1 - stacks.count) }
        if widgets.count <= w { widgets += repeatElement(Widget(), count: w + 1 - widgets.count) }
        let ys = shownEngaged ? 1.0 : 0.0
        stacks[s].sum += weight * (ys / propensity - (anyEngaged ? 1 : 0)) / Double(size - 1)
        stacks[s].weight += weight
        stacks[s].impressions += 1
        stacks[s].shown += weight
        stacks[s].engaged += weight * ys
        widgets[w].shown += weight
        widgets[w].engaged += weight * ys
    }

    /// The weight of an engagement of widget `w` while it is shown on stack `s`: the share of
    /// such engagements the person's intent explains, `1 − λ / r(w)` in [0, 1].
    func discount(widget w: Int, stack s: Int) -> Double {
        let lambda = lift(stack: s)
        guard lambda > 0 else { return 1 }
        let stackRate = stacks[s].shown > 0 ? stacks[s].engaged / stacks[s].shown : 0
        // The widget's own rate, smoothed toward its stack's with one pseudo-impression.
        let rate = w < widgets.count ? (widgets[w].engaged + stackRate) / (widgets[w].shown + 1) : stackRate
        guard rate > lambda else { return 0 }
        return 1 - lambda / rate
    }

    /// Multiplies every decayed sum by `factor` (the long clock's rescaling).
    mutating func scale(by factor: Double) {
        for i in stacks.indices {
            stacks[i].sum *= factor; stacks[i].weight *= factor; stacks[i].shown *= factor; stacks[i].engaged *= factor
        }
        for i in widgets.indices { widgets[i].shown *= factor; widgets[i].engaged *= factor }
    }

    /// Whether the arrays are sized and finite (checked when restoring a snapshot).
    func isConsistent(stacks n: Int, widgets m: Int) -> Bool {
        stacks.count <= n && widgets.count <= m
            && stacks.allSatisfy { [$0.sum, $0.weight, $0.impressions, $0.shown, $0.engaged].allSatisfy(\.isFinite) }
            && widgets.allSatisfy { $0.shown.isFinite && $0.engaged.isFinite }
    }
}
