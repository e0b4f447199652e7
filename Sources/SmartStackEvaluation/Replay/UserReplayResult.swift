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

/// Tallies per local hour of day.
struct HourTally: Sendable, Hashable {
    var decisions = 0, withTarget = 0, hits1 = 0, hits3 = 0, rotations = 0
    var rrSum = 0.0, ndcgSum = 0.0

    mutating func merge(_ o: HourTally) {
        decisions += o.decisions; withTarget += o.withTarget; hits1 += o.hits1; hits3 += o.hits3
        rotations += o.rotations; rrSum += o.rrSum; ndcgSum += o.ndcgSum
    }
}

/// One logged impression with a propensity, stored compactly (16 bytes) until the off-policy
/// estimators take it as a `LoggedRound`; each policy's action at it is kept apart (2 bytes).
struct LoggedImpression: Sendable, Hashable {
    /// Probability with which the logging policy showed the logged widget.
    var propensity: Double
    /// Number of candidate actions (the stack's widgets at that moment).
    var actionCount: Int16
    /// Index of the logged widget among the candidates.
    var loggedAction: Int16
    /// The stack's slot in the user's `stacks` (for the reward model's context).
    var stack: Int16
    /// The local hour of the impression (for the reward model's context).
    var hour: UInt8
    /// Whether the logged widget was engaged within the attribution window.
    var isEngaged: Bool
}

/// One policy's tallies for one user.
struct PolicyUserTallies: Sendable {
    var days: [DaySummary] = []
    var byHour = [HourTally](repeating: HourTally(), count: 24)
    var topChanges: [TopChange] = []
    /// Per logged impression of the user (`UserReplayResult.impressions`), the index of this
    /// policy's top among its candidates, or -1 when it had none there.
    var impressionActions: [Int16] = []
}

/// One user's logged impressions and one policy's actions at them, with the names their stack
/// slots stand for.
struct UserImpressions: Sendable {
    var stacks: [String]
    var impressions: [LoggedImpression]
    var actions: [Int16]
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
