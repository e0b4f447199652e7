/// Answers as the engine would have given them at a past instant.
extension Engine {
    /// How a ranking at a past instant was computed.
    public struct HistoricalRanking: Sendable, Hashable {
        /// The ranking, from the events strictly before the instant only.
        public var ranking: Ranking
        /// The sequence number of the saved state started from (`nil`: replayed from the start).
        public var snapshotSequence: Int64?
        /// How many events were replayed on top of it.
        public var replayedEvents: Int
    }

    /// The ranking of `stack` for `user` as the engine would have answered at `time`: only the
    /// user's events strictly before `time` count, learned in the order they were stored.
    ///
    /// The saved state is used as a starting point only when every event it covers is before
    /// `time`; then only later-stored events before `time` are replayed. Otherwise the user's log
    /// before `time` is replayed from the start. Loaded in-memory states are not touched.
    /// ``ranking(stack:user:at:explained:)`` answers the same, from the live state when it has
    /// seen no event at or after `time`.
    /// - Throws: ``EngineError`` for an unknown user or stack, an empty name, an unsupported
    ///   instant, or when closed; ``StoreError``.
    /// - Complexity: O(k) for the k events replayed.
    public func ranking(stack: String, user: String, before time: EventTime) throws -> HistoricalRanking {
        try checkNotClosed()
        try Self.checkName(stack, "stack")
        try Self.checkName(user, "user")
        let past = try history(user: user, before: try time.supported("at"))
        return HistoricalRanking(ranking: try past.engine.ranking(stack: stack, at: time),
                                 snapshotSequence: past.snapshotSequence, replayedEvents: past.replayed)
    }

    /// A new engine for `user` that has learned exactly the user's events strictly before
    /// `time`, in the order they were stored: from the saved state when `fromSnapshot` and every
    /// event it covers is before `time`, else from the start of the log. Loaded states are not
    /// touched. A decision needs `fromSnapshot` false: a saved state carries the rotation state
    /// and generator of live decisions, which a past decision must not see.
    /// - Throws: ``EngineError`` for an unknown user or when closed; ``StoreError``.
    /// - Complexity: O(k) for the k events replayed.
    func history(user: String, before time: EventTime, fromSnapshot: Bool = true) throws
        -> (engine: UserEngine, snapshotSequence: Int64?, replayed: Int) {
        try writer.withLock { w throws(EngineError) in try Self.checkOpen(w) }
        let known = try store.count(EventQuery(user: user)) > 0
        guard known else { throw try unknownUserError(user) }
        var engine: UserEngine?
        var through: Int64 = 0
        if fromSnapshot, let saved = try store.loadState(user: user, key: stateKey),
           saved.sequence <= (try store.nextSequenceNumber()) - 1,
           !(try store.hasEvent(user: user, through: saved.sequence, notBefore: time)) {
            do {
                engine = try UserEngine(user: user, policy: policy, rotation: rotation, seed: seed, restoring: saved.blob, prior: prior)
                through = saved.sequence
            } catch {
                notice("saved state of user '\(user)' cannot be used (\(error)); replaying the log instead")
            }
        }
        let snapshotSequence = engine == nil ? nil : through
        let replayer = try engine ?? makeUserEngine(user)
        var replayed = 0
        try store.forEachInArrivalOrder(user: user, afterSequence: through, before: time) { _, event in
            replayer.record(event)
            replayed += 1
        }
        return (replayer, snapshotSequence, replayed)
    }
}
