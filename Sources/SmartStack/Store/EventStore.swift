// CONTRACT STUB — owned by the store helper, who replaces the bodies (signatures are the contract).
import SmartStackSQLite

/// What to read from the event log. `nil` fields do not filter.
public struct EventQuery: Sendable, Hashable {
    public var user: String?
    /// Inclusive lower bound on the instant.
    public var from: EventTime?
    /// Exclusive upper bound on the instant.
    public var to: EventTime?
    public var types: Set<EventType>?
    /// Only events stored after this sequence number (for incremental catch-up).
    public var afterSequence: Int64?

    public init(user: String? = nil, from: EventTime? = nil, to: EventTime? = nil,
                types: Set<EventType>? = nil, afterSequence: Int64? = nil) {
        self.user = user; self.from = from; self.to = to; self.types = types; self.afterSequence = afterSequence
    }
}

/// The outcome of an append.
public struct AppendResult: Sendable, Hashable {
    public var inserted: Int
    public var duplicates: Int
    public init(inserted: Int, duplicates: Int) { self.inserted = inserted; self.duplicates = duplicates }
}

/// Per-type counts and bounds of the log.
public struct EventStatistics: Sendable, Hashable {
    public var events: Int
    public var users: Int
    public var byType: [EventType: Int]
    public var first: EventTime?
    public var last: EventTime?
    public init(events: Int, users: Int, byType: [EventType: Int], first: EventTime?, last: EventTime?) {
        self.events = events; self.users = users; self.byType = byType; self.first = first; self.last = last
    }
}

/// The durable event log: one SQLite file (WAL, synchronous=NORMAL, mode 0600).
public final class EventStore: Sendable {
    /// Opens or creates the log at `path` (`:memory:` for a private in-memory log).
    public init(path: String) throws { fatalError("contract stub") }
    /// Appends events in one transaction; events whose (user, id) is already stored are skipped.
    public func append(_ events: [Event]) throws -> AppendResult { fatalError("contract stub") }
    /// Calls `body` for each matching event in time order (ties in insertion order), streaming.
    public func forEach(_ query: EventQuery, _ body: (Int64, Event) throws -> Void) throws { fatalError("contract stub") }
    /// Matching events in time order.
    public func events(_ query: EventQuery) throws -> [Event] { fatalError("contract stub") }
    /// Counts, users and bounds of the whole log.
    public func statistics() throws -> EventStatistics { fatalError("contract stub") }
    /// Distinct users, sorted.
    public func users() throws -> [String] { fatalError("contract stub") }
    /// Deletes events strictly before `time` (retention); returns how many.
    public func deleteEvents(before time: EventTime) throws -> Int { fatalError("contract stub") }
    /// Erases every event and saved state of `user`; returns how many events.
    public func erase(user: String) throws -> Int { fatalError("contract stub") }
    /// The largest sequence number stored (0 when empty).
    public func lastSequence() throws -> Int64 { fatalError("contract stub") }
    /// Saves a derived-state blob for (user, key), valid through `sequence`.
    public func saveState(user: String, key: String, sequence: Int64, blob: [UInt8]) throws { fatalError("contract stub") }
    /// Loads a derived-state blob for (user, key) with the sequence it is valid through.
    public func loadState(user: String, key: String) throws -> (sequence: Int64, blob: [UInt8])? { fatalError("contract stub") }
    /// Deletes all saved derived state (for rebuild).
    public func clearState() throws { fatalError("contract stub") }
}
