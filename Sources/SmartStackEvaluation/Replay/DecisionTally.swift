import Foundation

/// Sums and counts of one policy's scored decisions over some span — a user-day, a user's local
/// hour of day, a whole dataset — from which every metric but coverage is computed. The replay
/// records into one per user-day and one per local hour; the metrics are ratios of its sums.
///
/// A tally is a plain value: tallies of disjoint spans add up (`+`), and the ratios are taken
/// only when a report asks for them, so a tally may be stored, sent and merged before.
///
/// ```swift
/// var day = DecisionTally()
/// day.addDecision(targetRank: 2)     // the target was second in the display order
/// day.addDecision(targetRank: nil)   // no engagement followed: counts for stability only
/// day.addRotation(isFlicker: false)
/// day.hitAt1                         // 0.0 (one decision with a target, no hit)
/// ```
///
/// What belongs to which span: a decision to the local day and hour of its decision point; a
/// rotation, its flicker and its necessity to the decision that made it; a dwell to the decision
/// that ends it; an active hour is one (local day, local hour) with a scored decision point.
public struct DecisionTally: Sendable, Hashable, Codable {
    /// Scored (decision point, stack) decisions.
    public var decisions = 0
    /// Decisions that have a target.
    public var decisionsWithTarget = 0
    /// Decisions whose top was the target.
    public var hitsAt1 = 0
    /// Decisions whose target was in the first three.
    public var hitsAt3 = 0
    /// Sum of reciprocal ranks of targets (0 for a target missing from the display order).
    public var reciprocalRankSum = 0.0
    /// Sum of nDCG@3 of targets.
    public var ndcgSum = 0.0
    /// Distinct (local day, local hour) pairs with a scored decision point.
    public var activeHours = 0
    /// Rotations (top changes) at scored decisions.
    public var rotations = 0
    /// Rotations returning to the previous top within the flicker window.
    public var flickers = 0
    /// Rotations whose new top was not engaged before the next rotation.
    public var unnecessaryRotations = 0
    /// Completed dwells on top, in minutes, in the order they ended (the median needs them all).
    public var dwellMinutes: [Double] = []
    /// Decisions with a ground-truth line (the counterfactual measure's decisions).
    public var decisionsWithTruth = 0
    /// Sum over those of the truth's probability that the policy's top is what the person came
    /// for (`intent[top]`, or `distribution[top]` where the truth has no intent).
    public var counterfactualSum = 0.0
    /// Sum over those of the same probability for the best eligible widget (the ceiling).
    public var ceilingSum = 0.0
    /// Sum over those of the truth's display lift (what showing any widget adds to its
    /// engagement; the same whatever is shown, so it is kept apart from the measure).
    public var liftSum = 0.0

    /// An empty tally.
    public init() {}

    /// Tallies one decision; `rank` is the 1-based rank of the target in the display order,
    /// `Int.max` when the target is missing from it, or `nil` when the decision has no target.
    public mutating func addDecision(targetRank rank: Int?) {
        decisions += 1
        guard let rank else { return }
        decisionsWithTarget += 1
        if rank == 1 { hitsAt1 += 1 }
        if rank <= 3 { hitsAt3 += 1 }
        if rank != Int.max {
            reciprocalRankSum += 1 / Double(rank)
            if rank <= 3 { ndcgSum += 1 / log2(Double(rank) + 1) }
        }
    }

    /// Tallies the counterfactual value of one decision that has a ground-truth line: `value`
    /// for the policy's top (0 when it showed nothing), `ceiling` for the best eligible widget,
    /// and the line's display `lift`.
    public mutating func addCounterfactual(value: Double, ceiling: Double, lift: Double) {
        decisionsWithTruth += 1
        counterfactualSum += value
        ceilingSum += ceiling
        liftSum += lift
    }

    /// Tallies one rotation; `isFlicker` when it returns to the top the previous rotation replaced.
    public mutating func addRotation(isFlicker: Bool) {
        rotations += 1
        if isFlicker { flickers += 1 }
    }

    /// Tallies a completed dwell on top.
    public mutating func addDwell(minutes: Double) {
        dwellMinutes.append(minutes)
    }

    /// Tallies a rotation whose new top was not engaged before the next rotation.
    public mutating func addUnnecessaryRotation() {
        unnecessaryRotations += 1
    }

    /// Adds `other`'s sums and counts (and its dwells, after this tally's).
    ///
    /// - Complexity: O(dwells of `other`).
    public static func += (tally: inout DecisionTally, other: DecisionTally) {
        tally.decisions += other.decisions
        tally.decisionsWithTarget += other.decisionsWithTarget
        tally.hitsAt1 += other.hitsAt1
        tally.hitsAt3 += other.hitsAt3
        tally.reciprocalRankSum += other.reciprocalRankSum
        tally.ndcgSum += other.ndcgSum
        tally.activeHours += other.activeHours
        tally.rotations += other.rotations
        tally.flickers += other.flickers
        tally.unnecessaryRotations += other.unnecessaryRotations
        tally.dwellMinutes.append(contentsOf: other.dwellMinutes)
        tally.decisionsWithTruth += other.decisionsWithTruth
        tally.counterfactualSum += other.counterfactualSum
        tally.ceilingSum += other.ceilingSum
        tally.liftSum += other.liftSum
    }

    /// The tally of both spans.
    ///
    /// - Complexity: O(dwells).
    public static func + (lhs: DecisionTally, rhs: DecisionTally) -> DecisionTally {
        var sum = lhs
        sum += rhs
        return sum
    }

    /// Empties the tally, keeping the dwells' storage for reuse (the bootstrap's accumulator).
    mutating func reset() {
        var empty = DecisionTally()
        swap(&empty.dwellMinutes, &dwellMinutes)
        empty.dwellMinutes.removeAll(keepingCapacity: true)
        self = empty
    }
}
