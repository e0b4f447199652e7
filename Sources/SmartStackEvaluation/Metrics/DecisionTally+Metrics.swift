/// The metrics of a tally: ratios of its sums, taken only when a report asks for them
/// (undefined ratios, such as hit@1 without any target, are `nil`, never 0).
extension DecisionTally {
    /// Share of decisions with a target whose top was the target.
    public var hitAt1: Double? { perTarget(Double(hitsAt1)) }
    /// Share of decisions with a target whose target was among the first three.
    public var hitAt3: Double? { perTarget(Double(hitsAt3)) }
    /// Mean reciprocal rank of targets.
    public var meanReciprocalRank: Double? { perTarget(reciprocalRankSum) }
    /// Mean nDCG@3 of targets.
    public var ndcgAt3: Double? { perTarget(ndcgSum) }
    /// Mean probability, over decisions with a ground-truth line, that the policy's top is what
    /// the person came for: its engagement had it run the stack, without the display lift.
    public var counterfactualEngagement: Double? { perTruth(counterfactualSum) }
    /// The same for the best eligible widget at each decision.
    public var ceiling: Double? { perTruth(ceilingSum) }
    /// Counterfactual engagement ÷ ceiling (undefined when the ceiling is 0).
    public var ceilingRatio: Double? { decisionsWithTruth > 0 && ceilingSum > 0 ? counterfactualSum / ceilingSum : nil }
    /// Mean display lift over decisions with a ground-truth line.
    public var displayLift: Double? { perTruth(liftSum) }
    /// Rotations per active hour.
    public var rotationsPerActiveHour: Double? {
        activeHours > 0 ? Double(rotations) / Double(activeHours) : nil
    }
    /// Share of rotations that were flickers.
    public var flickerRate: Double? { perRotation(flickers) }
    /// Share of rotations that were unnecessary.
    public var unnecessaryRotationRate: Double? { perRotation(unnecessaryRotations) }
    /// The median dwell in minutes (mean of the middle two for an even count).
    ///
    /// - Complexity: O(d log d) for d dwells.
    public var medianDwellMinutes: Double? {
        var dwells = dwellMinutes
        return Self.median(&dwells)
    }

    private func perTarget(_ sum: Double) -> Double? {
        decisionsWithTarget > 0 ? sum / Double(decisionsWithTarget) : nil
    }

    private func perTruth(_ sum: Double) -> Double? {
        decisionsWithTruth > 0 ? sum / Double(decisionsWithTruth) : nil
    }

    private func perRotation(_ count: Int) -> Double? {
        rotations > 0 ? Double(count) / Double(rotations) : nil
    }

    /// The median of `values` (mean of the two middle values for an even count), `nil` when
    /// empty; sorts `values` in place.
    ///
    /// - Complexity: O(n log n).
    static func median(_ values: inout [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        values.sort()
        let n = values.count
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2
    }
}
