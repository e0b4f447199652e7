import Foundation

/// The rotation policy applied on top of any scorer at a decision point (the rules and their
/// defaults: ``RotationParameters``): pins, manual-swipe holds, one stack top, dwell, the daily
/// cap, hysteresis, and the `bandit` policy's seeded exploration with its propensity.
///
/// One per `UserEngine`, which feeds it every event (``observe(_:)``) and the stack scored by
/// its `Scorer` at each decision (``rotate(stack:at:scratch:)``).
final class RotationPolicy {
    let parameters: RotationParameters
    /// The scorer's policy: its kind and exploration parameters.
    let policy: ResolvedPolicy
    /// The user's features (the same instance the scorer reads). A `let`, so reading it costs no
    /// reference count.
    let features: FeatureState
    // Stored properties skip dynamic exclusivity checks: used by one caller at a time, never
    // with overlapping access (as `UserEngine`).
    @exclusivity(unchecked) var state = RotationState()
    @exclusivity(unchecked) var generator: SeededGenerator

    init(parameters: RotationParameters, policy: ResolvedPolicy, features: FeatureState, generator: SeededGenerator) {
        self.parameters = parameters
        self.policy = policy
        self.features = features
        self.generator = generator
    }

    /// Follows the events that change what is on top: a manual swipe puts its widget on top
    /// and holds it; a stack configuration without the top widget clears the top. Call after
    /// the features recorded the event.
    func observe(_ event: UnsafePointer<Event>) {
        if case .widgetSwipe(let stack, _, let to) = event.pointee.payload,
           let s = features.stacks.index(of: stack), let w = features.widgets.index(of: to) {
            let ts = event.pointee.time.secondsSinceEpoch
            state.ensure(stacks: Int(s) + 1)
            // A late swipe older than the current top's start does not rewrite history.
            if ts >= state.since[Int(s)] {
                state.swiped(stack: Int(s), to: w, at: ts, hold: max(0, parameters.swipeHold))
            }
        }
        if case .stackConfig(let stack, _) = event.pointee.payload, let s = features.stacks.index(of: stack) {
            // A widget removed from a stack is no longer on top of it.
            state.ensure(stacks: Int(s) + 1)
            let top = state.top[Int(s)]
            if top >= 0 && !features.stackWidgets[Int(s)].contains(top) { state.top[Int(s)] = -1 }
        }
    }

    /// Applies the rotation policy to stack `s` as scored in `scratch`: the widget now on top (-1
    /// for none), the one before, and the propensity of the pick.
    ///
    /// `scratch` is the scorer's, passed in place as an inout argument: no swap or copy of its
    /// buffers and no per-access checks.
    /// - Complexity: O(widgets · stacks).
    func rotate(stack s: Int, at time: EventTime, scratch: inout ScoringScratch) -> (top: Int32, previous: Int32, propensity: Double) {
        state.ensure(stacks: features.stacks.count)
        let widgets = features.stackWidgets[s]
        let n = widgets.count
        let ts = time.secondsSinceEpoch
        let today = Int32(clamping: time.localDayNumber)
        let previous = state.top[s]

        var top: Int32 = -1
        var propensity = 1.0
        let pin = features.stackPins[s]
        if pin >= 0, widgets.contains(pin) {
            top = pin
        } else {
            // The scorer's distribution over candidates (eligible, not on top elsewhere).
            if scratch.probabilities.count < n { scratch.probabilities = [Double](repeating: 0, count: n) }
            var candidates = 0
            var greedy = -1
            for k in 0..<n {
                let i = scratch.order[k]
                scratch.probabilities[i] = 0
                if scratch.eligible[i] && !state.isOnTopElsewhere(widgets[i], except: s) {
                    candidates += 1
                    if greedy < 0 { greedy = i }
                }
            }
            var pick = greedy
            if candidates > 0 {
                if policy.kind == .bandit {
                    explorationDistribution(&scratch, widgets: widgets, stack: s, candidates: candidates, greedy: greedy)
                    var u = generator.nextUnit()
                    pick = -1
                    for i in 0..<n where scratch.probabilities[i] > 0 {
                        pick = i
                        u -= scratch.probabilities[i]
                        if u < 0 { break }
                    }
                } else {
                    scratch.probabilities[greedy] = 1
                }
            }
            top = resolve(pick, scratch, stack: s, widgets: widgets, at: ts, today: today)
            if candidates > 0 && policy.kind == .bandit {
                propensity = 0
                for i in 0..<n where scratch.probabilities[i] > 0 {
                    if resolve(i, scratch, stack: s, widgets: widgets, at: ts, today: today) == top {
                        propensity += scratch.probabilities[i]
                    }
                }
            }
        }
        state.show(top, stack: s, previous: previous, at: ts, today: today)
        return (top, previous, propensity)
    }

    /// The bandit's exploration probabilities over candidates into `scratch.probabilities`.
    private func explorationDistribution(_ scratch: inout ScoringScratch, widgets: [Int32], stack s: Int, candidates: Int, greedy: Int) {
        let n = widgets.count
        switch policy.exploration {
        case .epsilon:
            let e = policy.epsilon
            for i in 0..<n where scratch.eligible[i] && !state.isOnTopElsewhere(widgets[i], except: s) {
                scratch.probabilities[i] = e / Double(candidates) + (i == greedy ? 1 - e : 0)
            }
        case .softmax:
            var m = -Double.infinity
            for i in 0..<n where scratch.eligible[i] && !state.isOnTopElsewhere(widgets[i], except: s) {
                m = max(m, scratch.scores[i])
            }
            var total = 0.0
            for i in 0..<n where scratch.eligible[i] && !state.isOnTopElsewhere(widgets[i], except: s) {
                let v = (scratch.scores[i] - m) / policy.temperature
                scratch.probabilities[i] = max(exp(v), 1e-300)
                total += scratch.probabilities[i]
            }
            for i in 0..<n { scratch.probabilities[i] /= total }
        }
    }

    /// The widget on top if the scorer proposes row `candidate` (or nothing, -1).
    private func resolve(_ candidate: Int, _ scratch: borrowing ScoringScratch, stack s: Int, widgets: [Int32], at ts: Double, today: Int32) -> Int32 {
        let p = parameters
        let hold = state.holdWidget[s]
        if hold >= 0, ts < state.holdUntil[s], let j = widgets.firstIndex(of: hold), scratch.eligible[j] {
            return hold
        }
        let current = state.top[s]
        let ci = current >= 0 ? widgets.firstIndex(of: current) : nil
        let currentValid = ci.map { scratch.eligible[$0] } == true && !state.isOnTopElsewhere(current, except: s)
        guard candidate >= 0 else { return currentValid ? current : -1 }
        let challenger = widgets[candidate]
        guard currentValid, let ci else { return challenger }
        if challenger == current { return current }
        if ts - state.since[s] < p.minimumDwell { return current }
        if state.rotations(stack: s, today: today) >= p.maximumRotationsPerDay { return current }
        if p.hysteresisMargin <= 0 { return challenger }
        let strongest = strength(candidate, scratch, widgets: widgets)
        guard strongest > 0 else { return current }
        let gain = (strongest - strength(ci, scratch, widgets: widgets)) / strongest
        return gain >= p.hysteresisMargin ? challenger : current
    }

    /// A positive strength of row `i` for hysteresis, so the margin means "the challenger is
    /// that much stronger" for every scorer: `exp(score)` for the log-scale `contextual` and
    /// `bandit` scores (relative to the best), `1 / (1 + hours since use)` for `mru`, the score
    /// itself for the count-like baselines, and the position within the eligible score range
    /// for an outside scorer.
    private func strength(_ i: Int, _ scratch: borrowing ScoringScratch, widgets: [Int32]) -> Double {
        let score = scratch.scores[i]
        switch policy.kind {
        case .contextual, .bandit:
            var best = -Double.infinity
            for j in 0..<widgets.count where scratch.eligible[j] { best = max(best, scratch.scores[j]) }
            return best.isFinite ? exp(score - best) : 0
        case .mru:
            return 1 / (1 + max(0, -score))
        case .staticOrder, .roundRobin, .mfu, .frecency, .timeOfDay:
            return max(0, score)
        case .external:
            var lo = Double.infinity, hi = -Double.infinity
            for j in 0..<widgets.count where scratch.eligible[j] && scratch.scores[j].isFinite {
                lo = min(lo, scratch.scores[j]); hi = max(hi, scratch.scores[j])
            }
            guard hi > lo, score.isFinite else { return score == hi ? 1 : 0 }
            return (score - lo) / (hi - lo)
        }
    }
}
