/// What to read from the event log. `nil` fields do not filter.
///
/// ```swift
/// let morning = EventQuery(user: "u00", from: try EventTime(rfc3339: "2013-03-27T06:00:00-04:00"),
///                          to: try EventTime(rfc3339: "2013-03-27T12:00:00-04:00"), types: [.appLaunch])
/// let launches = try store.events(morning)
/// ```
public struct EventQuery: Sendable, Hashable {
    /// Only this user's events.
    public var user: String?
    /// Inclusive lower bound on the instant.
    public var from: EventTime?
    /// Exclusive upper bound on the instant.
    public var to: EventTime?
    /// Only events of these types (an empty set matches nothing).
    public var types: Set<EventType>?
    /// Only events stored after this sequence number (for incremental catch-up).
    public var afterSequence: Int64?

    /// Creates a query; every argument left `nil` matches everything.
    public init(user: String? = nil, from: EventTime? = nil, to: EventTime? = nil,
                types: Set<EventType>? = nil, afterSequence: Int64? = nil) {
        self.user = user; self.from = from; self.to = to; self.types = types; self.afterSequence = afterSequence
    }
}
