import Synchronization

/// The host-facing relevance engine: a durable event log plus each user's learned state, safe
/// to use from many threads and tasks at once.
///
/// ```swift
/// let engine = try Engine(path: "smartstack.sqlite", policy: PolicySpec(parsing: "contextual"))
/// try engine.configure(stack: "home", widgets: [WidgetConfig(id: "weather", app: "com.weather"),
///                                               WidgetConfig(id: "mail", app: "com.mail")],
///                      user: "u00", at: now)
/// try engine.record(Event(time: now, user: "u00", payload: .appLaunch(app: "com.mail")))
/// let ranking = try engine.ranking(stack: "home", user: "u00", at: now)
/// for widget in ranking.widgets { print(widget.widget, widget.score, widget.reasons.first?.text ?? "") }
/// try engine.close()
/// ```
///
/// ## Recording
/// `record` appends to the log (one transaction per call; events whose `(user, id)` is already
/// stored are skipped, exactly as ``EventStore/append(_:)``) and then updates each user's
/// in-memory ``UserEngine`` with exactly the events stored, in the order stored (their sequence
/// order). A user's state therefore always equals a replay of that user's log in sequence
/// order. Late events (older than the newest seen) are accepted; see ``UserEngine`` for how the
/// model counts them.
///
/// ## Instants
/// An answer at `t` (``ranking(stack:user:at:explained:)``, ``decide(stack:user:at:explained:)``)
/// reflects exactly the user's events with a time strictly before `t`, as `smartstack rank --at`
/// and the evaluator's replay answer (`docs/contract.md`). When the user's loaded state has
/// learned an event at or after `t` (a past instant, or an event recorded at `t` before asking
/// at `t`), the answer comes from a state rebuilt from the log before `t` (``ranking(stack:user:before:)``:
/// the saved state when it covers only earlier events, plus the events after it), which costs
/// O(events replayed) and leaves the live state, rotation included, untouched. Decide first,
/// then record what happened at that instant, as the replay does, and every answer is live.
/// Instants and offsets outside what the event format can write are refused (``EngineError``
/// of kind ``EngineError/Kind/invalidArgument``), as are events the format would refuse
/// (kind ``EngineError/Kind/invalidEvent``).
///
/// ## State
/// Each user's state is saved in the database (table `engine_state`) under a key naming the
/// policy, rotation parameters and seed, together with the sequence number it is valid
/// through. It is saved by ``flush()`` and ``close()``, and automatically after every
/// ``saveInterval`` events recorded for a user (default 10,000: about 1 ms of encoding per
/// 10,000 events). A restarted engine loads a user's snapshot on first use and replays only the
/// events stored after it, so it answers immediately. A snapshot that does not match the log
/// (valid through a sequence number the log never reached, or unreadable bytes) is discarded
/// and the user's state is rebuilt from the log, with a notice (``notices`` and `onNotice`).
/// Rotation state (what is on top, dwell, swipe holds) comes from ``decide(stack:user:at:explained:)``
/// calls, not from events: it is saved with the snapshot but a rebuild starts it afresh.
///
/// ## Concurrency
/// Rankings and decisions lock only their user's state, so different users are served in
/// parallel. Recording is serialized (the log takes one writer at a time) and locks each user
/// only while applying that user's events. Events appended to the same database by another
/// process are noticed at this engine's next `record` and replayed into the loaded users.
public final class Engine: Sendable {
    /// The event log.
    public let store: EventStore
    /// The policy every user's state runs.
    public let policy: PolicySpec
    /// The rotation parameters of ``decide(stack:user:at:explained:)``.
    public let rotation: RotationParameters
    /// The seed of every user's generator (mixed with the user's name).
    public let seed: UInt64
    /// A user's state is saved after this many events recorded for the user since the last save.
    public let saveInterval: Int
    /// The population prior every user's policy smooths toward until their own evidence takes
    /// over (``PopulationPrior``), if the host handed one in.
    public let prior: PopulationPrior?
    /// The key under which user states are saved: the policy, rotation parameters and seed.
    package let stateKey: String

    // The writer lock serializes appends and loads; each user's slot has its own lock
    // (`Engine+Slots.swift`).
    let writer: EngineLock<WriterState>
    let slots = EngineLock<[String: UserSlot]>([:])
    /// Set once ``close()`` succeeds: every call checks it first, before its arguments.
    private let isClosed = Atomic<Bool>(false)
    private let noticeLog = EngineLock<[String]>([])
    private let noticeHandler: (@Sendable (String) -> Void)?

    /// Opens (or creates) the database at `path` (`:memory:` for a private in-memory log).
    ///
    /// - Parameters:
    ///   - policy: the policy learned and ranked with (default ``PolicyRegistry/defaultPolicy``).
    ///   - rotation: the rotation parameters of ``decide(stack:user:at:explained:)``.
    ///   - seed: the seed of every user's generator.
    ///   - saveInterval: events per user between automatic saves of the user's state (>= 1).
    ///   - storeOptions: how to open the log.
    ///   - prior: a population prior learnt from many people (``PopulationPrior``; none by default):
    ///     `contextual` and `bandit` start each person from it, and their own evidence takes over
    ///     after a handful of engagements (the policy's `population` sets its weight).
    ///   - onNotice: called with each notice (e.g. a saved state rebuilt from the log).
    /// - Throws: ``EngineError`` for an invalid policy; ``StoreError`` when the log cannot be opened.
    public convenience init(path: String, policy: PolicySpec = PolicySpec(name: PolicyRegistry.defaultPolicy),
                            rotation: RotationParameters = RotationParameters(), seed: UInt64 = 0,
                            saveInterval: Int = 10_000, storeOptions: EventStore.Options = EventStore.Options(),
                            prior: PopulationPrior? = nil, onNotice: (@Sendable (String) -> Void)? = nil) throws {
        _ = try ResolvedPolicy(policy)
        try self.init(store: EventStore(path: path, options: storeOptions), policy: policy, rotation: rotation,
                      seed: seed, saveInterval: saveInterval, prior: prior, onNotice: onNotice)
    }

    /// An engine over an already open log. Parameters as in ``init(path:policy:rotation:seed:saveInterval:storeOptions:prior:onNotice:)``.
    /// - Throws: ``EngineError`` for an invalid policy; ``StoreError`` when the log cannot be read.
    public init(store: EventStore, policy: PolicySpec = PolicySpec(name: PolicyRegistry.defaultPolicy),
                rotation: RotationParameters = RotationParameters(), seed: UInt64 = 0,
                saveInterval: Int = 10_000, prior: PopulationPrior? = nil, onNotice: (@Sendable (String) -> Void)? = nil) throws {
        _ = try ResolvedPolicy(policy)
        self.store = store
        self.policy = policy
        self.rotation = rotation
        self.seed = seed
        self.saveInterval = max(1, saveInterval)
        self.prior = prior
        self.stateKey = Self.stateKey(policy: policy, rotation: rotation, seed: seed, prior: prior)
        self.noticeHandler = onNotice
        writer = EngineLock(WriterState(expectedNext: try store.nextSequenceNumber()))
    }

    /// Saves what is unsaved on a best-effort basis (call ``close()`` to see errors).
    deinit {
        if !writer.withLock({ $0.isClosed }) { try? flush() }
    }

    /// The key a state is saved under for these settings, e.g.
    /// `mru|rotation:margin=0.1,dwell=300.0,cap=48,hold=3600.0|seed=0`. The policy is written with
    /// every parameter resolved, so each way of writing the same policy finds the same state. A
    /// population prior adds `|prior=<digest>`: a state learnt with one prior is not restored with
    /// another (its learned weights would differ from a replay).
    package static func stateKey(policy: PolicySpec, rotation: RotationParameters, seed: UInt64, prior: PopulationPrior? = nil) -> String {
        let policy = (try? ResolvedPolicy(policy))?.canonicalDescription ?? policy.description
        return "\(policy)|rotation:margin=\(rotation.hysteresisMargin),dwell=\(rotation.minimumDwell),"
            + "cap=\(rotation.maximumRotationsPerDay),hold=\(rotation.swipeHold)|seed=\(seed)"
            + (prior.map { "|prior=" + $0.digest } ?? "")
    }

    /// Notices so far, oldest first: states rebuilt from the log and why.
    public var notices: [String] { noticeLog.withLock { $0 } }

    // MARK: Recording

    /// Records one event: appends it to the log and updates its user's state.
    /// - Returns: whether it was stored (`false`: its `(user, id)` was already stored).
    /// - Throws: ``StoreError`` (nothing stored, state unchanged) or ``EngineError`` when closed.
    @discardableResult
    public func record(_ event: Event) throws -> Bool {
        try record([event]).inserted == 1
    }

    /// Records events in one transaction (all or nothing) and updates their users' states with
    /// exactly the events stored, in order.
    /// - Throws: ``EngineError`` of kind ``EngineError/Kind/invalidEvent`` for an event the JSONL
    ///   v1 format would refuse (an instant outside 1678...2261, an empty user, a NaN number...),
    ///   ``StoreError`` (nothing stored, state unchanged) or ``EngineError`` when closed.
    /// - Complexity: O(n) amortised for n events, plus the append's O(n log N).
    @discardableResult
    public func record(_ events: [Event]) throws -> AppendResult {
        try checkNotClosed()
        for (i, event) in events.enumerated() {
            if let reason = event.formatViolation {
                throw EngineError(.invalidEvent, "event \(i + 1) of the batch (\(event.type.rawValue)"
                    + "\(event.id.map { " id \($0)" } ?? "")): \(reason); nothing of the batch was recorded")
            }
        }
        return try recordChecked(events)
    }

    /// Records events given as SmartStack JSONL v1 text (`Datasets/FORMAT.md`), one event per
    /// line, in one transaction: what `smartstack_record` does for a host in C. Blank text
    /// records nothing; a bad line records nothing and throws its error, named `<events>:LINE:COLUMN`.
    ///
    /// ```swift
    /// let line = #"{"time":"2026-03-02T08:06:00-05:00","type":"app_launch","user":"me","app":"com.x"}"#
    /// try engine.record(jsonl: Array(line.utf8))   // AppendResult(inserted: 1, duplicates: 0)
    /// ```
    /// - Throws: `JSONLError` for the first bad line, else as `record(_:)` of `[Event]`.
    /// - Complexity: O(n) in the length of the text, plus the append's.
    @discardableResult
    public func record(jsonl bytes: [UInt8]) throws -> AppendResult {
        try checkNotClosed()
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A) }) else {
            return AppendResult(inserted: 0, duplicates: 0)
        }
        var reader = JSONLReader(bytes: bytes, name: Self.batchName)
        var events: [Event] = []
        while let event = try reader.next() { events.append(event) }
        return try recordChecked(events)
    }

    /// How JSONL text given to ``record(jsonl:)`` is named in its errors (`<events>:3:29: ...`).
    package static let batchName = "<events>"

    /// `record(_:)` of `[Event]` for events already checked (read from JSONL, which checks them).
    private func recordChecked(_ events: [Event]) throws -> AppendResult {
        var pending: [Event]? = events
        return try record(batches: {
            defer { pending = nil }
            return pending
        })
    }

    /// Records every event produced by `nextBatch`, batch after batch, in one transaction (all
    /// or nothing), then updates their users' states as `record(_ events:)` does. The C API
    /// parses batch k+1 of a JSONL text while batch k is being stored.
    ///
    /// `nextBatch` is called until it returns `nil`, the first time before the writer lock is
    /// taken and then inside the store's transaction, so it must not use this engine or its store.
    /// Users first seen after the first batch and not loaded yet are loaded from the log once it
    /// is committed (their state is then a replay of the log, which already holds their events).
    /// - Throws: what `nextBatch` throws, unchanged, or as `record(_ events:)`; nothing is
    ///   stored and no state changes then.
    /// `check`, when given, runs under the writer lock before anything is stored: what it
    /// throws is rethrown and nothing is stored (``backfill(_:user:)`` checks the log there).
    @discardableResult
    package func record(batches nextBatch: () throws -> [Event]?, check: (() throws -> Void)? = nil) throws -> AppendResult {
        var first: [Event] = []
        while first.isEmpty {
            guard let batch = try nextBatch() else { return AppendResult(inserted: 0, duplicates: 0) }
            first = batch
        }
        return try writer.withLock { w throws -> AppendResult in
            try Self.checkOpen(w)
            try check?()
            var users: [String: UserSlot] = [:]
            for event in first where users[event.user] == nil {
                users[event.user] = try loadSlot(event.user, writer: &w)
            }
            let before = try store.nextSequenceNumber()
            if before != w.expectedNext {
                // Another process appended: bring every loaded user up to date first.
                for slot in slots.withLock({ Array($0.values) }) { try catchUp(slot) }
            }
            // The batches as they came (joining them would copy every event).
            var batches: [[Event]] = []
            var count = 0
            var unloaded: [String] = [], isUnloaded: Set<String> = []
            var pending: [Event]? = first
            let result = try store.append(batches: {
                // The store is busy inside this closure, so users of later batches that are not
                // loaded are loaded once it commits.
                guard let batch = try pending ?? nextBatch() else { return nil }
                if pending == nil {
                    var previous: String?
                    for event in batch where event.user != previous {
                        previous = event.user
                        guard users[event.user] == nil && !isUnloaded.contains(event.user) else { continue }
                        if let slot = slots.withLock({ $0[event.user] }) {
                            users[event.user] = slot
                        } else {
                            unloaded.append(event.user)
                            isUnloaded.insert(event.user)
                        }
                    }
                }
                pending = nil
                batches.append(batch)
                count += batch.count
                return batch
            })
            let after = try store.nextSequenceNumber()
            w.expectedNext = after
            if result.inserted == count && after - before == Int64(count) {
                // Every event stored, with consecutive sequence numbers from `before`.
                let coarsens = store.options.coarsensLocations
                var first = before
                for events in batches {
                    var i = 0
                    while i < events.count {
                        let user = events[i].user
                        var j = i + 1
                        while j < events.count && events[j].user == user { j += 1 }
                        if let slot = users[user] {
                            let range = i..<j
                            let last = first + Int64(range.count) - 1
                            let save = slot.state.withLock { s -> SaveRequest? in
                                guard let engine = s.engine else { return nil }
                                if coarsens {
                                    for k in range { engine.record(EventColumns.stored(events[k], coarsensLocations: true)) }
                                } else {
                                    for k in range { engine.record(events[k]) }
                                }
                                for k in range { s.newest = max(s.newest, events[k].time.nanosecondsSinceEpoch) }
                                s.appliedThrough = last
                                s.unsaved += range.count
                                s.isDirty = true
                                return s.unsaved >= saveInterval ? s.saveRequest() : nil
                            }
                            if let save { persistPeriodically(save, user: user, slot: slot) }
                        }
                        first += Int64(j - i)
                        i = j
                    }
                }
            } else {
                // Duplicates were skipped or sequence numbers interleaved: read back what the log holds.
                for (user, slot) in users {
                    if let save = try catchUp(slot), save.unsaved >= saveInterval { persistPeriodically(save, user: user, slot: slot) }
                }
            }
            loadAfterAppend(unloaded, writer: &w)
            return result
        }
    }

    /// Loads users whose events were just stored before their state was loaded: the load replays
    /// the log, events included. The events are stored, so a failure must not fail the call; the
    /// user then stays unloaded and their first use loads them the same way.
    private func loadAfterAppend(_ users: [String], writer w: inout WriterState) {
        for user in users {
            do {
                let slot = try loadSlot(user, writer: &w)
                if let save = slot.state.withLock({ s in s.unsaved >= saveInterval ? s.saveRequest() : nil }) {
                    persistPeriodically(save, user: user, slot: slot)
                }
            } catch {
                notice("could not load the state of user '\(user)' after recording their events (\(error)); it is loaded at its next use")
            }
        }
    }

    /// Configures a stack (records a `stack_config` event): its widgets in the person's order.
    /// - Throws: ``EngineError`` for an empty stack id, an empty or repeated widget id, an empty
    ///   app, a configuration whose line would exceed 1 MiB (kind `invalidConfiguration`) or an
    ///   unsupported instant (kind `invalidArgument`); ``StoreError`` when the log cannot be written.
    public func configure(stack: String, widgets: [WidgetConfig], user: String, at time: EventTime) throws {
        try checkNotClosed()
        guard !stack.isEmpty else { throw EngineError(.invalidConfiguration, "stack id is empty") }
        guard !user.isEmpty else { throw EngineError(.invalidConfiguration, "user is empty") }
        try Self.checkName(user, "user")
        try Self.checkName(stack, "stack")
        var seen: Set<String> = []
        for widget in widgets {
            guard !widget.id.isEmpty else { throw EngineError(.invalidConfiguration, "stack '\(stack)': a widget id is empty") }
            guard seen.insert(widget.id).inserted else {
                throw EngineError(.invalidConfiguration, "stack '\(stack)': widget '\(widget.id)' is listed twice")
            }
            if let app = widget.app, app.isEmpty {
                throw EngineError(.invalidConfiguration, "stack '\(stack)': widget '\(widget.id)' has an empty app (give none instead)")
            }
        }
        let event = Event(time: try time.supported("at"), user: user, payload: .stackConfig(stack: stack, widgets: widgets))
        if let reason = event.formatViolation { throw EngineError(.invalidConfiguration, "stack '\(stack)': \(reason)") }
        try record(event)
    }

    // MARK: Answering

    /// The ranking of `stack` for `user` at `time`: from the user's events strictly before
    /// `time` (see "Instants" above).
    ///
    /// - Parameter explained: whether each widget carries its reasons (default `true`). Reasons
    ///   are most of a ranking's cost; a host that only needs the order can skip them.
    /// - Throws: ``EngineError`` for an unknown user or stack (naming the known ones; a stack is
    ///   unknown before the instant of its `stack_config`), an empty name or an unsupported instant.
    /// - Complexity: O(widgets of the stack) once the user is loaded; the first use of a user
    ///   loads their saved state and replays the events stored after it; a past instant replays
    ///   the user's log before it.
    public func ranking(stack: String, user: String, at time: EventTime, explained: Bool = true) throws -> Ranking {
        let time = try answerArguments(stack: stack, user: user, at: time)
        let live = try withLiveUserEngine(user, at: time, changesState: false) { engine throws -> Ranking in
            engine.explainsRankings = explained
            defer { engine.explainsRankings = true }
            return try engine.ranking(stack: stack, at: time)
        }
        if let live { return live }
        let past = try history(user: user, before: time).engine
        past.explainsRankings = explained
        return try past.ranking(stack: stack, at: time)
    }

    /// Applies the rotation policy to `stack` at a decision point (e.g. screen on) and returns
    /// what is shown on top. Changes the rotation state (saved with the user's state).
    ///
    /// - Parameter explained: whether each widget of the decision's ranking carries its reasons
    ///   (default `true`). The decision is the same either way; a launcher that only shows the
    ///   order skips most of the cost.
    /// - Throws: ``EngineError`` for an unknown user or stack, an empty name or an unsupported instant.
    /// - Complexity: O(widgets · stacks) once the user is loaded, plus O(widgets · reasons) when
    ///   explaining; a past instant replays the user's log before it and leaves the rotation
    ///   state as it was.
    public func decide(stack: String, user: String, at time: EventTime, explained: Bool = true) throws -> RotationDecision {
        let time = try answerArguments(stack: stack, user: user, at: time)
        let live = try withLiveUserEngine(user, at: time, changesState: true) { engine throws -> RotationDecision in
            engine.explainsRankings = explained
            defer { engine.explainsRankings = true }
            return try engine.decide(stack: stack, at: time)
        }
        if let live { return live }
        // A past instant: decided on a state rebuilt from the log before it, whose rotation
        // starts afresh; the live rotation state is not touched.
        let past = try history(user: user, before: time, fromSnapshot: false).engine
        past.explainsRankings = explained
        return try past.decide(stack: stack, at: time)
    }

    /// The checks every answer makes before looking at the user, in the order every door makes
    /// them: the engine is open, the names are not empty, the instant is supported.
    private func answerArguments(stack: String, user: String, at time: EventTime) throws -> EventTime {
        try checkNotClosed()
        try Self.checkName(stack, "stack")
        try Self.checkName(user, "user")
        return try time.supported("at")
    }

    /// A name given as an argument (not inside an event) is one every door can pass: not empty,
    /// and without a NUL character, which ends a C string (the C API and its bindings could never
    /// ask about it; `docs/contract.md`).
    static func checkName(_ name: String, _ argument: String) throws(EngineError) {
        guard !name.isEmpty else { throw EngineError(.invalidArgument, "\(argument) is empty") }
        // A native string's bytes are scanned in place (most of an answer's argument checks when
        // walked through the UTF-8 view); a bridged one through its view.
        let nul = name.utf8.withContiguousStorageIfAvailable { $0.firstIndex(of: 0) }
            ?? name.utf8.firstIndex(of: 0).map { name.utf8.distance(from: name.utf8.startIndex, to: $0) }
        if let nul {
            throw EngineError(.invalidArgument, "\(argument) contains a NUL character at index \(nul), which a C string cannot carry")
        }
    }

    /// Throws ``EngineError`` of kind `closed` once ``close()`` succeeded.
    func checkNotClosed() throws(EngineError) {
        if isClosed.load(ordering: .acquiring) { throw Self.closedError }
    }

    /// The stacks `user` configured and their widgets.
    /// - Throws: ``EngineError`` for an unknown user.
    public func stacks(user: String) throws -> [String: [WidgetConfig]] {
        try checkNotClosed()
        return try withUserEngine(user, changesState: false) { $0.stacks }
    }

    // MARK: Saving

    /// Saves every loaded user's state that changed since it was last saved.
    /// - Throws: ``StoreError``, or ``EngineError`` when closed.
    /// - Complexity: O(size of the changed states).
    public func flush() throws {
        try writer.withLock { w throws in
            try Self.checkOpen(w)
            for (user, slot) in slots.withLock({ $0 }) {
                if let save = slot.state.withLock({ s in s.isDirty ? s.saveRequest() : nil }) {
                    try persist(save, user: user, slot: slot)
                }
            }
        }
    }

    /// Saves every changed state and closes the engine: every later call throws ``EngineError``
    /// of kind ``EngineError/Kind/closed`` (calls running meanwhile finish first, or fail so).
    /// - Throws: ``StoreError`` when a state cannot be saved (the engine stays open then), or
    ///   ``EngineError`` when already closed.
    public func close() throws {
        try writer.withLock { w throws in
            try Self.checkOpen(w)
            // Each user is closed under the lock its last snapshot is taken in: a decision either
            // comes before it (and is saved) or fails as closed.
            let loaded = slots.withLock { $0 }
            var saves: [(user: String, slot: UserSlot, save: SaveRequest)] = []
            for (user, slot) in loaded {
                let save = slot.state.withLock { s -> SaveRequest? in
                    s.isClosed = true
                    return s.isDirty ? s.saveRequest() : nil
                }
                if let save { saves.append((user, slot, save)) }
            }
            do {
                for (user, slot, save) in saves { try persist(save, user: user, slot: slot) }
            } catch {
                for slot in loaded.values { slot.state.withLock { $0.isClosed = false } }
                throw error
            }
            w.isClosed = true
            isClosed.store(true, ordering: .releasing)
        }
    }

    /// Recomputes every user's saved state from the log (clears all saved states, replays the
    /// whole log in sequence order, saves the result) and replaces the loaded states with it.
    /// - Returns: how many users and events were replayed.
    /// - Throws: ``StoreError``.
    /// - Complexity: O(N) for N stored events; holds every user's state in memory at once.
    @discardableResult
    public func rebuild() throws -> (users: Int, events: Int) {
        try writer.withLock { w throws -> (users: Int, events: Int) in
            try Self.checkOpen(w)
            for slot in slots.withLock({ d in defer { d.removeAll() }; return Array(d.values) }) {
                slot.state.withLock { $0.engine = nil }
            }
            try store.clearState()
            var engines: [String: UserEngine] = [:]
            var through: [String: Int64] = [:]
            var count = 0
            try store.forEachInArrivalOrder(user: nil, afterSequence: 0) { sequence, event in
                let engine: UserEngine
                if let known = engines[event.user] {
                    engine = known
                } else {
                    engine = try makeUserEngine(event.user)
                    engines[event.user] = engine
                }
                engine.record(event)
                through[event.user] = sequence
                count += 1
            }
            for (user, engine) in engines {
                try store.saveState(user: user, key: stateKey, sequence: through[user]!, blob: engine.snapshot())
            }
            w.expectedNext = try store.nextSequenceNumber()
            return (engines.count, count)
        }
    }

    // MARK: Deleting

    /// Deletes events strictly before `time` and the state derived from them (retention); the
    /// affected users' states are rebuilt from what remains at their next use.
    /// - Returns: how many events were deleted.
    /// - Throws: ``StoreError``.
    @discardableResult
    public func deleteEvents(before time: EventTime) throws -> Int {
        try writer.withLock { w throws -> Int in
            try Self.checkOpen(w)
            let deleted = try store.deleteEvents(before: time)
            dropAllSlots()
            w.expectedNext = try store.nextSequenceNumber()
            return deleted
        }
    }

    /// Erases every event and all state of `user`, in the log and in memory.
    /// - Returns: how many events were deleted.
    /// - Throws: ``StoreError`` or ``EngineError`` when closed.
    @discardableResult
    public func erase(user: String) throws -> Int {
        try checkNotClosed()
        try Self.checkName(user, "user")
        return try writer.withLock { w throws -> Int in
            try Self.checkOpen(w)
            let deleted = try store.erase(user: user)
            dropSlot(of: user)
            w.expectedNext = try store.nextSequenceNumber()
            return deleted
        }
    }

    /// Erases every trace of using `app`, for every user, in the log and in memory (see
    /// ``EventStore/erase(app:)``): the affected users' states are dropped and rebuilt from what
    /// remains of their log at their next use, exactly as ``erase(user:)`` does for a person.
    ///
    /// ```swift
    /// let erased = try engine.erase(app: "com.example.diary")
    /// print(erased.deletedEvents, erased.affectedUsers)
    /// ```
    /// - Returns: what was erased, and whose state was affected.
    /// - Throws: ``StoreError`` (nothing changed) or ``EngineError`` when closed.
    /// - Complexity: that of ``EventStore/erase(app:)``.
    @discardableResult
    public func erase(app: String) throws -> AppErasure {
        try checkNotClosed()
        try Self.checkName(app, "app")
        return try writer.withLock { w throws -> AppErasure in
            try Self.checkOpen(w)
            let erasure = try store.erase(app: app)
            for user in erasure.affectedUsers { dropSlot(of: user) }
            w.expectedNext = try store.nextSequenceNumber()
            return erasure
        }
    }

    // MARK: Internals

    func makeUserEngine(_ user: String) throws(EngineError) -> UserEngine {
        try UserEngine(user: user, policy: policy, rotation: rotation, seed: seed, prior: prior)
    }

    func notice(_ text: String) {
        noticeLog.withLock { $0.append(text) }
        noticeHandler?(text)
    }
}
