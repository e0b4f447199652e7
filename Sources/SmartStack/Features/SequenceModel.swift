/// What follows the last two and three apps: the higher orders of SmartStack's sequence
/// signal, a variable-order Markov model in the manner of prediction by partial match.
///
/// The first order (the previous app, and the previous app with the gap since it) lives in
/// `FeatureState`'s `appTable` and `appGapTable`. This type keeps the apps launched before it
/// and counts, per context of order 2 (`(a2, a1, gap)`) and 3 (`(a3, a2, a1, gap)`), which widget
/// is engaged next, decayed with `half_life`; `gap` is the bucket of the time since `a1`
/// (`FeatureState.gapBounds`), and an app joins a context only if it was launched within
/// `runGap` of the next one (the apps form one run of use). The scorer backs off from the
/// longest context to the shorter ones with `prior` pseudo-counts, exactly as every other
/// signal: `p3 → p2 → p(a1, gap) → p(a1) → p0`.
///
/// Memory is bounded: at most `maximumContexts` contexts are kept; when full, the half with
/// the least decayed weight is dropped (amortised O(1) per engagement), so a stream of
/// thousands of distinct apps cannot grow it without limit.
struct SequenceModel: Sendable, Codable {
    /// Longest context kept, in apps.
    static let order = 3
    /// Seconds within which consecutive apps belong to one run (the second gap bucket).
    static let runGap = 1800.0
    /// Contexts of order 2 and 3 kept at most.
    static let maximumContexts = 4096

    /// A context: up to three apps, newest last (-1 for the unused older slots), and the gap
    /// bucket since the newest.
    struct Context: Hashable, Sendable, Codable {
        var a3: Int32, a2: Int32, a1: Int32, gap: Int32

        /// Two words hashed instead of four fields.
        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(UInt32(bitPattern: a3)) << 32 | UInt64(UInt32(bitPattern: a2)))
            hasher.combine(UInt64(UInt32(bitPattern: a1)) << 32 | UInt64(UInt32(bitPattern: gap)))
        }

        /// A cheap well-mixed hash for `ContextIndex` (a multiply-xorshift of the two words;
        /// lookups never depend on it for order, only for speed).
        @inline(__always) var slotHash: UInt64 {
            let x = UInt64(UInt32(bitPattern: a3)) << 32 | UInt64(UInt32(bitPattern: a2))
            let y = UInt64(UInt32(bitPattern: a1)) << 32 | UInt64(UInt32(bitPattern: gap))
            var h = (x ^ (y &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            return h
        }
    }

    /// Context to row: an open-addressing table of row numbers (linear probing, at most half
    /// full), keyed by the contexts themselves. Two lookups per moment and per engagement:
    /// cheaper than a `Dictionary`'s seeded hashing, with the same answers.
    struct ContextIndex: Sendable {
        /// Row per slot, -1 when empty; the count is a power of two.
        private var slots: [Int32] = []
        private(set) var count = 0

        /// The row of `k` among `contexts`, or `nil`.
        @inline(__always) func row(of k: Context, in contexts: [Context]) -> Int32? {
            guard !slots.isEmpty else { return nil }
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: k.slotHash) & mask
            while true {
                let r = slots[i]
                if r < 0 { return nil }
                if contexts[Int(r)] == k { return r }
                i = (i + 1) & mask
            }
        }

        /// Adds `k`, not yet present, as row `r` (`contexts[r] == k`).
        mutating func insert(_ k: Context, row r: Int32, in contexts: [Context]) {
            if 2 * (count + 1) > slots.count { rebuild(capacity: 2 * (count + 1), contexts: contexts, adding: r) }
            else { place(k, row: r) }
            count += 1
        }

        /// Empties the index.
        mutating func removeAll() {
            for i in slots.indices { slots[i] = -1 }
            count = 0
        }

        private mutating func place(_ k: Context, row r: Int32) {
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: k.slotHash) & mask
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = r
        }

        /// Grows to at least `capacity` slots, re-placing the rows indexed so far and row `r`.
        private mutating func rebuild(capacity: Int, contexts: [Context], adding r: Int32) {
            var size = 16
            while size < capacity { size *= 2 }
            let old = slots
            slots = [Int32](repeating: -1, count: size)
            for row in old where row >= 0 { place(contexts[Int(row)], row: row) }
            place(contexts[Int(r)], row: r)
        }
    }

    /// The last apps launched, newest first, and when (-1 / -∞ when none).
    private(set) var apps: [Int32] = [-1, -1, -1]
    private(set) var times: [Double] = [-.infinity, -.infinity, -.infinity]
    /// Kept contexts, the decayed count row of each (`rows`) and its decayed total.
    private(set) var contexts: [Context] = []
    private(set) var rows = ContextTable()
    private(set) var totals: [Double] = []
    /// Context to row (derived: rebuilt when decoded).
    private var index = ContextIndex()

    init() {}

    enum CodingKeys: String, CodingKey { case apps, times, contexts, rows, totals }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        apps = try c.decode([Int32].self, forKey: .apps)
        times = try c.decode([Double].self, forKey: .times)
        contexts = try c.decode([Context].self, forKey: .contexts)
        rows = try c.decode(ContextTable.self, forKey: .rows)
        totals = try c.decode([Double].self, forKey: .totals)
        guard apps.count == Self.order, times.count == Self.order, totals.count == contexts.count,
              contexts.count <= Self.maximumContexts else {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "sequence arrays of different lengths"))
        }
        for (i, k) in contexts.enumerated() where index.row(of: k, in: contexts) == nil {
            index.insert(k, row: Int32(i), in: contexts)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(apps, forKey: .apps)
        try c.encode(times, forKey: .times)
        try c.encode(contexts, forKey: .contexts)
        try c.encode(rows, forKey: .rows)
        try c.encode(totals, forKey: .totals)
    }

    /// The contexts of order 2 and 3 in force at `ts`, `nil` where the history is too short,
    /// broken by a long pause, or the last app is older than the last gap bucket.
    @inline(__always)
    func current(at ts: Double) -> (order2: Context?, order3: Context?) {
        guard apps[0] >= 0, apps[1] >= 0, ts >= times[0] else { return (nil, nil) }
        let gap = ts - times[0]
        var bucket: Int32 = -1
        for (i, bound) in FeatureState.gapBounds.enumerated() where gap < bound { bucket = Int32(i); break }
        guard bucket >= 0, times[0] - times[1] < Self.runGap else { return (nil, nil) }
        let two = Context(a3: -1, a2: apps[1], a1: apps[0], gap: bucket)
        guard apps[2] >= 0, times[1] - times[2] < Self.runGap else { return (two, nil) }
        return (two, Context(a3: apps[2], a2: apps[1], a1: apps[0], gap: bucket))
    }

    /// The rows of the contexts in force at `ts` (-1: none kept).
    @inline(__always)
    func rows(at ts: Double) -> (order2: Int, order3: Int) {
        let (two, three) = current(at: ts)
        return (two.map(row(of:)) ?? -1, three.map(row(of:)) ?? -1)
    }

    /// The row of context `k` (-1: not kept).
    @inline(__always) func row(of k: Context) -> Int {
        index.row(of: k, in: contexts).map(Int.init) ?? -1
    }

    /// The decayed count of widget `w` in row `r` (stored units, as the other tables).
    @inline(__always) func value(_ r: Int, _ w: Int) -> Double { rows.value(r, w) }

    /// Calls `body` with row `r` read in place (`ContextTable.withRow`).
    @inline(__always) func withRow<T>(_ r: Int, _ body: (UnsafeBufferPointer<Double>) -> T) -> T { rows.withRow(r, body) }

    /// Counts an engagement of widget `w` at `ts` with stored weight `lw` under the contexts in
    /// force.
    mutating func engage(_ w: Int, at ts: Double, weight lw: Double) {
        let (two, three) = current(at: ts)
        if let two { add(lw, two, w) }
        if let three { add(lw, three, w) }
    }

    /// App `a` was launched at `ts` (late launches do not rewrite the history).
    mutating func launched(_ a: Int32, at ts: Double) {
        guard ts >= times[0] else { return }
        if apps[0] == a {
            times[0] = ts
            return
        }
        apps[2] = apps[1]; times[2] = times[1]
        apps[1] = apps[0]; times[1] = times[0]
        apps[0] = a; times[0] = ts
    }

    private mutating func add(_ lw: Double, _ k: Context, _ w: Int) {
        var r = index.row(of: k, in: contexts)
        if r == nil {
            if contexts.count >= Self.maximumContexts { evictHalf() }
            r = Int32(contexts.count)
            contexts.append(k)
            index.insert(k, row: r!, in: contexts)
            totals.append(0)
        }
        rows.add(lw, Int(r!), w)
        totals[Int(r!)] += lw
    }

    /// Drops the half of the contexts with the least decayed weight.
    private mutating func evictHalf() {
        let order = contexts.indices.sorted { totals[$0] > totals[$1] || (totals[$0] == totals[$1] && $0 < $1) }
        let kept = order.prefix(contexts.count / 2).sorted()
        var newRows = ContextTable()
        var newContexts: [Context] = []
        var newTotals: [Double] = []
        index.removeAll()
        for old in kept {
            let r = newContexts.count
            newContexts.append(contexts[old])
            newTotals.append(totals[old])
            index.insert(contexts[old], row: Int32(r), in: newContexts)
            newRows.copyRow(from: rows, row: old, to: r)
        }
        contexts = newContexts
        totals = newTotals
        rows = newRows
    }

    /// Multiplies the decayed counts by `factor` (the long clock's rescale).
    mutating func scale(by factor: Double) {
        rows.scale(by: factor)
        for i in totals.indices { totals[i] *= factor }
    }

    /// Whether the history and contexts refer to existing apps (checked when restoring).
    func isConsistent(apps count: Int) -> Bool {
        let valid = { (a: Int32) in a >= -1 && a < count }
        return apps.allSatisfy(valid) && contexts.allSatisfy { valid($0.a3) && valid($0.a2) && valid($0.a1) && $0.gap >= 0 && $0.gap < 4 }
    }
}
