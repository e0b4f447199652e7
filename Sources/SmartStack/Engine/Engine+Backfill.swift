/// A person's app-use history from before the engine existed, recorded once at install.
extension Engine {
    /// Records `launches`, the app launches a phone's usage history holds for `user` (Android's
    /// `UsageStatsManager`, an iOS host's own log), so that the first days are not the engine's
    /// weakest: a widget whose app was launched is ranked by those launches (how often, at which
    /// hours of weekdays and weekends, after which apps) from its first decision on.
    ///
    /// Configure the stacks first, as of the history's start or as of now (a widget configured
    /// after its app's launches starts from them; one configured before learns them as they
    /// come), then backfill, then record live events. The launches are stored in time order in
    /// one transaction (all or nothing), exactly as `record` stores them, and are
    /// never used for a decision before their instant.
    ///
    /// ```swift
    /// try engine.configure(stack: "home", widgets: widgets, user: "me", at: installedAt)
    /// let history = [Event(time: t, user: "me", id: "usage-1767600000123-com.example.mail",
    ///                      payload: .appLaunch(app: "com.example.mail")), ...]
    /// let result = try engine.backfill(history, user: "me")
    /// print(result.inserted, result.duplicates)   // a second call stores nothing: all duplicates
    /// ```
    ///
    /// - Returns: how many launches were stored and how many were already stored (same user
    ///   and id: a history imported again, or overlapping an earlier import).
    /// - Throws: ``EngineError`` of kind ``EngineError/Kind/invalidHistory`` naming the first
    ///   offending event (by position and id) when an event is not an `app_launch`, is of
    ///   another user or has no id, or when a launch not stored yet is older than an event of
    ///   `user` already recorded (other than a stack configuration): the history must come
    ///   before the events recorded live, whose learning it would otherwise reorder. Nothing is
    ///   stored and no state changes then. ``StoreError`` when the log cannot be written.
    /// - Complexity: O(n log n) for n launches, plus the append's O(n log N).
    @discardableResult
    public func backfill(_ launches: [Event], user: String) throws -> AppendResult {
        for (k, event) in launches.enumerated() {
            let name = "history event \(k + 1)" + (event.id.map { " (id '\($0)')" } ?? "")
            guard event.user == user else {
                throw EngineError(.invalidHistory, "\(name) is of user '\(event.user)', not '\(user)'")
            }
            guard case .appLaunch = event.payload else {
                throw EngineError(.invalidHistory, "\(name) is a \(event.type.rawValue) event: a history holds app_launch events only")
            }
            guard let id = event.id, !id.isEmpty else {
                throw EngineError(.invalidHistory, "\(name) has no id: a history needs ids, so that importing it again stores nothing twice")
            }
        }
        // Stable: launches at the same instant keep their order.
        let ordered = launches.indices.sorted {
            let a = launches[$0].time.nanosecondsSinceEpoch, b = launches[$1].time.nanosecondsSinceEpoch
            return a != b ? a < b : $0 < $1
        }.map { launches[$0] }
        var pending: [Event]? = ordered
        return try record(batches: {
            defer { pending = nil }
            return pending
        }, check: {
            try self.checkHistoryOrder(ordered, user: user)
        })
    }

    /// Throws when a launch of `history` (in time order) that is not stored yet is older than
    /// `user`'s latest recorded event other than a stack configuration.
    private func checkHistoryOrder(_ history: [Event], user: String) throws {
        guard let latest = try store.latestEvent(user: user, excluding: [.stackConfig]) else { return }
        let stored = try store.storedIDs(user: user, among: history.compactMap(\.id))
        guard let first = history.first(where: { !stored.contains($0.id ?? "") }),
              first.time.nanosecondsSinceEpoch < latest.time.nanosecondsSinceEpoch else { return }
        throw EngineError(.invalidHistory, "history launch '\(first.id ?? "")' at \(first.time.rfc3339) is older than the "
            + "\(latest.type.rawValue) event\(latest.id.map { " '\($0)'" } ?? "") of user '\(user)' already recorded at \(latest.time.rfc3339): "
            + "a history is recorded before any live event but stack configurations (backfill at install), or its learning would be out of order")
    }
}
