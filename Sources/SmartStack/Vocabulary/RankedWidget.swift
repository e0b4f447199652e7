/// One widget of a ranking: its score, whether it may be shown, and why.
public struct RankedWidget: Sendable, Hashable {
    /// The widget's id.
    public var widget: String
    /// The scorer's score; higher is better, comparable only within one ranking.
    public var score: Double
    /// Whether the widget may be on top now (`false` when its current relevance hint is `<= 0`).
    public var isEligible: Bool
    /// The main reasons for the score, largest contribution first.
    public var reasons: [Reason]
    /// Creates a ranked widget.
    public init(widget: String, score: Double, isEligible: Bool, reasons: [Reason]) {
        self.widget = widget; self.score = score; self.isEligible = isEligible; self.reasons = reasons
    }
}
