/// Per-type counts and bounds of the log.
///
/// ```swift
/// let stats = try store.statistics()
/// stats.byType[.appLaunch, default: 0]
/// ```
public struct EventStatistics: Sendable, Hashable {
    /// Events stored.
    public var events: Int
    /// Distinct users with at least one event.
    public var users: Int
    /// Events per type; types without events are absent.
    public var byType: [EventType: Int]
    /// The time (with its own offset) of the earliest event, `nil` when empty.
    public var first: EventTime?
    /// The time (with its own offset) of the latest event, `nil` when empty.
    public var last: EventTime?
    /// Creates statistics.
    public init(events: Int, users: Int, byType: [EventType: Int], first: EventTime?, last: EventTime?) {
        self.events = events; self.users = users; self.byType = byType; self.first = first; self.last = last
    }
}
