/// One logged impression with a propensity, stored compactly (24 bytes) until the off-policy
/// estimators take it; each policy's action at it is kept apart (2 bytes).
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
    /// The impression's local day number (days since 1970-01-01 in its UTC offset): with the
    /// user, the unit the off-policy bootstrap resamples.
    var day: Int32
    /// Whether the logged widget was engaged within the attribution window.
    var isEngaged: Bool
}
