/// What the rotation policy shows on top of a stack at a decision point.
public struct RotationDecision: Sendable, Hashable {
    /// The widget on top after this decision (`nil` if the stack has no eligible widget).
    public var top: String?
    /// Whether the top changed at this decision.
    public var didRotate: Bool
    /// The probability with which the policy picked `top` (1 for deterministic policies).
    public var propensity: Double
    /// The scorer's ranking the decision was made from.
    public var ranking: Ranking
    /// Creates a decision.
    public init(top: String?, didRotate: Bool, propensity: Double, ranking: Ranking) {
        self.top = top; self.didRotate = didRotate; self.propensity = propensity; self.ranking = ranking
    }
}
