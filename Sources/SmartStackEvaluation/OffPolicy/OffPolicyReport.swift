/// Off-policy estimates of a policy's engagement rate from the logged `widget_impression`
/// events with a propensity (see `OffPolicyEvaluation` for the estimators).
public struct OffPolicyReport: Sendable, Hashable, Codable {
    /// Logged impressions with a propensity that were used: after the warm-up, in a configured
    /// stack, with the logged widget among its widgets and the policy showing a top for it
    /// (a seeded sample when there are more than the evaluation's limit; see `note`).
    public var impressions: Int
    /// The engagement rate observed in the log (share of those impressions whose widget was
    /// engaged within the attribution window).
    public var loggedRate: Double?
    /// The estimators' figures, intervals and weight diagnostics (`null` when they could not be
    /// computed; `note` says why).
    public var estimates: OffPolicyResult?
    /// A remark on the estimates: why there are none, or that a sample was used.
    public var note: String?

    /// Creates an entry.
    public init(impressions: Int, loggedRate: Double?, estimates: OffPolicyResult?, note: String?) {
        self.impressions = impressions; self.loggedRate = loggedRate; self.estimates = estimates; self.note = note
    }

    enum CodingKeys: String, CodingKey {
        case impressions, estimates, note
        case loggedRate = "logged_rate"
    }

    /// Encodes every key, missing values as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(impressions, forKey: .impressions)
        try c.encode(loggedRate, forKey: .loggedRate)
        try c.encode(estimates, forKey: .estimates)
        try c.encode(note, forKey: .note)
    }
}
