import SmartStackSQLite

/// Reads of the event log the host engine needs beyond `EventStore`'s public queries: events in
/// *arrival* order (sequence order), which is the order the engine learned them in, so a replay
/// reproduces the incremental state exactly even when events arrived late.
extension EventStore {
    /// The sequence number the next appended event will get.
    func nextSequenceNumber() throws -> Int64 {
        try logRead { db in try db.scalar(StoreSchema.nextSequence)?.integerValue ?? 1 }
    }

    /// Whether `user` has an event with sequence `<= sequence` at or after `time`, i.e. whether a
    /// state saved through `sequence` has seen an event that does not count before `time`.
    /// - Complexity: O(log N + k) for the user's k events at or after `time`.
    func hasEvent(user: String, through sequence: Int64, notBefore time: EventTime) throws -> Bool {
        try logRead { db in
            guard let key = try db.scalar(StoreSchema.findUser, [.text(user)])?.integerValue else { return false }
            return try db.scalar(
                "SELECT 1 FROM events WHERE user_key = ? AND time_ns >= ? AND seq <= ? LIMIT 1",
                [.integer(key), .integer(time.nanosecondsSinceEpoch), .integer(sequence)]) != nil
        }
    }

    /// The latest instant (nanoseconds since 1970) of `user`'s events, `nil` when there is none.
    /// - Complexity: O(log N) (the `(user, time)` index).
    func newestInstant(user: String) throws -> Int64? {
        try logRead { db in
            guard let key = try db.scalar(StoreSchema.findUser, [.text(user)])?.integerValue else { return nil }
            return try db.scalar("SELECT max(time_ns) FROM events WHERE user_key = ?", [.integer(key)])?.integerValue
        }
    }

    /// Calls `body` with each event (of `user`, or of everyone) with a sequence number above
    /// `afterSequence` and, if given, a time strictly before `before`, in sequence order.
    ///
    /// `body` must not call the store.
    /// Streams in constant memory: it walks the rows after `afterSequence` in sequence order.
    /// - Complexity: O(rows stored after `afterSequence`).
    func forEachInArrivalOrder(user: String?, afterSequence: Int64, before: EventTime? = nil,
                               _ body: (Int64, Event) throws -> Void) throws {
        let path = self.path
        try logRead { db in
            var names: [Int64: String] = [:]
            var conditions = ["seq > ?"]
            var arguments: [SQLiteValue] = [.integer(afterSequence)]
            if let user {
                guard let key = try db.scalar(StoreSchema.findUser, [.text(user)])?.integerValue else { return }
                names[key] = user
                // `+` keeps SQLite on the rowid (sequence) range instead of the (user, time)
                // index, which would read all of the user's events and sort them by sequence.
                conditions.append("+user_key = ?")
                arguments.append(.integer(key))
            } else {
                for row in try db.rows("SELECT user_key, name FROM users") {
                    if let key = row[0].integerValue, let name = row[1].textValue { names[key] = name }
                }
            }
            if let before {
                conditions.append("time_ns < ?")
                arguments.append(.integer(before.nanosecondsSinceEpoch))
            }
            let sql = "SELECT \(StoreSchema.selectColumns) FROM events WHERE "
                + conditions.joined(separator: " AND ") + " ORDER BY seq"
            let statement = try db.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(arguments)
            while try statement.step() {
                let sequence = statement.int64(at: 0)
                guard let name = names[statement.int64(at: 1)] else {
                    throw StoreError(kind: .corrupt, path: path, message: "event \(sequence) refers to an unknown user (key \(statement.int64(at: 1)))")
                }
                let payload: EventPayload
                do throws(EventColumns.RowError) {
                    payload = try EventColumns.payload(from: statement)
                } catch {
                    throw StoreError(kind: .corrupt, path: path, message: "event \(sequence) cannot be read: \(error.message)")
                }
                guard let offset = Int32(exactly: statement.int64(at: 4)) else {
                    throw StoreError(kind: .corrupt, path: path, message: "event \(sequence) has an impossible UTC offset")
                }
                let event = Event(time: EventTime(nanosecondsSinceEpoch: statement.int64(at: 3), utcOffsetSeconds: offset),
                                  user: name, id: statement.optionalString(at: 2), payload: payload)
                try body(sequence, event)
            }
        }
    }

    /// Runs `body` on the connection, translating SQLite errors into ``StoreError``s.
    private func logRead<T>(_ body: (inout sending Database) throws -> sending T) throws -> sending T {
        do {
            return try connection.withDatabase(body)
        } catch {
            throw StoreError.wrapping(error, path: path, busyTimeout: options.busyTimeout)
        }
    }
}
