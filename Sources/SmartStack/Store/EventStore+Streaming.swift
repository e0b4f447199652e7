import SmartStackSQLite

extension EventStore {
    /// Appends every event produced by `nextBatch`, batch after batch, in ONE transaction: all
    /// or nothing, with memory bounded by one batch however many events there are in all.
    ///
    /// `nextBatch` is called until it returns `nil`; an empty batch is allowed. When it throws,
    /// or storing fails (a NaN number, a full disk, a lock held too long), the transaction is
    /// rolled back — nothing of any batch is stored and the log is as it was — and the error is
    /// rethrown (errors of `nextBatch` unchanged). Events whose (user, id) is already stored,
    /// earlier or in any batch of this call, are skipped and counted as duplicates.
    ///
    /// The store's lock is held for the whole call, so `nextBatch` must not use this store (that
    /// throws ``StoreError`` with kind `misuse`); other threads' calls wait until it returns.
    ///
    /// ```swift
    /// var reader = try JSONLReader(path: "events.jsonl")
    /// let result = try store.append(batches: {
    ///     var batch: [Event] = []
    ///     while batch.count < 10_000, let event = try reader.next() { batch.append(event) }
    ///     return batch.isEmpty ? nil : batch
    /// })
    /// ```
    /// - Throws: ``StoreError``, or what `nextBatch` throws.
    /// - Complexity: O(n log N) for n events appended to a log of N.
    @discardableResult
    public func append(batches nextBatch: () throws -> [Event]?) throws -> AppendResult {
        let path = self.path
        let coarsensLocations = options.coarsensLocations
        do {
            return try connection.transaction { db in
                var inserter = try Inserter(db: db, path: path, coarsensLocations: coarsensLocations)
                while let batch = try nextBatch() {
                    try inserter.insert(batch, in: db)
                }
                return AppendResult(inserted: inserter.inserted, duplicates: inserter.duplicates)
            }
        } catch {
            throw StoreError.wrapping(error, path: path, busyTimeout: options.busyTimeout)
        }
    }

    /// Appends the events of `events` in batches of `batchSize` in one transaction (see
    /// ``append(batches:)``): memory is bounded by one batch, not by the sequence.
    ///
    /// ```swift
    /// try store.append(contentsOf: (0..<1_000_000).lazy.map { makeEvent($0) })
    /// ```
    /// - Throws: ``StoreError``; nothing is stored when it throws.
    /// - Complexity: O(n log N) for n events appended to a log of N.
    @discardableResult
    public func append<S: Sequence<Event>>(contentsOf events: S, batchSize: Int = 10_000) throws -> AppendResult {
        var iterator = events.makeIterator()
        let size = max(1, batchSize)
        return try append(batches: {
            var batch: [Event] = []
            batch.reserveCapacity(size)
            while batch.count < size, let event = iterator.next() { batch.append(event) }
            return batch.isEmpty ? nil : batch
        })
    }
}

/// Inserts events inside an open transaction, giving sequence numbers and user keys and counting
/// what went in; the one code path behind every append.
private struct Inserter {
    let path: String
    let coarsensLocations: Bool
    private var sequence: Int64
    private var users = UserKeys()
    private(set) var inserted = 0
    private(set) var duplicates = 0

    init(db: Database, path: String, coarsensLocations: Bool) throws {
        self.path = path
        self.coarsensLocations = coarsensLocations
        let next = try db.cachedStatement(StoreSchema.nextSequence)
        sequence = try next.step() ? next.int64(at: 0) : 1
        next.reset()
    }

    mutating func insert(_ events: [Event], in db: Database) throws {
        let insert = try db.cachedStatement(StoreSchema.insertEvent)
        for event in events {
            try insert.bind(sequence, at: 1)
            try insert.bind(try users.key(for: event.user, in: db), at: 2)
            try insert.bind(event.id, at: 3)
            try insert.bind(event.time.nanosecondsSinceEpoch, at: 4)
            try insert.bind(Int64(event.time.utcOffsetSeconds), at: 5)
            if let field = try EventColumns.bindFields(of: event.payload, to: insert,
                                                          coarsensLocations: coarsensLocations) {
                let position = inserted + duplicates + 1
                insert.reset()
                throw StoreError(kind: .invalidEvent, path: path, message:
                    "event \(position) of the batch (\(event.type.rawValue)\(event.id.map { " id \($0)" } ?? "")): field '\(field)' is NaN, which cannot be stored; nothing of the batch was stored")
            }
            _ = try insert.step()
            insert.reset()
            if db.changes > 0 {
                inserted += 1
                sequence += 1
            } else {
                duplicates += 1
            }
        }
    }
}

/// User names to their integer keys, looked up or created once per append. The cache is
/// emptied when it reaches ``capacity`` names, so a log of millions of users stays bounded.
private struct UserKeys {
    static let capacity = 65_536
    private var lastName: String?
    private var lastKey: Int64 = 0
    private var keys: [String: Int64] = [:]

    mutating func key(for name: String, in db: Database) throws -> Int64 {
        if let lastName, lastName == name { return lastKey }
        let key: Int64
        if let known = keys[name] {
            key = known
        } else {
            let find = try db.cachedStatement(StoreSchema.findUser)
            try find.bind(name, at: 1)
            if try find.step() {
                key = find.int64(at: 0)
                find.reset()
            } else {
                find.reset()
                let insert = try db.cachedStatement(StoreSchema.insertUser)
                try insert.bind(name, at: 1)
                try insert.execute()
                key = db.lastInsertedRowID
            }
            if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
            keys[name] = key
        }
        lastName = name
        lastKey = key
        return key
    }
}
