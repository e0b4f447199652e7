extension MetricValues {
    /// The metrics of summed tallies: `total`'s ratios (its dwells are not read), the median
    /// dwell, and coverage as `covered` of `universe` configured (stack, widget) pairs
    /// (undefined when `universe` is 0).
    init(_ total: DecisionTally, medianDwell: Double?, covered: Int, universe: Int) {
        self.init()
        self[.decisions] = Double(total.decisions)
        self[.decisionsWithTarget] = Double(total.decisionsWithTarget)
        self[.decisionsWithTruth] = Double(total.decisionsWithTruth)
        self[.counterfactualEngagement] = total.counterfactualEngagement
        self[.ceiling] = total.ceiling
        self[.ceilingRatio] = total.ceilingRatio
        self[.hitAt1] = total.hitAt1
        self[.hitAt3] = total.hitAt3
        self[.mrr] = total.meanReciprocalRank
        self[.ndcgAt3] = total.ndcgAt3
        self[.rotationsPerActiveHour] = total.rotationsPerActiveHour
        self[.flickerRate] = total.flickerRate
        self[.unnecessaryRotationRate] = total.unnecessaryRotationRate
        self[.medianDwellMinutes] = medianDwell
        if universe > 0 { self[.coverage] = Double(covered) / Double(universe) }
    }

    /// The metrics of one user's scored days, as a report's per-user breakdown shows them: the
    /// days' tallies summed in order, the median of all their dwells, and the share of the
    /// user's `universe` configured pairs on top on any of them (undefined without days).
    ///
    /// - Complexity: O(days + d log d) for d dwells.
    init(days: [DaySummary], universe: Int) {
        var total = DecisionTally()
        var keys = Set<Int32>()
        for day in days {
            total += day.tally
            keys.formUnion(day.topKeys)
        }
        self.init(total, medianDwell: DecisionTally.median(&total.dwellMinutes), covered: keys.count,
                  universe: days.isEmpty ? 0 : universe)
    }
}
