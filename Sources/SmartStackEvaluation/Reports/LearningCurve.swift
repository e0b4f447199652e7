/// How fast each policy learns a person: its figures per day since the person's stacks were first
/// configured (day 1 is the 24 hours from that instant; for data without a history before the
/// stacks, the person's first day), pooled over people by decisions, with every decision counted
/// (the warm-up too). `report.json` key `by_day`; `smartstack evaluate --by-day`.
///
/// With a truth file the curve reads counterfactual engagement with the ceiling of each day,
/// and each policy's ``LearningCurvePolicy/reachesDay`` is the first day from which its
/// engagement stays at or above ``threshold`` × the ceiling on every later day with enough
/// decisions. Without one it reads hit@1 and names no such day (hit@1 has no ceiling).
///
/// ```swift
/// let curve = report.byDay
/// curve?.policies.first { $0.name == "contextual" }?.reachesDay   // 3
/// ```
public struct LearningCurve: Sendable, Hashable, Codable {
    /// What the policies' share of the ceiling must reach: 0.85.
    public static let defaultThreshold = 0.85
    /// Days with fewer decisions than this (with a truth line, or with a target for hit@1) are
    /// shown but shaded and do not count for ``LearningCurvePolicy/reachesDay``.
    public static let minimumDecisions = 20

    /// `counterfactual_engagement` (a truth file) or `hit_at_1`.
    public var measure: String
    /// The share of the ceiling the reach day asks for (`null` for hit@1).
    public var threshold: Double?
    /// ``minimumDecisions``, as the report applied it.
    public var minimumDecisions: Int
    /// Every day from day 1 to the last with a decision (days without any included).
    public var days: [LearningCurveDay]
    /// One entry per evaluated policy, in the report's order.
    public var policies: [LearningCurvePolicy]

    /// Creates a curve.
    public init(measure: String, threshold: Double?, minimumDecisions: Int, days: [LearningCurveDay],
                policies: [LearningCurvePolicy]) {
        self.measure = measure; self.threshold = threshold; self.minimumDecisions = minimumDecisions
        self.days = days; self.policies = policies
    }

    /// Whether the curve reads counterfactual engagement.
    public var isCounterfactual: Bool { measure == Metric.counterfactualEngagement.rawValue }

    /// The number of decisions day `d`'s figure is measured over.
    public func decisionsMeasured(_ d: LearningCurveDay) -> Int {
        isCounterfactual ? d.decisionsWithTruth : d.decisionsWithTarget
    }

    /// Whether day `d` has enough decisions to be read (``minimumDecisions``).
    public func isSolid(_ d: LearningCurveDay) -> Bool { decisionsMeasured(d) >= minimumDecisions }

    /// The first day from which `shares` (day number → share of the ceiling) stays at or above
    /// `threshold` on every day of `solid`; `nil` when the last solid day is below it.
    ///
    /// - Complexity: O(days).
    static func reachDay(shares: [(day: Int, share: Double)], threshold: Double) -> Int? {
        var reach: Int?
        for (day, share) in shares {
            if share >= threshold {
                if reach == nil { reach = day }
            } else {
                reach = nil
            }
        }
        return reach
    }

    enum CodingKeys: String, CodingKey {
        case measure, threshold, days, policies
        case minimumDecisions = "minimum_decisions"
    }

    /// Encodes every key, a missing threshold as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(measure, forKey: .measure)
        try c.encode(threshold, forKey: .threshold)
        try c.encode(minimumDecisions, forKey: .minimumDecisions)
        try c.encode(days, forKey: .days)
        try c.encode(policies, forKey: .policies)
    }
}

/// One day of the learning curve, policy independent.
public struct LearningCurveDay: Sendable, Hashable, Codable {
    /// Days since the stacks were first configured, from 1.
    public var day: Int
    /// People with at least one decision that day.
    public var users: Int
    /// Decisions (decision point × stack), those with a target, and those with a truth line.
    public var decisions: Int
    public var decisionsWithTarget: Int
    public var decisionsWithTruth: Int
    /// The sum over the decisions with a truth line of the best eligible widget's value, and its
    /// mean: the ceiling (`null` without such decisions).
    public var ceilingSum: Double
    public var ceiling: Double?

    /// Creates a day.
    public init(day: Int, users: Int, decisions: Int, decisionsWithTarget: Int, decisionsWithTruth: Int,
                ceilingSum: Double, ceiling: Double?) {
        self.day = day; self.users = users; self.decisions = decisions; self.decisionsWithTarget = decisionsWithTarget
        self.decisionsWithTruth = decisionsWithTruth; self.ceilingSum = ceilingSum; self.ceiling = ceiling
    }

    enum CodingKeys: String, CodingKey {
        case day, users, decisions, ceiling
        case decisionsWithTarget = "decisions_with_target"
        case decisionsWithTruth = "decisions_with_truth"
        case ceilingSum = "ceiling_sum"
    }

    /// Encodes every key, a missing ceiling as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(day, forKey: .day)
        try c.encode(users, forKey: .users)
        try c.encode(decisions, forKey: .decisions)
        try c.encode(decisionsWithTarget, forKey: .decisionsWithTarget)
        try c.encode(decisionsWithTruth, forKey: .decisionsWithTruth)
        try c.encode(ceilingSum, forKey: .ceilingSum)
        try c.encode(ceiling, forKey: .ceiling)
    }
}

/// One policy's learning curve.
public struct LearningCurvePolicy: Sendable, Hashable, Codable {
    /// The policy as named in the report.
    public var name: String
    /// The first day from which its counterfactual engagement stays at or above the threshold ×
    /// the ceiling on every later day with enough decisions; `null` when it never does (or
    /// without a truth file).
    public var reachesDay: Int?
    /// Its figures, aligned with ``LearningCurve/days``.
    public var days: [LearningCurvePoint]

    /// Creates an entry.
    public init(name: String, reachesDay: Int?, days: [LearningCurvePoint]) {
        self.name = name; self.reachesDay = reachesDay; self.days = days
    }

    enum CodingKeys: String, CodingKey {
        case name, days
        case reachesDay = "reaches_day"
    }

    /// Encodes every key, a missing reach day as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(reachesDay, forKey: .reachesDay)
        try c.encode(days, forKey: .days)
    }
}

/// One policy's figures on one day of the learning curve.
public struct LearningCurvePoint: Sendable, Hashable, Codable {
    /// Days since the stacks were first configured, from 1.
    public var day: Int
    /// Decisions whose top was the target, and hit@1 over those with a target (`null` without).
    public var hitsAt1: Int
    public var hitAt1: Double?
    /// The sum of the truth's value of the policy's top over the decisions with a truth line, its
    /// mean (counterfactual engagement) and that mean ÷ the day's ceiling (`null` without such
    /// decisions, or a ceiling of 0).
    public var counterfactualSum: Double
    public var counterfactualEngagement: Double?
    public var ceilingRatio: Double?

    /// Creates a point.
    public init(day: Int, hitsAt1: Int, hitAt1: Double?, counterfactualSum: Double, counterfactualEngagement: Double?,
                ceilingRatio: Double?) {
        self.day = day; self.hitsAt1 = hitsAt1; self.hitAt1 = hitAt1; self.counterfactualSum = counterfactualSum
        self.counterfactualEngagement = counterfactualEngagement; self.ceilingRatio = ceilingRatio
    }

    /// The curve's figure this day: counterfactual engagement or hit@1.
    public func value(counterfactual: Bool) -> Double? { counterfactual ? counterfactualEngagement : hitAt1 }

    enum CodingKeys: String, CodingKey {
        case day
        case hitsAt1 = "hits_at_1"
        case hitAt1 = "hit_at_1"
        case counterfactualSum = "counterfactual_sum"
        case counterfactualEngagement = "counterfactual_engagement"
        case ceilingRatio = "ceiling_ratio"
    }

    /// Encodes every key, undefined values as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(day, forKey: .day)
        try c.encode(hitsAt1, forKey: .hitsAt1)
        try c.encode(hitAt1, forKey: .hitAt1)
        try c.encode(counterfactualSum, forKey: .counterfactualSum)
        try c.encode(counterfactualEngagement, forKey: .counterfactualEngagement)
        try c.encode(ceilingRatio, forKey: .ceilingRatio)
    }
}

extension LearningCurve {
    /// The curve of per-policy, per-day tallies summed over users (`tallies[p][d]`, day index 0
    /// for day 1) and the people with a decision each day; counterfactual when `counterfactual`.
    ///
    /// - Complexity: O(policies × days).
    init(policies names: [String], tallies: [[DecisionTally]], users: [Int], counterfactual: Bool) {
        let count = max(users.count, tallies.map(\.count).max() ?? 0)
        let base = tallies.first ?? []
        var days: [LearningCurveDay] = []
        for d in 0..<count {
            let t = base[growing: d]
            days.append(LearningCurveDay(
                day: d + 1, users: d < users.count ? users[d] : 0, decisions: t.decisions,
                decisionsWithTarget: t.decisionsWithTarget, decisionsWithTruth: t.decisionsWithTruth, ceilingSum: t.ceilingSum,
                ceiling: t.ceiling))
        }
        let threshold = counterfactual ? Self.defaultThreshold : nil
        var entries: [LearningCurvePolicy] = []
        for (p, name) in names.enumerated() {
            var points: [LearningCurvePoint] = []
            var shares: [(day: Int, share: Double)] = []
            for d in 0..<count {
                let t = p < tallies.count ? tallies[p][growing: d] : DecisionTally()
                points.append(LearningCurvePoint(day: d + 1, hitsAt1: t.hitsAt1, hitAt1: t.hitAt1, counterfactualSum: t.counterfactualSum,
                                                 counterfactualEngagement: t.counterfactualEngagement, ceilingRatio: t.ceilingRatio))
                if counterfactual, t.decisionsWithTruth >= Self.minimumDecisions, let ratio = t.ceilingRatio { shares.append((d + 1, ratio)) }
            }
            let reach = threshold.flatMap { Self.reachDay(shares: shares, threshold: $0) }
            entries.append(LearningCurvePolicy(name: name, reachesDay: reach, days: points))
        }
        self.init(measure: counterfactual ? Metric.counterfactualEngagement.rawValue : Metric.hitAt1.rawValue, threshold: threshold,
                  minimumDecisions: Self.minimumDecisions, days: days, policies: entries)
    }
}
