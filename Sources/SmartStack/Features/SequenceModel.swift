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

        /// Two words hashed instead of four fields (a lookup per engagement and per moment).
        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(UInt32(bitPattern: a3)) << 32 | UInt64(UInt32(bitPattern: a2)))
            hasher.combine(UInt64(UInt32(bitPattern: a1)) << 32 | UInt64(UInt32(bitPattern: gap)))
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
    private var index: [Context: Int32] = [:]

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
        for (i, k) in contexts.enumerated() { index[k] = Int32(i) }
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
        return (two.flatMap { index[$0] }.map(Int.init) ?? -1, three.flatMap { index[$0] }.map(Int.init) ?? -1)
    }

    /// The decayed count of widget `w` in row `r` (stored units, as the other tables).
    @inline(__always) func value(_ r: Int, _ w: Int) -> Double { rows.value(r, w) }

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
        var r = index[k]
        if r == nil {
            if contexts.count >= Self.maximumContexts { evictHalf() }
            r = Int32(contexts.count)
            index[k] = r
            contexts.append(k)
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
        index.removeAll(keepingCapacity: true)
        for old in kept {
            let r = newContexts.count
            newContexts.append(contexts[old])
            newTotals.append(totals[old])
            index[contexts[old]] = Int32(r)
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
