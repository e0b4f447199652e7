import SmartStackSQLite

/// What ``EventStore/erase(app:)`` removed.
public struct AppErasure: Sendable, Hashable {
    /// Events deleted: launches of the app and every event naming one of its widgets.
    public var deletedEvents: Int
    /// `stack_config` events rewritten without the app's widgets.
    public var rewrittenStackConfigs: Int
    /// Users who had used the app (their saved engine state was cleared), sorted.
    public var affectedUsers: [String]

    /// Creates a summary.
    public init(deletedEvents: Int, rewrittenStackConfigs: Int, affectedUsers: [String]) {
        self.deletedEvents = deletedEvents
        self.rewrittenStackConfigs = rewrittenStackConfigs
        self.affectedUsers = affectedUsers
    }
}

extension EventStore {
    /// One day in nanoseconds: retention counts days of 24 hours.
    private static let dayNanoseconds: Int64 = 86_400 * 1_000_000_000

    /// Retention: deletes the events more than `days` days (of 24 hours) older than the newest
    /// event in the log, and the saved state derived from them (see
    /// ``deleteEvents(before:)``); returns how many events were deleted.
    ///
    /// The window is relative to the newest event, not to the wall clock (the store never reads
    /// it), so a log replayed from 2013 keeps its last `days` days. `days` 0 keeps only the
    /// events at the newest instant.
    ///
    /// ```swift
    /// try store.deleteEvents(olderThanDays: 30)   // keep the last 30 days of the log
    /// ```
    /// - Throws: ``StoreError``; a negative `days` throws kind `misuse`.
    /// - Complexity: O(k log N) for k deleted events, plus O(N) to find the newest event.
    @discardableResult
    public func deleteEvents(olderThanDays days: Int) throws -> Int {
        guard days >= 0 else {
            throw StoreError(kind: .misuse, path: path, message: "retention of \(days) days: the number of days must be 0 or more")
        }
        guard let newest = try newestInstant() else { return 0 }
        let (span, overflow) = Int64(clamping: days).multipliedReportingOverflow(by: Self.dayNanoseconds)
        let (bound, underflow) = newest.subtractingReportingOverflow(span)
        if overflow || underflow { return 0 }
        return try deleteEvents(before: EventTime(nanosecondsSinceEpoch: bound, utcOffsetSeconds: 0))
    }

    /// The instant of the newest event, `nil` when the log is empty.
    private func newestInstant() throws -> Int64? {
        do {
            return try connection.withDatabase { db in
                try db.scalar("SELECT max(time_ns) FROM events")?.integerValue
            }
        } catch {
            throw StoreError.wrapping(error, path: path, busyTimeout: options.busyTimeout)
        }
    }

    /// Erases every trace of using `app`, for every user, in one transaction:
    ///
    /// - its `app_launch` events;
    /// - its widgets, from every `stack_config` (the configuration is rewritten without them, so
    ///   the person's other widgets stay configured);
    /// - every event naming one of those widgets for that user: impressions, taps, swipes from
    ///   or to it, pins, unpins, relevance hints;
    /// - the saved engine state of every affected user (it was derived from those events);
    ///   users left without events are forgotten.
    ///
    /// A widget belongs to `app` when some `stack_config` of that user lists it with that `app`
    /// (JSONL `{"id": ..., "app": ...}`); widgets configured without an app cannot be linked
    /// to one and are kept. Deleted content is overwritten (`secure_delete`) and the write-ahead
    /// log is checkpointed.
    ///
    /// ```swift
    /// let erased = try store.erase(app: "com.example.diary")
    /// print(erased.deletedEvents, erased.affectedUsers)
    /// ```
    /// - Throws: ``StoreError``; nothing is changed when it throws.
    /// - Complexity: O(N) to scan the stack configurations and launches, plus O(k log N) for k
    ///   deleted events.
    @discardableResult
    public func erase(app: String) throws -> AppErasure {
        let path = self.path
        let erasure: AppErasure
        do {
            erasure = try connection.transaction { db in
                try db.execute(StoreSchema.recordDeletedThrough)
                var affectedKeys: Set<Int64> = []
                // 1. Stack configurations listing the app's widgets: collect, then rewrite.
                var widgetsByUser: [Int64: Set<String>] = [:]
                var rewrites: [(sequence: Int64, widgets: [UInt8])] = []
                let configs = try db.makeStatement(
                    "SELECT seq, user_key, widgets FROM events WHERE type = ?1 AND widgets IS NOT NULL")
                try configs.bind(Int64(EventType.stackConfig.code), at: 1)
                while try configs.step() {
                    let bytes = configs.blob(at: 2)
                    guard let widgets = bytes.withUnsafeBytes({ EventColumns.decodeWidgets($0) }) else {
                        throw StoreError(kind: .corrupt, path: path, message:
                            "event \(configs.int64(at: 0)) has a damaged widget list")
                    }
                    let owned = widgets.filter { $0.app == app }
                    guard !owned.isEmpty else { continue }
                    let user = configs.int64(at: 1)
                    widgetsByUser[user, default: []].formUnion(owned.map(\.id))
                    affectedKeys.insert(user)
                    rewrites.append((configs.int64(at: 0),
                                     EventColumns.encodeWidgets(widgets.filter { $0.app != app })))
                }
                for rewrite in rewrites {
                    try db.execute("UPDATE events SET widgets = ?1 WHERE seq = ?2",
                                   [.blob(rewrite.widgets), .integer(rewrite.sequence)])
                }
                // 2. Launches of the app.
                let launch = SQLiteValue.integer(Int64(EventType.appLaunch.code))
                for row in try db.rows("SELECT DISTINCT user_key FROM events WHERE type = ?1 AND s1 = ?2",
                                       [launch, .text(app)]) {
                    if let key = row.first?.integerValue { affectedKeys.insert(key) }
                }
                try db.execute("DELETE FROM events WHERE type = ?1 AND s1 = ?2", [launch, .text(app)])
                var deleted = db.changes
                // 3. Every event naming one of the app's widgets, per user.
                let widgetEvents = """
                    DELETE FROM events WHERE user_key = ?1 AND (
                        (type IN (\(EventType.widgetImpression.code), \(EventType.widgetPin.code), \(EventType.widgetUnpin.code)) AND s2 = ?2)
                        OR (type IN (\(EventType.widgetTap.code), \(EventType.relevance.code)) AND s1 = ?2)
                        OR (type = \(EventType.widgetSwipe.code) AND (s2 = ?2 OR s3 = ?2)))
                    """
                for (user, widgets) in widgetsByUser {
                    for widget in widgets.sorted() {
                        try db.execute(widgetEvents, [.integer(user), .text(widget)])
                        deleted += db.changes
                    }
                }
                // 4. Derived state of everyone affected; users left without events.
                var names: [String] = []
                for key in affectedKeys {
                    if let name = try db.scalar("SELECT name FROM users WHERE user_key = ?1", [.integer(key)])?.textValue {
                        names.append(name)
                        try db.execute("DELETE FROM engine_state WHERE user = ?1", [.text(name)])
                    }
                }
                try db.execute("""
                    DELETE FROM users WHERE NOT EXISTS (SELECT 1 FROM events WHERE events.user_key = users.user_key)
                    """)
                return AppErasure(deletedEvents: deleted, rewrittenStackConfigs: rewrites.count,
                                  affectedUsers: names.sorted())
            }
        } catch {
            throw StoreError.wrapping(error, path: path, busyTimeout: options.busyTimeout)
        }
        checkpointAfterErasure()
        return erasure
    }

    /// Copies the write-ahead log into the database file and truncates it, so erased content
    /// does not linger there. Best effort: skipped while another connection reads.
    func checkpointAfterErasure() {
        _ = try? connection.withDatabase { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
