import SmartStack

/// The verdict on a report's headline measure (``Verdict``): candidates ranked by point
/// estimate, each one's difference to the best with a paired interval on the same resamples
/// (user-days for counterfactual engagement and hit@1, logged rounds for the off-policy DR
/// estimate), and a winner only when every such interval excludes zero.
struct VerdictBuilder {
    let verdict: Verdict?

    /// - Complexity: O(policies × resamples) for the user-day measures; O(policies × resamples ×
    ///   rounds) for the off-policy one.
    init(measure: EvaluationMeasure, policies: [PolicyReport], bootstrap: Bootstrap.Result, offPolicy: OffPolicyIntegration,
         resamples: Int, seed: UInt64) {
        let metric: String
        var values: [(index: Int, value: Double)] = []
        switch measure {
        case .counterfactual, .logged:
            let m: Metric = measure == .counterfactual ? .counterfactualEngagement : .hitAt1
            metric = m.rawValue
            for (i, p) in policies.enumerated() where !ReportFindings.isOracle(p.name) {
                if let v = p.metrics[m], v.isFinite { values.append((i, v)) }
            }
        case .offPolicy:
            metric = "ope_dr"
            for (i, p) in policies.enumerated() where !ReportFindings.isOracle(p.name) {
                if let v = p.ope?.estimates?[.doublyRobust()]?.value, v.isFinite { values.append((i, v)) }
            }
        }
        // Best first; ties keep the order the policies were asked for.
        let ranked = values.enumerated().sorted { a, b in
            a.element.value != b.element.value ? a.element.value > b.element.value : a.offset < b.offset
        }.map(\.element)
        guard let best = ranked.first else {
            verdict = nil
            return
        }
        var differences: [VerdictDifference] = []
        for other in ranked.dropFirst() {
            var difference = best.value - other.value
            var interval: ClosedRange<Double>?
            switch measure {
            case .counterfactual:
                interval = bootstrap.pairedInterval(.counterfactualEngagement, best.index, minus: other.index)
            case .logged:
                interval = bootstrap.pairedInterval(.hitAt1, best.index, minus: other.index)
            case .offPolicy:
                if let paired = offPolicy.pairedDoublyRobust(best.index, minus: other.index, resamples: resamples, seed: seed) {
                    difference = paired.difference
                    interval = paired.interval
                }
            }
            differences.append(VerdictDifference(policy: policies[other.index].name, difference: difference,
                                                 interval: interval.map { [$0.lowerBound, $0.upperBound] }))
        }
        // Not ahead beyond chance: no interval, or one that reaches zero.
        let tied = [policies[best.index].name] + differences.filter { d in
            guard let ci = d.interval else { return true }
            return ci[0] <= 0
        }.map(\.policy)
        let runnerUp = differences.first
        verdict = Verdict(metric: metric, ranking: ranked.map { policies[$0.index].name }, best: policies[best.index].name,
                          tied: tied, winner: tied.count == 1 && !differences.isEmpty ? tied[0] : nil,
                          runnerUp: runnerUp?.policy, lead: runnerUp?.difference, leadInterval: runnerUp?.interval,
                          differences: differences)
    }
}
