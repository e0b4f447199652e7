import Foundation

/// The figure a report leads with (``EvaluationMeasure``): what its findings, sort order and
/// charts read first.
extension EvaluationReport {
    /// The headline as a metric of the policies table: counterfactual engagement with a truth
    /// file, else hit@1 (the off-policy estimate is not a table metric: ``headline(of:)``).
    public var headlineMetric: Metric { measure == .counterfactual ? .counterfactualEngagement : .hitAt1 }

    /// The headline's short title in tables and charts.
    public var headlineTitle: String {
        switch measure {
        case .counterfactual: "counterfactual engagement"
        case .offPolicy: "off-policy engagement (DR)"
        case .logged: "logged hit@1"
        }
    }

    /// Policy `p`'s headline value and its 95% interval.
    public func headline(of p: PolicyReport) -> (value: Double?, interval: ClosedRange<Double>?) {
        switch measure {
        case .counterfactual, .logged:
            return (p.metrics[headlineMetric], p.ci[headlineMetric])
        case .offPolicy:
            guard let e = p.ope?.estimates?[.doublyRobust()] else { return (nil, nil) }
            let ci = e.interval.flatMap { $0.count == 2 && $0[0] <= $0[1] ? $0[0]...$0[1] : nil }
            return (e.value, ci)
        }
    }

    /// The metric the hour-of-day chart plots: counterfactual engagement with a truth file,
    /// else hit@1 (off-policy estimates are not broken down by hour).
    var hourMetric: Metric { measure == .counterfactual ? .counterfactualEngagement : .hitAt1 }

    /// The title of hit@1 wherever it is not the headline: it is read against the logged
    /// engagements.
    var hitAt1Title: String { measure == .logged ? "hit@1" : "logged hit@1" }
}
