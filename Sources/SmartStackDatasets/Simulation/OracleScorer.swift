import SmartStack

/// The oracle: scores each widget by its true engagement probability at the decision point,
/// read from a simulated dataset's ground truth. No policy can predict the logged target
/// better, so its figures are the ceiling on simulated sets.
///
/// Host it in an engine like any outside scorer:
///
/// ```swift
/// let truth = try GroundTruth.load(path: "Datasets/commuter.truth.jsonl")
/// let engine = UserEngine(user: "commuter-00", scorer: OracleScorer(truth: truth, user: "commuter-00"),
///                         name: "oracle")
/// ```
///
/// Lookups are by exact instant: the oracle knows the answer only at the `screen_on` times the
/// truth was written for. At any other time it scores every widget 0 (so the stack's own order
/// decides), counts the miss in ``missingLookups`` and keeps the first miss's error in
/// ``firstMissingLookup``; ``probabilities(stack:widgets:at:)`` throws it instead.
/// Single-threaded, like the engine hosting it.
public final class OracleScorer: WidgetScorer {
    /// The ground truth read.
    public let truth: GroundTruth
    /// The user scored.
    public let user: String
    /// How many times `scores` was asked about a point without ground truth.
    public private(set) var missingLookups = 0
    /// The error of the first such lookup.
    public private(set) var firstMissingLookup: GroundTruthError?

    /// An oracle for `user` reading `truth`.
    public init(truth: GroundTruth, user: String) {
        self.truth = truth
        self.user = user
    }

    /// The oracle learns nothing from events: it already knows.
    public func observe(_ event: Event) {}

    /// Each widget's true engagement probability at `time` (0 when the truth has none).
    ///
    /// - Complexity: O(log n + widgets²) with n the user's decision points.
    public func scores(stack: String, widgets: [WidgetConfig], at time: EventTime) -> [Double] {
        do {
            return try probabilities(stack: stack, widgets: widgets, at: time)
        } catch {
            missingLookups += 1
            if firstMissingLookup == nil { firstMissingLookup = error }
            return [Double](repeating: 0, count: widgets.count)
        }
    }

    /// Each widget's true engagement probability at exactly `time`.
    ///
    /// - Throws: ``GroundTruthError`` when the truth has no entry for this user, stack and instant.
    /// - Complexity: O(log n + widgets²).
    public func probabilities(stack: String, widgets: [WidgetConfig], at time: EventTime) throws(GroundTruthError) -> [Double] {
        let entry = try truth.entry(user: user, stack: stack, at: time)
        return widgets.map { entry.probability(of: $0.id) }
    }
}
