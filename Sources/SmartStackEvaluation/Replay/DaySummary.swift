/// One policy's scored decisions over one user-day: the unit the bootstrap resamples.
///
/// A decision belongs to the local day (in its own UTC offset) of its decision point; a dwell
/// to the day of the rotation that ends it; a rotation's necessity to the day of the rotation.
public struct DaySummary: Sendable, Hashable, Codable {
    /// The day's sums and counts.
    public var tally = DecisionTally()
    /// The user-local (stack, widget) keys on top at scored decisions this day, distinct and
    /// sorted (coverage counts them per user, so they are kept apart from the tally's sums).
    public var topKeys: [Int32] = []

    /// An empty day.
    public init() {}
}
