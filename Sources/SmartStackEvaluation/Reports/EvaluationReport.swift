/// Everything an evaluation found: the model behind `report.json`, the stdout table and the
/// Markdown/HTML renderers. Encodes with exactly the keys documented in `docs/metrics.md`.
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
    /// What the headline rests on: counterfactual engagement (a truth file), off-policy
    /// estimates (logged impressions with propensities), or logged hit@1 (neither).
    public var measure: EvaluationMeasure
    /// The verdict on the headline measure: the best policy, the policies it is not ahead of
    /// beyond chance, and the winner when there is one.
    public var verdict: Verdict?
    /// The ground truth read and how the decisions met it, when a truth file was given.
    public var truth: TruthSummary?
    /// The policies that logged the data's `widget_impression` events (their `policy` field),
    /// most impressions first: the policy logged hit@1 favours.
    public var loggingPolicies: [LoggingPolicy]
    /// What the reader should know about the inputs (lines skipped, decisions left out).
    public var warnings: [String]
    /// Which SmartStack made the report, how and when (set by the command line).
    public var provenance: ReportProvenance?
    /// Each policy's figures per day since the people's stacks were configured, when asked for
    /// (`evaluate --by-day`).
    public var byDay: LearningCurve?

    /// Creates a report.
    public init(dataset: DatasetSummary, options: OptionsSummary, policies: [PolicyReport], timeline: TimelineSample?,
                measure: EvaluationMeasure = .logged, verdict: Verdict? = nil, truth: TruthSummary? = nil,
                loggingPolicies: [LoggingPolicy] = [], warnings: [String] = [], provenance: ReportProvenance? = nil,
                byDay: LearningCurve? = nil) {
        self.dataset = dataset
        self.options = options
        self.policies = policies
        self.timeline = timeline
        self.measure = measure
        self.verdict = verdict
        self.truth = truth
        self.loggingPolicies = loggingPolicies
        self.warnings = warnings
        self.provenance = provenance
        self.byDay = byDay
    }

    enum CodingKeys: String, CodingKey {
        case dataset, options, policies, timeline, measure, verdict, truth, warnings, provenance
        case loggingPolicies = "logging_policies"
        case byDay = "by_day"
    }

    /// Encodes every key, absent parts as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(dataset, forKey: .dataset)
        try c.encode(options, forKey: .options)
        try c.encode(policies, forKey: .policies)
        try c.encode(timeline, forKey: .timeline)
        try c.encode(measure, forKey: .measure)
        try c.encode(verdict, forKey: .verdict)
        try c.encode(truth, forKey: .truth)
        try c.encode(loggingPolicies, forKey: .loggingPolicies)
        try c.encode(warnings, forKey: .warnings)
        try c.encode(provenance, forKey: .provenance)
        try c.encode(byDay, forKey: .byDay)
    }

    /// Decodes what ``encode(to:)`` writes (reports of earlier versions, without the measure,
    /// read as logged).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        dataset = try c.decode(DatasetSummary.self, forKey: .dataset)
        options = try c.decode(OptionsSummary.self, forKey: .options)
        policies = try c.decode([PolicyReport].self, forKey: .policies)
        timeline = try c.decodeIfPresent(TimelineSample.self, forKey: .timeline)
        measure = try c.decodeIfPresent(EvaluationMeasure.self, forKey: .measure) ?? .logged
        verdict = try c.decodeIfPresent(Verdict.self, forKey: .verdict)
        truth = try c.decodeIfPresent(TruthSummary.self, forKey: .truth)
        loggingPolicies = try c.decodeIfPresent([LoggingPolicy].self, forKey: .loggingPolicies) ?? []
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
        provenance = try c.decodeIfPresent(ReportProvenance.self, forKey: .provenance)
        byDay = try c.decodeIfPresent(LearningCurve.self, forKey: .byDay)
    }
}

/// What a report's headline figure is.
public enum EvaluationMeasure: String, Sendable, Hashable, Codable {
    /// Counterfactual engagement from a truth file: each policy's own top, read as the person
    /// would have lived it (``Metric/counterfactualEngagement``).
    case counterfactual
    /// Off-policy estimates (doubly robust) of each policy's engagement per decision from
    /// logged impressions with propensities.
    case offPolicy = "off-policy"
    /// hit@1 against the logged engagements, which favours the policy that produced the log.
    case logged

    /// The figure the headline reads, as the report names it.
    public var figure: String {
        switch self {
        case .counterfactual: "counterfactual engagement"
        case .offPolicy: "off-policy engagement (DR)"
        case .logged: "logged hit@1"
        }
    }
}

/// The verdict on a report's headline measure: the best policy by its point estimate and the
/// group it is not ahead of beyond chance (paired 95% bootstrap intervals of the difference on
/// the same resamples); a winner only when that group is the best policy alone.
public struct Verdict: Sendable, Hashable, Codable {
    /// The measure's figure (`counterfactual_engagement`, `ope_dr`, `hit_at_1`).
    public var metric: String
    /// The candidates (the oracle left out) best first, by point estimate.
    public var ranking: [String]
    /// The best policy by point estimate.
    public var best: String
    /// The policies whose difference to the best includes zero, the best first.
    public var tied: [String]
    /// The best policy when it is ahead of every other beyond chance, else `nil`.
    public var winner: String?
    /// The second by point estimate, its lead's point value and paired interval.
    public var runnerUp: String?
    public var lead: Double?
    public var leadInterval: [Double]?
    /// Each other candidate's difference to the best (best − it) and its paired interval, in
    /// ranking order.
    public var differences: [VerdictDifference]

    /// Creates a verdict.
    public init(metric: String, ranking: [String], best: String, tied: [String], winner: String?, runnerUp: String?,
                lead: Double?, leadInterval: [Double]?, differences: [VerdictDifference]) {
        self.metric = metric; self.ranking = ranking; self.best = best; self.tied = tied; self.winner = winner
        self.runnerUp = runnerUp; self.lead = lead; self.leadInterval = leadInterval; self.differences = differences
    }

    enum CodingKeys: String, CodingKey {
        case metric, ranking, best, tied, winner, lead, differences
        case runnerUp = "runner_up"
        case leadInterval = "lead_ci"
    }

    /// Encodes every key, absent values as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(metric, forKey: .metric)
        try c.encode(ranking, forKey: .ranking)
        try c.encode(best, forKey: .best)
        try c.encode(tied, forKey: .tied)
        try c.encode(winner, forKey: .winner)
        try c.encode(runnerUp, forKey: .runnerUp)
        try c.encode(lead, forKey: .lead)
        try c.encode(leadInterval, forKey: .leadInterval)
        try c.encode(differences, forKey: .differences)
    }
}

/// The best policy's lead over one other candidate on the headline measure.
public struct VerdictDifference: Sendable, Hashable, Codable {
    /// The other policy.
    public var policy: String
    /// best − policy.
    public var difference: Double
    /// Its paired 95% interval, `null` without bootstrap.
    public var interval: [Double]?

    /// Creates an entry.
    public init(policy: String, difference: Double, interval: [Double]?) {
        self.policy = policy; self.difference = difference; self.interval = interval
    }

    enum CodingKeys: String, CodingKey {
        case policy, difference
        case interval = "ci"
    }

    /// Encodes every key, a missing interval as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(policy, forKey: .policy)
        try c.encode(difference, forKey: .difference)
        try c.encode(interval, forKey: .interval)
    }
}

/// The ground truth of a report and how the scored decisions met it.
public struct TruthSummary: Sendable, Hashable, Codable {
    /// The truth file as given, and its digest (`<bytes>:<crc32>`).
    public var file: String
    public var digest: String
    /// Lines in the file.
    public var lines: Int
    /// Scored decisions measured counterfactually: those with a line at their instant, and
    /// (data without `screen_on`) those matched to the line of the session they belong to.
    public var decisionsWithTruth: Int
    public var matchedAtInstant: Int
    public var matchedEarlier: Int
    /// Scored decisions left out: without a line, or whose line names a widget the stack did
    /// not hold.
    public var leftOutWithoutLine: Int
    public var leftOutUnknownWidget: Int
    /// Lines of users not in the data, and of stacks their user never configured (skipped).
    public var linesOfUnknownUsers: Int
    public var linesOfUnknownStacks: Int
    /// The mean display lift over the measured decisions: engagement any shown widget gets,
    /// whatever it is (kept out of the counterfactual measure and its ratio; `null` when the
    /// truth has no intent).
    public var displayLift: Double?

    /// Creates a summary.
    public init(file: String, digest: String, lines: Int, decisionsWithTruth: Int, matchedAtInstant: Int,
                matchedEarlier: Int, leftOutWithoutLine: Int, leftOutUnknownWidget: Int, linesOfUnknownUsers: Int,
                linesOfUnknownStacks: Int, displayLift: Double?) {
        self.file = file; self.digest = digest; self.lines = lines; self.decisionsWithTruth = decisionsWithTruth
        self.matchedAtInstant = matchedAtInstant; self.matchedEarlier = matchedEarlier
        self.leftOutWithoutLine = leftOutWithoutLine; self.leftOutUnknownWidget = leftOutUnknownWidget
        self.linesOfUnknownUsers = linesOfUnknownUsers; self.linesOfUnknownStacks = linesOfUnknownStacks
        self.displayLift = displayLift
    }

    enum CodingKeys: String, CodingKey {
        case file, digest, lines
        case decisionsWithTruth = "decisions_with_truth"
        case matchedAtInstant = "matched_at_instant"
        case matchedEarlier = "matched_earlier"
        case leftOutWithoutLine = "left_out_without_line"
        case leftOutUnknownWidget = "left_out_unknown_widget"
        case linesOfUnknownUsers = "lines_of_unknown_users"
        case linesOfUnknownStacks = "lines_of_unknown_stacks"
        case displayLift = "display_lift"
    }

    /// Encodes every key, a missing lift as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encode(digest, forKey: .digest)
        try c.encode(lines, forKey: .lines)
        try c.encode(decisionsWithTruth, forKey: .decisionsWithTruth)
        try c.encode(matchedAtInstant, forKey: .matchedAtInstant)
        try c.encode(matchedEarlier, forKey: .matchedEarlier)
        try c.encode(leftOutWithoutLine, forKey: .leftOutWithoutLine)
        try c.encode(leftOutUnknownWidget, forKey: .leftOutUnknownWidget)
        try c.encode(linesOfUnknownUsers, forKey: .linesOfUnknownUsers)
        try c.encode(linesOfUnknownStacks, forKey: .linesOfUnknownStacks)
        try c.encode(displayLift, forKey: .displayLift)
    }
}

/// A policy that logged `widget_impression` events, with how many.
public struct LoggingPolicy: Sendable, Hashable, Codable {
    /// The `policy` field of the impressions.
    public var name: String
    /// Impressions it logged.
    public var impressions: Int

    /// Creates an entry.
    public init(name: String, impressions: Int) { self.name = name; self.impressions = impressions }
}

/// Which SmartStack made a report, with what command, reading what, and when.
public struct ReportProvenance: Sendable, Hashable, Codable {
    /// SmartStack's version.
    public var version: String
    /// The command line, as typed (arguments shell-quoted where needed).
    public var command: String
    /// When the report was made (RFC 3339, UTC): `SOURCE_DATE_EPOCH` when set, so a report can
    /// be reproduced byte for byte.
    public var generated: String

    /// Creates a provenance.
    public init(version: String, command: String, generated: String) {
        self.version = version; self.command = command; self.generated = generated
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
    /// Scored decisions with a ground-truth line that hour.
    public var decisionsWithTruth: Int
    /// Counterfactual engagement over those (`null` without any).
    public var counterfactualEngagement: Double?
    /// The ceiling over those.
    public var ceiling: Double?

    /// Creates an hour entry.
    public init(hour: Int, decisions: Int, decisionsWithTarget: Int, hitAt1: Double?, hitAt3: Double?, mrr: Double?, ndcgAt3: Double?,
                rotations: Int, decisionsWithTruth: Int = 0, counterfactualEngagement: Double? = nil, ceiling: Double? = nil) {
        self.hour = hour; self.decisions = decisions; self.decisionsWithTarget = decisionsWithTarget
        self.hitAt1 = hitAt1; self.hitAt3 = hitAt3; self.mrr = mrr; self.ndcgAt3 = ndcgAt3; self.rotations = rotations
        self.decisionsWithTruth = decisionsWithTruth; self.counterfactualEngagement = counterfactualEngagement
        self.ceiling = ceiling
    }

    /// The entry of local hour `hour` from its tally.
    public init(hour: Int, tally: DecisionTally) {
        self.init(hour: hour, decisions: tally.decisions, decisionsWithTarget: tally.decisionsWithTarget,
                  hitAt1: tally.hitAt1, hitAt3: tally.hitAt3, mrr: tally.meanReciprocalRank, ndcgAt3: tally.ndcgAt3,
                  rotations: tally.rotations, decisionsWithTruth: tally.decisionsWithTruth,
                  counterfactualEngagement: tally.counterfactualEngagement, ceiling: tally.ceiling)
    }

    /// The value of `metric` that hour and the decisions it is measured over (hit@1: those
    /// with a target; counterfactual engagement: those with a truth line).
    func value(_ metric: Metric) -> (value: Double?, over: Int) {
        metric == .counterfactualEngagement ? (counterfactualEngagement, decisionsWithTruth) : (hitAt1, decisionsWithTarget)
    }

    enum CodingKeys: String, CodingKey {
        case hour, decisions, mrr, rotations, ceiling
        case decisionsWithTarget = "decisions_with_target"
        case hitAt1 = "hit_at_1"
        case hitAt3 = "hit_at_3"
        case ndcgAt3 = "ndcg_at_3"
        case decisionsWithTruth = "decisions_with_truth"
        case counterfactualEngagement = "counterfactual_engagement"
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
        try c.encode(decisionsWithTruth, forKey: .decisionsWithTruth)
        try c.encode(counterfactualEngagement, forKey: .counterfactualEngagement)
        try c.encode(ceiling, forKey: .ceiling)
    }

    /// Decodes what ``encode(to:)`` writes (the counterfactual keys optional).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hour = try c.decode(Int.self, forKey: .hour)
        decisions = try c.decode(Int.self, forKey: .decisions)
        decisionsWithTarget = try c.decode(Int.self, forKey: .decisionsWithTarget)
        hitAt1 = try c.decodeIfPresent(Double.self, forKey: .hitAt1)
        hitAt3 = try c.decodeIfPresent(Double.self, forKey: .hitAt3)
        mrr = try c.decodeIfPresent(Double.self, forKey: .mrr)
        ndcgAt3 = try c.decodeIfPresent(Double.self, forKey: .ndcgAt3)
        rotations = try c.decode(Int.self, forKey: .rotations)
        decisionsWithTruth = try c.decodeIfPresent(Int.self, forKey: .decisionsWithTruth) ?? 0
        counterfactualEngagement = try c.decodeIfPresent(Double.self, forKey: .counterfactualEngagement)
        ceiling = try c.decodeIfPresent(Double.self, forKey: .ceiling)
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
