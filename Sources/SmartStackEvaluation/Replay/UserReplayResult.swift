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

/// One logged impression with a propensity, as seen next to one evaluated policy: the arrays
/// the off-policy estimators take.
public struct LoggedImpression: Sendable, Hashable {
    /// Number of candidate actions (the stack's widgets at that moment).
    public var actionCount: Int
    /// Index of the logged widget among the candidates.
    public var loggedAction: Int
    /// Probability with which the logging policy showed it.
    public var propensity: Double
    /// 1 if the logged widget was engaged within the attribution window, else 0.
    public var reward: Double
    /// Index of the evaluated policy's top among the candidates (`nil` if it is not one of them):
    /// its action distribution is one-hot on it.
    public var policyAction: Int?
    /// A context key for reward models: `stack|hour` in the user's local time.
    public var context: String

    /// Creates a record.
    public init(actionCount: Int, loggedAction: Int, propensity: Double, reward: Double, policyAction: Int?, context: String) {
        self.actionCount = actionCount; self.loggedAction = loggedAction; self.propensity = propensity
        self.reward = reward; self.policyAction = policyAction; self.context = context
    }
}

/// One policy's tallies for one user.
struct PolicyUserTallies: Sendable {
    var days: [DaySummary] = []
    var byHour = [HourTally](repeating: HourTally(), count: 24)
    var topChanges: [TopChange] = []
    var impressions: [LoggedImpression] = []
}

/// Everything the replay of one user produced.
struct UserReplayResult: Sendable {
    var user: String
    var events = 0
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
