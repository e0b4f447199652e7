import SmartStack

/// How a user's decision points were chosen.
enum DecisionPointRule: Sendable, Hashable {
    /// Each distinct instant with a `screen_on`.
    case screenOn
    /// Each distinct instant with an engagement of a stacked widget.
    case engagement
}

/// A change of the top widget of a stack under one policy (for the timeline chart).
struct TopChange: Sendable, Hashable {
    var nanoseconds: Int64
    var stack: Int
    var widget: String
}

/// An engagement of a stacked widget (for the timeline chart).
struct EngagementRecord: Sendable, Hashable {
    var time: EventTime
    var stack: Int
    var widget: String
}

/// How one user's scored decisions met the ground truth (policy independent).
struct TruthMatches: Sendable, Hashable {
    /// Decisions whose truth line is at their instant.
    var atInstant = 0
    /// Decisions without `screen_on` matched to the line of the session their engagement
    /// belongs to (the latest line within the attribution window before them).
    var earlier = 0
    /// Of the matched decisions, those whose line gives `intent` (the rest use `distribution`).
    var withIntent = 0
    /// Decisions left out: their line names a widget the stack did not hold.
    var unknownWidget = 0
    /// Decisions left out: no truth line.
    var missing = 0
    /// Truth lines of stacks the user never configured.
    var unknownStackLines = 0
    /// The user's truth lines, all stacks.
    var lines = 0
    /// The first line naming a widget not in its stack, `file:line: ...`.
    var firstUnknownWidget: String?

    /// Adds `other`'s counts (keeping the first example).
    static func += (a: inout TruthMatches, b: TruthMatches) {
        a.atInstant += b.atInstant; a.earlier += b.earlier; a.withIntent += b.withIntent; a.unknownWidget += b.unknownWidget
        a.missing += b.missing; a.unknownStackLines += b.unknownStackLines; a.lines += b.lines
        if a.firstUnknownWidget == nil { a.firstUnknownWidget = b.firstUnknownWidget }
    }
}

/// One policy's tallies for one user: per scored day, and per local hour of day over all days
/// (the same tally, without dwells).
struct PolicyUserTallies: Sendable {
    var days: [DaySummary] = []
    var byHour = [DecisionTally](repeating: DecisionTally(), count: 24)
    var topChanges: [TopChange] = []
    /// Per logged impression of the user (`UserReplayResult.impressions`), the index of this
    /// policy's top among its candidates, or -1 when it had none there.
    var impressionActions: [Int16] = []
    /// Per day since the user's stacks were first configured (index 0: day 1: the 24 hours from
    /// that instant), the tally of every decision, warm-up included: decisions, targets, hits
    /// and the counterfactual sums (only with `ReplayOptions.byDay`).
    var elapsedDays: [DecisionTally] = []
}

extension [DecisionTally] {
    /// The tally of index `k`, the array grown with empty tallies to hold it.
    subscript(growing k: Int) -> DecisionTally {
        get { k < count ? self[k] : DecisionTally() }
        set {
            if k >= count { append(contentsOf: repeatElement(DecisionTally(), count: k + 1 - count)) }
            self[k] = newValue
        }
    }
}

/// Everything the replay of one user produced.
struct UserReplayResult: Sendable {
    var user: String
    /// Events given (before merging repeats).
    var events = 0
    /// App launches dropped as repeats.
    var mergedRepeats = 0
    var skipReason: String?
    var rule = DecisionPointRule.engagement
    var decisionPoints = 0
    /// Local day numbers of the scored days, in the order first met.
    var dayNumbers: [Int] = []
    /// Decisions with a target per scored day (policy independent).
    var dayTargets: [Int] = []
    /// UTC offset of the first decision point of each scored day.
    var dayOffsets: [Int32] = []
    /// Configured (stack, widget) pairs.
    var universe = 0
    /// Stack ids by slot, in configuration order.
    var stacks: [String] = []
    var perPolicy: [PolicyUserTallies] = []
    /// Logged impressions with a propensity (scored, in a known stack).
    var impressions: [LoggedImpression] = []
    /// Engagements of stacked widgets (only those of the user's best day are kept at the end).
    var engagements: [EngagementRecord] = []
    var lastEventNanoseconds: Int64 = 0
    /// The policies named by the user's `widget_impression` events (their `policy` field), in
    /// first-seen order, with their impression counts.
    var loggingPolicies: [(name: String, impressions: Int)] = []
    /// How the scored decisions met the ground truth (all zero without one).
    var truthMatches = TruthMatches()
    var firstEvent: EventTime?
    var lastEvent: EventTime?

    /// The scored day with the most decisions with a target (earliest on ties).
    var bestDay: Int? {
        guard !dayTargets.isEmpty else { return nil }
        var best = 0
        for i in dayTargets.indices where dayTargets[i] > dayTargets[best] { best = i }
        return best
    }
}

extension PolicyUserTallies {
    /// Tallies a decision into its day's and its hour's tallies.
    mutating func addDecision(targetRank: Int?, day: Int, hour: Int) {
        days[day].tally.addDecision(targetRank: targetRank)
        byHour[hour].addDecision(targetRank: targetRank)
    }

    /// Tallies a decision's counterfactual value into its day's and its hour's tallies.
    mutating func addCounterfactual(value: Double, ceiling: Double, lift: Double, day: Int, hour: Int) {
        days[day].tally.addCounterfactual(value: value, ceiling: ceiling, lift: lift)
        byHour[hour].addCounterfactual(value: value, ceiling: ceiling, lift: lift)
    }

    /// Tallies a rotation made at a decision of `day` and `hour`, and the dwell it ends (in the
    /// day's tally only: no report breaks dwells down by hour, and a second copy of every dwell
    /// would cost the evaluation of a large dataset several megabytes).
    mutating func addRotation(isFlicker: Bool, dwellMinutes: Double, day: Int, hour: Int) {
        days[day].tally.addRotation(isFlicker: isFlicker)
        days[day].tally.addDwell(minutes: dwellMinutes)
        byHour[hour].addRotation(isFlicker: isFlicker)
    }

    /// Tallies an unnecessary rotation made at a decision of `day` and `hour`.
    mutating func addUnnecessaryRotation(day: Int, hour: Int) {
        days[day].tally.addUnnecessaryRotation()
        byHour[hour].addUnnecessaryRotation()
    }

    /// Tallies the active hours of `day`: bit `h` of `hours` is set when local hour `h` had a
    /// scored decision point.
    mutating func addActiveHours(_ hours: UInt32, day: Int) {
        days[day].tally.activeHours += hours.nonzeroBitCount
        for h in 0..<24 where hours & (1 << UInt32(h)) != 0 { byHour[h].activeHours += 1 }
    }
}
