/// Invalid input to an off-policy estimate, saying what and where (round, field).
///
/// ```swift
/// // round 17, field 'propensity': must be in (0, 1], got 0.0
/// ```
public struct OffPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 0-based round at fault, if the problem is in one round.
    public var round: Int?
    /// The field at fault (`propensity`, `target_distribution`, ...).
    public var field: String
    /// What is wrong.
    public var message: String

    /// Creates an error for `field` of `round` (or of the whole input when `round` is nil).
    public init(round: Int? = nil, field: String, message: String) {
        self.round = round
        self.field = field
        self.message = message
    }

    /// `round N, field 'f': message`.
    public var description: String {
        if let round { return "round \(round), field '\(field)': \(message)" }
        return "field '\(field)': \(message)"
    }
}
