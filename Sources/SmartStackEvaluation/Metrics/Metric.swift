/// The metrics every policy is measured by; raw values are the keys of `report.json`.
public enum Metric: String, Sendable, Hashable, CaseIterable, Codable {
    /// Mean probability, over scored decisions with a ground-truth line, that the policy's own
    /// top is what the person came for (the truth's `intent[top]`, else `distribution[top]`):
    /// the engagement the person would have lived with this policy, display lift left out.
    case counterfactualEngagement = "counterfactual_engagement"
    /// The same for the best eligible widget of each decision: what no policy can beat.
    case ceiling = "ceiling"
    /// Counterfactual engagement ÷ ceiling (ratio of sums over the same decisions).
    case ceilingRatio = "ceiling_ratio"
    /// Share of decisions with a target whose top was the target.
    case hitAt1 = "hit_at_1"
    /// Share of decisions with a target whose target was among the first three of the stack.
    case hitAt3 = "hit_at_3"
    /// Mean reciprocal rank of the target in the stack order.
    case mrr = "mrr"
    /// Mean nDCG@3 of the target (one relevant widget: `1 / log2(rank + 1)` for rank <= 3).
    case ndcgAt3 = "ndcg_at_3"
    /// Rotations (top changes, all stacks) per active hour (an hour with a decision point).
    case rotationsPerActiveHour = "rotations_per_active_hour"
    /// Share of rotations that return to the widget replaced by the previous rotation of the
    /// same stack (A -> B -> A) within the flicker window.
    case flickerRate = "flicker_rate"
    /// Median minutes a widget stays on top, between the rotation that put it there (or the
    /// stack's first decision) and the rotation that replaced it.
    case medianDwellMinutes = "median_dwell_minutes"
    /// Share of rotations after which the new top is not engaged before the stack's next rotation
    /// (or the end of the user's data).
    case unnecessaryRotationRate = "unnecessary_rotation_rate"
    /// Share of the configured (stack, widget) pairs that were ever on top.
    case coverage = "coverage"
    /// Number of (decision point, stack) decisions scored.
    case decisions = "decisions"
    /// Number of scored decisions that have a target.
    case decisionsWithTarget = "decisions_with_target"
    /// Number of scored decisions that have a ground-truth line (the counterfactual's decisions).
    case decisionsWithTruth = "decisions_with_truth"

    /// Whether a larger value is better (`nil` when neither: counts and dwell).
    public var largerIsBetter: Bool? {
        switch self {
        case .counterfactualEngagement, .ceilingRatio, .hitAt1, .hitAt3, .mrr, .ndcgAt3, .coverage: true
        case .rotationsPerActiveHour, .flickerRate, .unnecessaryRotationRate: false
        case .ceiling, .medianDwellMinutes, .decisions, .decisionsWithTarget, .decisionsWithTruth: nil
        }
    }

    /// Whether the metric is a count of decisions (no interval; an integer in JSON).
    public var isCount: Bool { self == .decisions || self == .decisionsWithTarget || self == .decisionsWithTruth }

    /// The metrics that get bootstrap intervals (every metric but the counts).
    public static let estimated: [Metric] = allCases.filter { !$0.isCount }
}

/// One value per metric (`nil` where undefined, e.g. hit@1 without any target). Encodes every
/// key, undefined ones as JSON `null`.
public struct MetricValues: Sendable, Hashable, Codable {
    /// Values by metric.
    public var values: [Metric: Double]

    /// Creates values from a dictionary; missing metrics are undefined.
    public init(_ values: [Metric: Double] = [:]) { self.values = values }

    /// The value of `metric`, or `nil` when undefined.
    public subscript(_ metric: Metric) -> Double? {
        get { values[metric] }
        set { values[metric] = newValue }
    }

    /// The differences `lhs - rhs` of the metrics both define.
    public static func - (lhs: MetricValues, rhs: MetricValues) -> MetricValues {
        var difference = MetricValues()
        for m in Metric.allCases {
            if let a = lhs[m], let b = rhs[m] { difference[m] = a - b }
        }
        return difference
    }

    /// Encodes `{"hit_at_1": 0.5, ..., "coverage": null}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NameKey.self)
        for metric in Metric.allCases {
            let key = NameKey(metric.rawValue)
            if let v = values[metric], v.isFinite {
                if metric.isCount {
                    try container.encode(Int(v), forKey: key)
                } else {
                    try container.encode(v, forKey: key)
                }
            } else {
                try container.encodeNil(forKey: key)
            }
        }
    }

    /// Decodes what `encode(to:)` writes (unknown keys ignored).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: NameKey.self)
        var values: [Metric: Double] = [:]
        for metric in Metric.allCases {
            if let v = try container.decodeIfPresent(Double.self, forKey: NameKey(metric.rawValue)) {
                values[metric] = v
            }
        }
        self.values = values
    }
}

/// A 95% interval per metric (`[low, high]`, `null` where undefined).
public struct MetricIntervals: Sendable, Hashable, Codable {
    /// Intervals by metric.
    public var intervals: [Metric: ClosedRange<Double>]

    /// Creates intervals from a dictionary.
    public init(_ intervals: [Metric: ClosedRange<Double>] = [:]) { self.intervals = intervals }

    /// The interval of `metric`, if defined.
    public subscript(_ metric: Metric) -> ClosedRange<Double>? {
        get { intervals[metric] }
        set { intervals[metric] = newValue }
    }

    /// Encodes `{"hit_at_1": [0.4, 0.6], ...}` for the estimated metrics.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NameKey.self)
        for metric in Metric.estimated {
            let key = NameKey(metric.rawValue)
            if let r = intervals[metric] {
                try container.encode([r.lowerBound, r.upperBound], forKey: key)
            } else {
                try container.encodeNil(forKey: key)
            }
        }
    }

    /// Decodes what `encode(to:)` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: NameKey.self)
        var intervals: [Metric: ClosedRange<Double>] = [:]
        for metric in Metric.estimated {
            if let pair = try container.decodeIfPresent([Double].self, forKey: NameKey(metric.rawValue)),
               pair.count == 2, pair[0] <= pair[1] {
                intervals[metric] = pair[0]...pair[1]
            }
        }
        self.intervals = intervals
    }
}

/// A coding key that is just a name: for JSON objects whose keys are data (metric names,
/// estimator names) rather than a fixed `CodingKeys` enum.
struct NameKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
