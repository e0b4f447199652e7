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
    /// When the last decision explored: each widget that could have ended on top (-1 for none)
    /// with its probability; empty when it was deterministic.
    @exclusivity(unchecked) private(set) var outcomes: [(widget: Int32, probability: Double)] = []
    /// Whether the policy draws its top at random (`ResolvedPolicy.explores`), read once.
    private let explores: Bool
    /// The normal quantiles of the early-rotation test for a return and for a new challenger,
    /// computed once from `parameters`.
    private let z: (isReturn: Double, new: Double)

    init(parameters: RotationParameters, policy: ResolvedPolicy, features: FeatureState, generator: SeededGenerator) {
        self.parameters = parameters
        z = (DwellLedger.z(confidence: parameters.confidence(isReturn: true)),
             DwellLedger.z(confidence: parameters.confidence(isReturn: false)))
        self.policy = policy
        self.explores = policy.explores
        self.features = features
        self.generator = generator
    }

    /// Follows the events that change what is on top: a manual swipe puts its widget on top
    /// and holds it; a stack configuration without the top widget clears the top; an
    /// engagement settles the early choices waiting for it (`DwellLedger`). Call after the
    /// features recorded the event.
    func observe(_ event: UnsafePointer<Event>) {
        if state.hasOpenEarlyChoice { settleEarlyChoices(event) }
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

    /// Settles the open early choices with an engagement (a launch of a widget's app, a tap, a
    /// swipe to a widget).
    private func settleEarlyChoices(_ event: UnsafePointer<Event>) {
        let ts = event.pointee.time.secondsSinceEpoch
        switch event.pointee.payload {
        case .appLaunch(let name):
            guard let a = features.apps.index(of: name) else { return }
            for k in 0..<features.appWidgets[Int(a)].count {
                state.settleEarly(engaged: features.appWidgets[Int(a)][k], at: ts, stackWidgets: features.stackWidgets, halfLife: policy.halfLife)
            }
        case .widgetTap(let widget, _), .widgetSwipe(_, _, let widget):
            guard let w = features.widgets.index(of: widget) else { return }
            state.settleEarly(engaged: w, at: ts, stackWidgets: features.stackWidgets, halfLife: policy.halfLife)
        default:
            return
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
        if !outcomes.isEmpty { outcomes.removeAll(keepingCapacity: true) }
        var early = RotationState.EarlyChoice()
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
                if explores {
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
            top = resolve(pick, scratch, stack: s, widgets: widgets, at: ts, today: today, early: &early)
            if candidates > 0 && explores {
                propensity = 0
                var ignored = RotationState.EarlyChoice()
                for i in 0..<n where scratch.probabilities[i] > 0 {
                    let shown = resolve(i, scratch, stack: s, widgets: widgets, at: ts, today: today, early: &ignored)
                    if shown == top { propensity += scratch.probabilities[i] }
                    if let k = outcomes.firstIndex(where: { $0.widget == shown }) {
                        outcomes[k].probability += scratch.probabilities[i]
                    } else {
                        outcomes.append((shown, scratch.probabilities[i]))
                    }
                }
            }
        }
        state.early[s] = early
        state.show(top, stack: s, previous: previous, at: ts, today: today)
        return (top, previous, propensity)
    }

    /// The exploration probabilities over candidates into `scratch.probabilities`: `contextual`'s
    /// (a share `explore` spread evenly over the candidates within `exploreMargin` of the best
    /// score, the rest on the best) or the bandit's.
    private func explorationDistribution(_ scratch: inout ScoringScratch, widgets: [Int32], stack s: Int, candidates: Int, greedy: Int) {
        let n = widgets.count
        if policy.kind == .contextual {
            let floor = scratch.scores[greedy] - policy.exploreMargin
            var close = 0
            for i in 0..<n where scratch.eligible[i] && scratch.scores[i] >= floor && !state.isOnTopElsewhere(widgets[i], except: s) {
                close += 1
            }
            let share = close > 1 ? policy.explore / Double(close) : 0
            for i in 0..<n where scratch.eligible[i] && scratch.scores[i] >= floor && !state.isOnTopElsewhere(widgets[i], except: s) {
                scratch.probabilities[i] = share + (i == greedy ? 1 - share * Double(close) : 0)
            }
            return
        }
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

    /// The widget on top if the scorer proposes row `candidate` (or nothing, -1). When the dwell
    /// or the daily cap holds back a challenger that clears the margin (or the ledger releases
    /// it), `early` receives the choice so the stack's next engagement can settle it.
    private func resolve(_ candidate: Int, _ scratch: borrowing ScoringScratch, stack s: Int, widgets: [Int32], at ts: Double, today: Int32,
                         early: inout RotationState.EarlyChoice) -> Int32 {
        let p = parameters
        let hold = state.holdWidget[s]
        if hold >= 0, ts < state.holdUntil[s], let j = widgets.firstIndex(of: hold), scratch.eligible[j] {
            // A manual swipe holds its widget, unless the ledger releases a challenger.
            guard candidate >= 0, widgets[candidate] != hold, p.earlyRotationConfidence < 1,
                  !state.isOnTopElsewhere(widgets[candidate], except: s) else { return hold }
            return earlyChoice(candidate, over: j, scratch, stack: s, widgets: widgets, at: ts, early: &early)
        }
        let current = state.top[s]
        let ci = current >= 0 ? widgets.firstIndex(of: current) : nil
        let currentValid = ci.map { scratch.eligible[$0] } == true && !state.isOnTopElsewhere(current, except: s)
        guard candidate >= 0 else { return currentValid ? current : -1 }
        let challenger = widgets[candidate]
        guard currentValid, let ci else { return challenger }
        if challenger == current { return current }
        // The dwell and the daily cap hold a challenger back unless the ledger releases it.
        let isHeld = ts - state.since[s] < p.minimumDwell || state.rotations(stack: s, today: today) >= p.maximumRotationsPerDay
        if isHeld && p.earlyRotationConfidence >= 1 { return current }
        if p.hysteresisMargin <= 0 && !isHeld { return challenger }
        guard isHeld else {
            let strongest = strength(candidate, scratch, widgets: widgets)
            guard strongest > 0 else { return current }
            let gain = (strongest - strength(ci, scratch, widgets: widgets)) / strongest
            return gain >= p.hysteresisMargin ? challenger : current
        }
        return earlyChoice(candidate, over: ci, scratch, stack: s, widgets: widgets, at: ts, early: &early)
    }

    /// Row `candidate` against the held top at row `incumbent` (held by the dwell, the daily cap
    /// or a swipe): when it clears the margin, the choice goes to `early` and the ledger says
    /// whether such challengers win often enough to replace the top now.
    private func earlyChoice(_ candidate: Int, over incumbent: Int, _ scratch: borrowing ScoringScratch, stack s: Int,
                             widgets: [Int32], at ts: Double, early: inout RotationState.EarlyChoice) -> Int32 {
        let challenger = widgets[candidate], current = widgets[incumbent]
        let strongest = strength(candidate, scratch, widgets: widgets)
        guard strongest > 0 else { return current }
        let gain = (strongest - strength(incumbent, scratch, widgets: widgets)) / strongest
        guard gain >= parameters.hysteresisMargin else { return current }
        let isReturn = challenger == state.replaced[s]
        let cell = DwellLedger.cell(gain: gain, isReturn: isReturn)
        early = RotationState.EarlyChoice(challenger: challenger, incumbent: current, cell: Int32(cell), at: ts)
        return state.ledger.allowsEarlyRotation(cell: cell, gain: gain, z: isReturn ? z.isReturn : z.new, at: ts,
                                                halfLife: policy.halfLife) ? challenger : current
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
