/// How `Engine` keeps each user's state: loaded on first use from the saved snapshot and the
/// events stored after it, updated under the user's own lock, saved as snapshots.
extension Engine {
    /// The loaded users' slots (for tests).
    var slotsForTesting: [String: UserSlot] { slots.withLock { $0 } }

    struct WriterState {
        var expectedNext: Int64
        var isClosed = false
    }

    static func checkOpen(_ w: borrowing WriterState) throws(EngineError) {
        if w.isClosed { throw closedError }
    }

    /// What every call after ``close()`` throws.
    static let closedError = EngineError(.closed, "the engine is closed")

    /// Drops `user`'s loaded state without saving it (after a deletion made it stale).
    func dropSlot(of user: String) {
        if let slot = slots.withLock({ $0.removeValue(forKey: user) }) {
            slot.state.withLock { $0.engine = nil }
        }
    }

    /// Drops every loaded state without saving it (after a deletion made it stale).
    func dropAllSlots() {
        for slot in slots.withLock({ d in defer { d.removeAll() }; return Array(d.values) }) {
            slot.state.withLock { $0.engine = nil }
        }
    }

    /// Runs `body` on `user`'s loaded engine under the user's lock.
    func withUserEngine<T: Sendable>(_ user: String, changesState: Bool,
                                     _ body: (UserEngine) throws -> T) throws -> T {
        guard let value = try withLiveUserEngine(user, at: nil, changesState: changesState, body) else {
            preconditionFailure("an answer without an instant is always live")
        }
        return value
    }

    /// Runs `body` on `user`'s loaded engine under the user's lock when that engine can answer
    /// at `time`: it has learned no event at or after `time` (`time` nil: always). Returns `nil`
    /// otherwise, without running `body` or changing anything: the answer at `time` must then
    /// come from the log (``history(user:before:fromSnapshot:)``).
    func withLiveUserEngine<T: Sendable>(_ user: String, at time: EventTime?, changesState: Bool,
                                         _ body: (UserEngine) throws -> T) throws -> T? {
        while true {
            let slot: UserSlot
            if let loaded = slots.withLock({ $0[user] }) {
                slot = loaded
            } else {
                slot = try writer.withLock { w throws -> UserSlot in
                    try Self.checkOpen(w)
                    return try loadSlot(user, writer: &w)
                }
            }
            let outcome = try slot.state.withLock { s throws -> Outcome<T> in
                guard !s.isClosed else { throw Self.closedError }
                guard let engine = s.engine else { return .retry }
                if s.appliedThrough == 0 { return .unknownUser }
                if let time, s.newest >= time.nanosecondsSinceEpoch { return .past }
                if changesState { s.isDirty = true; s.generation += 1 }
                return .done(try body(engine))
            }
            switch outcome {
            case .done(let value): return value
            case .retry: continue
            case .unknownUser: throw try unknownUserError(user)
            case .past: return nil
            }
        }
    }

    enum Outcome<T: Sendable>: Sendable { case done(T), retry, unknownUser, past }

    /// "unknown user 'x' (known: a, b, ...)", listing at most 10 users.
    func unknownUserError(_ user: String) throws -> EngineError {
        let known = try store.users()
        let shown = known.prefix(10).joined(separator: ", ")
        let more = known.count > 10 ? " and \(known.count - 10) more" : ""
        return EngineError(.unknownUser, "unknown user '\(user)': no events recorded for them (known: \(known.isEmpty ? "none" : shown + more))")
    }

    /// `user`'s slot, loading it (saved state, then the events stored after it). Call only
    /// while holding the writer lock, so no append runs meanwhile.
    func loadSlot(_ user: String, writer w: inout WriterState) throws -> UserSlot {
        if let loaded = slots.withLock({ $0[user] }) { return loaded }
        let last = try store.nextSequenceNumber() - 1
        var restored: UserEngine?
        var through: Int64 = 0
        var rebuilt = false
        if let saved = try store.loadState(user: user, key: stateKey) {
            if saved.sequence > last {
                notice("saved state of user '\(user)' is valid through event \(saved.sequence) but the log ends at event \(last); rebuilding it from the log")
                rebuilt = true
            } else {
                do {
                    restored = try UserEngine(user: user, policy: policy, rotation: rotation, seed: seed, restoring: saved.blob, prior: prior)
                    through = saved.sequence
                } catch {
                    notice("saved state of user '\(user)' cannot be used (\(error)); rebuilding it from the log")
                    rebuilt = true
                }
            }
        }
        let engine = try restored ?? makeUserEngine(user)
        var replayed = 0
        try store.forEachInArrivalOrder(user: user, afterSequence: through) { sequence, event in
            engine.record(event)
            through = sequence
            replayed += 1
        }
        // Every stored event of the user is now learned, those of the saved state included.
        let newest = try store.newestInstant(user: user) ?? .min
        var repaired = false
        if rebuilt {
            // Replace the unusable snapshot at once, so the notice is given once (best effort:
            // a read-only database keeps it and the state is saved at the next flush or close).
            do {
                if through > 0 {
                    try store.saveState(user: user, key: stateKey, sequence: through, blob: engine.snapshot())
                } else {
                    try store.clearState(user: user)
                }
                repaired = true
            } catch {
                notice("could not save the rebuilt state of user '\(user)' (\(error))")
            }
        }
        let slot = UserSlot(UserSlotState(engine: engine, appliedThrough: through, unsaved: repaired ? 0 : replayed,
                                          isDirty: !repaired && (replayed > 0 || rebuilt), newest: newest))
        w.expectedNext = max(w.expectedNext, last + 1)
        slots.withLock { $0[user] = slot }
        return slot
    }

    /// Replays into `slot` the events of its user stored after its state; returns a save
    /// request when anything changed.
    @discardableResult
    func catchUp(_ slot: UserSlot) throws -> SaveRequest? {
        try slot.state.withLock { s throws -> SaveRequest? in
            guard let engine = s.engine else { return nil }
            var through = s.appliedThrough
            var replayed = 0
            var newest = s.newest
            try store.forEachInArrivalOrder(user: engine.user, afterSequence: through) { sequence, event in
                engine.record(event)
                through = sequence
                replayed += 1
                newest = max(newest, event.time.nanosecondsSinceEpoch)
            }
            s.appliedThrough = through
            s.newest = newest
            s.unsaved += replayed
            if replayed > 0 { s.isDirty = true }
            return replayed > 0 ? s.saveRequest() : nil
        }
    }

    /// A periodic save inside `record`: the events are already stored and learned, so a failure
    /// (e.g. a full disk) must not fail the call; it becomes a notice and the state stays
    /// unsaved, to be saved at the next interval, `flush()` or `close()`.
    func persistPeriodically(_ save: SaveRequest, user: String, slot: UserSlot) {
        do { try persist(save, user: user, slot: slot) } catch {
            notice("could not save the state of user '\(user)' (\(error)); it stays in memory and is saved later")
        }
    }

    /// Writes a snapshot and marks the slot saved unless it changed meanwhile.
    func persist(_ save: SaveRequest, user: String, slot: UserSlot) throws {
        try store.saveState(user: user, key: stateKey, sequence: save.sequence, blob: save.blob)
        slot.state.withLock { s in
            if s.appliedThrough == save.sequence && s.generation == save.generation {
                s.unsaved = 0
                s.isDirty = false
            }
        }
    }
}

/// A snapshot to write: the bytes, the sequence they are valid through, and the slot
/// generation they were taken at.
struct SaveRequest: Sendable {
    var blob: [UInt8]
    var sequence: Int64
    var generation: Int
    var unsaved: Int
}

/// One user's loaded state behind its own lock.
final class UserSlot: Sendable {
    let state: EngineLock<UserSlotState>
    init(_ state: consuming sending UserSlotState) { self.state = EngineLock(state) }
}

/// What a `UserSlot` guards: the user's engine (`nil` once dropped) and its bookkeeping.
struct UserSlotState {
    var engine: UserEngine?
    /// The largest sequence number applied (0: none).
    var appliedThrough: Int64
    /// Events applied since the last save.
    var unsaved: Int
    /// Whether anything changed since the last save (events or rotation decisions).
    var isDirty: Bool
    /// The latest instant (nanoseconds since 1970) of an event the engine learned (`Int64.min`:
    /// none). An answer at an instant not after it cannot come from this state.
    var newest: Int64
    /// Bumped by each rotation decision, so a decision made while a snapshot is being written
    /// is not marked saved by that older write.
    var generation = 0
    /// Set by `Engine.close()` as it takes the user's last snapshot: later calls fail as closed.
    var isClosed = false

    func saveRequest() -> SaveRequest? {
        guard let engine else { return nil }
        return SaveRequest(blob: engine.snapshot(), sequence: appliedThrough, generation: generation, unsaved: unsaved)
    }
}
