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
    /// For a policy that explores, the probability with which each widget would have ended on
    /// top at this decision (the logging distribution an off-policy estimator reads); empty for
    /// a deterministic decision, whose top had probability 1.
    public var topProbabilities: [String: Double]
    /// Creates a decision.
    public init(top: String?, didRotate: Bool, propensity: Double, ranking: Ranking, topProbabilities: [String: Double] = [:]) {
        self.top = top; self.didRotate = didRotate; self.propensity = propensity; self.ranking = ranking
        self.topProbabilities = topProbabilities
    }
}
