/// The single place where the evaluator calls the off-policy estimators of
/// `Sources/SmartStackEvaluation/OffPolicy/` on the logged impressions paired with one policy.
enum OffPolicyIntegration {
    /// Off-policy estimates for one policy, or `nil` when the data logged no impression with a
    /// propensity.
    ///
    /// - Complexity: O(impressions).
    static func report(impressions: [LoggedImpression]) -> OffPolicyReport? {
        guard !impressions.isEmpty else { return nil }
        let rate = impressions.reduce(0.0) { $0 + $1.reward } / Double(impressions.count)
        return OffPolicyReport(impressions: impressions.count, loggedRate: rate, estimates: [],
                               note: "off-policy estimators not available in this build")
    }
}
