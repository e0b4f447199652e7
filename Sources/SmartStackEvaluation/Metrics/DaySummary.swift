/// Additive tallies of one policy over one user-day: the unit the bootstrap resamples.
///
/// A decision belongs to the local day (in its own UTC offset) of its decision point; a dwell
/// to the day of the rotation that ends it; a rotation's necessity to the day of the rotation.
public struct DaySummary: Sendable, Hashable {
    /// Scored (decision point, stack) decisions.
    public var decisions = 0
    /// Decisions that have a target.
    public var decisionsWithTarget = 0
    /// Decisions whose top was the target.
    public var hitsAt1 = 0
    /// Decisions whose target was in the first three.
    public var hitsAt3 = 0
    /// Sum of reciprocal ranks of targets.
    public var reciprocalRankSum = 0.0
    /// Sum of nDCG@3 of targets.
    public var ndcgSum = 0.0
    /// Distinct local hours of the day with a decision point.
    public var activeHours = 0
    /// Rotations (top changes) at scored decisions.
    public var rotations = 0
    /// Rotations returning to the previous top within the flicker window.
    public var flickers = 0
    /// Rotations whose new top was not engaged before the next rotation.
    public var unnecessaryRotations = 0
    /// Completed dwells on top, in minutes.
    public var dwellMinutes: [Double] = []
    /// The user-local (stack, widget) keys on top at scored decisions this day, distinct.
    public var topKeys: [Int32] = []

    /// An empty day.
    public init() {}

    /// Tallies one decision; `rank` is the 1-based rank of the target in the display order, or
    /// `nil` without target (`Int.max` when the target is missing from the order).
    mutating func addDecision(targetRank rank: Int?) {
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
}

import Foundation
