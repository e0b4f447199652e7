/// The ordered widgets of a stack for a user at an instant, top first.
///
/// Order: a pinned widget first, then eligible widgets by score (ties in the configured order),
/// then ineligible widgets in the configured order.
public struct Ranking: Sendable, Hashable {
    /// The stack ranked.
    public var stack: String
    /// Whose stack.
    public var user: String
    /// The instant of the ranking (only events recorded before it count).
    public var at: EventTime
    /// The policy that scored it, as written in a `PolicySpec`.
    public var policy: String
    /// The widgets, top first.
    public var widgets: [RankedWidget]
    /// Creates a ranking.
    public init(stack: String, user: String, at: EventTime, policy: String, widgets: [RankedWidget]) {
        self.stack = stack; self.user = user; self.at = at; self.policy = policy; self.widgets = widgets
    }
}
