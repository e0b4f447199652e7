/// Everything an evaluation found: the model behind `report.json`, the stdout table and the
/// Markdown/HTML renderers. Encodes with exactly the keys documented in the README.
///
/// ```swift
/// let report = try Evaluator(options: options).evaluate(source, policies: factories)
/// print(report.policies[0].metrics[.hitAt1] ?? .nan)
/// let json = try report.jsonData()
/// ```
public struct EvaluationReport: Sendable, Hashable, Codable {
    /// What was replayed.
    public var dataset: DatasetSummary
    /// The options that shape the figures.
    public var options: OptionsSummary
    /// One entry per evaluated policy, in the order asked for.
    public var policies: [PolicyReport]
    /// The user-day chosen for the rotation timeline chart (the scored user-day with the most
    /// decisions with a target; ties go to the earlier user id, then the earlier day), with the
    /// engagements actually made that day. Each policy carries its own intervals.
    public var timeline: TimelineSample?

    /// Creates a report.
    public init(dataset: DatasetSummary, options: OptionsSummary, policies: [PolicyReport], timeline: TimelineSample?) {
        self.dataset = dataset
        self.options = options
        self.policies = policies
        self.timeline = timeline
    }

    enum CodingKeys: String, CodingKey {
        case dataset, options, policies, timeline
    }
}

/// A user left out of the evaluation, and why.
public struct SkippedUser: Sendable, Hashable, Codable {
    /// The user id.
    public var user: String
    /// Why it was skipped, e.g. `no stack_config event`.
    public var reason: String

    /// Creates an entry.
    public init(user: String, reason: String) { self.user = user; self.reason = reason }
}

/// What was replayed: sources and counts.
public struct DatasetSummary: Sendable, Hashable, Codable {
    /// A short name: the first source's file name (without `.jsonl`), or `events`.
    public var name: String
    /// The JSONL files or database replayed.
    public var sources: [String]
    /// Events read.
    public var events: Int
    /// App launches dropped as consecutive repeats of the same app (`merge_repeats`).
    public var mergedRepeats: Int
    /// Distinct users in the data.
    public var users: Int
    /// Users replayed and scored.
    public var usersEvaluated: Int
    /// Users skipped, with the reason.
    public var usersSkipped: [SkippedUser]
    /// Decision points (scored or in warm-up), over all users.
    public var decisionPoints: Int
    /// Users whose decision points are their `screen_on` events (the rest use engagements).
    public var usersWithScreenOn: Int
    /// Scored user-days: the bootstrap's resampling units.
    public var userDays: Int
    /// The earliest and latest event times (RFC 3339), if any.
    public var first: String?
    /// The latest event time.
    public var last: String?

    /// Creates a summary.
    public init(name: String, sources: [String], events: Int, mergedRepeats: Int, users: Int, usersEvaluated: Int,
                usersSkipped: [SkippedUser], decisionPoints: Int, usersWithScreenOn: Int,
                userDays: Int, first: String?, last: String?) {
        self.name = name; self.sources = sources; self.events = events; self.mergedRepeats = mergedRepeats; self.users = users
        self.usersEvaluated = usersEvaluated; self.usersSkipped = usersSkipped
        self.decisionPoints = decisionPoints; self.usersWithScreenOn = usersWithScreenOn
        self.userDays = userDays; self.first = first; self.last = last
    }

    enum CodingKeys: String, CodingKey {
        case name, sources, events, users, first, last
        case mergedRepeats = "merged_repeats"
        case usersEvaluated = "users_evaluated"
        case usersSkipped = "users_skipped"
        case decisionPoints = "decision_points"
        case usersWithScreenOn = "users_with_screen_on"
        case userDays = "user_days"
    }
}

/// The options of a run as printed in every report.
public struct OptionsSummary: Sendable, Hashable, Codable {
    /// Attribution window, minutes.
    public var windowMinutes: Double
    /// Whether consecutive repeats of the same app were merged.
    public var mergeRepeats: Bool
    /// Warm-up days excluded from scoring.
    public var warmupDays: Int
    /// The seed of policies and bootstrap.
    public var seed: UInt64
    /// Bootstrap resamples (0: no intervals).
    public var bootstrapResamples: Int
    /// Confidence level of the intervals.
    public var confidenceLevel: Double
    /// Flicker window, minutes.
    public var flickerWindowMinutes: Double
    /// The reference policy of paired differences, if any.
    public var reference: String?
    /// The decision point rule, in words.
    public var decisionPointRule: String
    /// The rotation parameters every policy ran under (`margin=0.1,dwell=15m,cap=48,swipe_hold=10m,confidence=0.95,new_confidence=0.8`).
    public var rotation: String

    /// Creates a summary.
    public init(windowMinutes: Double, mergeRepeats: Bool, warmupDays: Int, seed: UInt64, bootstrapResamples: Int,
                confidenceLevel: Double, flickerWindowMinutes: Double, reference: String?, decisionPointRule: String,
                rotation: String) {
        self.windowMinutes = windowMinutes; self.mergeRepeats = mergeRepeats; self.warmupDays = warmupDays
        self.seed = seed; self.bootstrapResamples = bootstrapResamples; self.confidenceLevel = confidenceLevel
        self.flickerWindowMinutes = flickerWindowMinutes; self.reference = reference
        self.decisionPointRule = decisionPointRule; self.rotation = rotation
    }

    enum CodingKeys: String, CodingKey {
        case seed, reference
        case windowMinutes = "window_minutes"
        case mergeRepeats = "merge_repeats"
        case warmupDays = "warmup_days"
        case bootstrapResamples = "bootstrap_resamples"
        case confidenceLevel = "confidence_level"
        case flickerWindowMinutes = "flicker_window_minutes"
        case decisionPointRule = "decision_point_rule"
        case rotation
    }
}

/// One policy's results.
public struct PolicyReport: Sendable, Hashable, Codable {
    /// The policy as named on the command line (`frecency`, `contextual:half_life=14d`, `oracle`).
    public var name: String
    /// Point estimates over all scored decisions.
    public var metrics: MetricValues
    /// 95% bootstrap intervals over user-days.
    public var ci: MetricIntervals
    /// Accuracy by local hour of day of the decision (24 entries, hours without decisions too).
    public var byHour: [HourBreakdown]
    /// All metrics per user (users in sorted order): also the data of accuracy-vs-rotations plots.
    public var byUser: [UserBreakdown]
    /// Off-policy estimates from logged impressions, when the data has propensities.
    public var ope: OffPolicyReport?
    /// The paired difference against the reference policy (absent for the reference itself).
    public var paired: PairedComparison?
    /// This policy's top widget per stack over the timeline day (see `EvaluationReport.timeline`).
    public var timeline: [TimelineInterval]

    /// Creates a policy entry.
    public init(name: String, metrics: MetricValues, ci: MetricIntervals, byHour: [HourBreakdown],
                byUser: [UserBreakdown], ope: OffPolicyReport?, paired: PairedComparison?, timeline: [TimelineInterval]) {
        self.name = name; self.metrics = metrics; self.ci = ci; self.byHour = byHour
        self.byUser = byUser; self.ope = ope; self.paired = paired; self.timeline = timeline
    }

    enum CodingKeys: String, CodingKey {
        case name, metrics, ci, ope, paired, timeline
        case byHour = "by_hour"
        case byUser = "by_user"
    }
}

/// Accuracy and rotations of decisions made during one local hour of day.
public struct HourBreakdown: Sendable, Hashable, Codable {
    /// Local hour of day, 0...23.
    public var hour: Int
    /// Scored decisions in that hour.
    public var decisions: Int
    /// Of which with a target.
    public var decisionsWithTarget: Int
    /// hit@1 over those with a target (`null` without any).
    public var hitAt1: Double?
    /// hit@3.
    public var hitAt3: Double?
    /// Mean reciprocal rank.
    public var mrr: Double?
    /// Mean nDCG@3.
    public var ndcgAt3: Double?
    /// Rotations at decisions of that hour.
    public var rotations: Int

    /// Creates an hour entry.
    public init(hour: Int, decisions: Int, decisionsWithTarget: Int, hitAt1: Double?, hitAt3: Double?, mrr: Double?, ndcgAt3: Double?, rotations: Int) {
        self.hour = hour; self.decisions = decisions; self.decisionsWithTarget = decisionsWithTarget
        self.hitAt1 = hitAt1; self.hitAt3 = hitAt3; self.mrr = mrr; self.ndcgAt3 = ndcgAt3; self.rotations = rotations
    }

    /// The entry of local hour `hour` from its tally.
    public init(hour: Int, tally: DecisionTally) {
        self.init(hour: hour, decisions: tally.decisions, decisionsWithTarget: tally.decisionsWithTarget,
                  hitAt1: tally.hitAt1, hitAt3: tally.hitAt3, mrr: tally.meanReciprocalRank, ndcgAt3: tally.ndcgAt3,
                  rotations: tally.rotations)
    }

    enum CodingKeys: String, CodingKey {
        case hour, decisions, mrr, rotations
        case decisionsWithTarget = "decisions_with_target"
        case hitAt1 = "hit_at_1"
        case hitAt3 = "hit_at_3"
        case ndcgAt3 = "ndcg_at_3"
    }

    /// Encodes every key, undefined values as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(hour, forKey: .hour)
        try c.encode(decisions, forKey: .decisions)
        try c.encode(decisionsWithTarget, forKey: .decisionsWithTarget)
        try c.encode(hitAt1, forKey: .hitAt1)
        try c.encode(hitAt3, forKey: .hitAt3)
        try c.encode(mrr, forKey: .mrr)
        try c.encode(ndcgAt3, forKey: .ndcgAt3)
        try c.encode(rotations, forKey: .rotations)
    }
}

/// All metrics of one user.
public struct UserBreakdown: Sendable, Hashable, Codable {
    /// The user id.
    public var user: String
    /// The user's metrics.
    public var metrics: MetricValues

    /// Creates a user entry.
    public init(user: String, metrics: MetricValues) { self.user = user; self.metrics = metrics }
}

/// A policy minus the reference policy on the same decisions, with paired bootstrap intervals.
public struct PairedComparison: Sendable, Hashable, Codable {
    /// The reference policy's name.
    public var reference: String
    /// Point differences (policy − reference) per metric.
    public var difference: MetricValues
    /// 95% intervals of the differences (same resamples for both policies).
    public var ci: MetricIntervals

    /// Creates a comparison.
    public init(reference: String, difference: MetricValues, ci: MetricIntervals) {
        self.reference = reference; self.difference = difference; self.ci = ci
    }
}

/// The user-day of the rotation timeline and what was actually engaged with that day.
public struct TimelineSample: Sendable, Hashable, Codable {
    /// The user.
    public var user: String
    /// The local date, `YYYY-MM-DD`.
    public var date: String
    /// The local day's start and end (RFC 3339, in the offset of its first decision).
    public var start: String
    /// The end of the day (exclusive).
    public var end: String
    /// The user's stacks, in configuration order.
    public var stacks: [String]
    /// Engagements of stacked widgets that day, in time order.
    public var engagements: [TimelineEngagement]

    /// Creates a sample.
    public init(user: String, date: String, start: String, end: String, stacks: [String], engagements: [TimelineEngagement]) {
        self.user = user; self.date = date; self.start = start; self.end = end; self.stacks = stacks; self.engagements = engagements
    }
}

/// One engagement (app launch of a stacked widget's app, or a widget tap) on the timeline day.
public struct TimelineEngagement: Sendable, Hashable, Codable {
    /// When (RFC 3339).
    public var time: String
    /// Minutes since local midnight.
    public var minute: Double
    /// The stack whose widget was engaged.
    public var stack: String
    /// The widget engaged.
    public var widget: String

    /// Creates an engagement.
    public init(time: String, minute: Double, stack: String, widget: String) {
        self.time = time; self.minute = minute; self.stack = stack; self.widget = widget
    }
}

/// A span of time during which a widget was on top of a stack, clipped to the timeline day.
public struct TimelineInterval: Sendable, Hashable, Codable {
    /// The stack.
    public var stack: String
    /// The widget on top.
    public var widget: String
    /// Start (RFC 3339).
    public var start: String
    /// End (RFC 3339, exclusive).
    public var end: String
    /// Start in minutes since local midnight.
    public var startMinute: Double
    /// End in minutes since local midnight.
    public var endMinute: Double

    /// Creates an interval.
    public init(stack: String, widget: String, start: String, end: String, startMinute: Double, endMinute: Double) {
        self.stack = stack; self.widget = widget; self.start = start; self.end = end
        self.startMinute = startMinute; self.endMinute = endMinute
    }

    enum CodingKeys: String, CodingKey {
        case stack, widget, start, end
        case startMinute = "start_minute"
        case endMinute = "end_minute"
    }
}
