/// One human-readable reason for a widget's score, with its contribution to the score.
///
/// ```swift
/// Reason(text: "after com.android.mail", contribution: 0.8)
/// ```
public struct Reason: Sendable, Hashable {
    /// A short phrase in the person's local time, e.g. `at home` or `relevance hint 0.9 until 18:00`.
    public var text: String
    /// How much this reason added to (positive) or removed from (negative) the score.
    public var contribution: Double
    /// Creates a reason.
    public init(text: String, contribution: Double) { self.text = text; self.contribution = contribution }
}
