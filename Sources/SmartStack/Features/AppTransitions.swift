/// Which app follows which: decayed counts per (previous app, gap bucket, app launched), the
/// first order of the sequence signal kept for apps rather than widgets, so that a widget
/// configured after its app was used starts with what its app followed (`FeatureState.configure`
/// copies its app's row into the widget's `appTable` and `appGapTable` counts).
///
/// Only launches of the first `FeatureState.maximumProfiledApps` apps are counted, and at most
/// `maximumEntries` (previous app, gap bucket) entries are kept over all apps: when full, the half
/// with the least decayed weight is dropped (amortised O(1) per launch), so a stream of distinct
/// apps cannot grow it without limit.
///
/// ```swift
/// var t = AppTransitions()
/// t.add(1, previous: 3, bucket: 0, app: 7)      // app 7 launched within 5 minutes of app 3
/// t.followed(app: 7)                            // [(previous: 3, bucket: 0, weight: 1.0)]
/// ```
struct AppTransitions: Sendable, Codable {
    /// Entries kept at most, over all apps (about 1.5 MB).
    static let maximumEntries = 65_536

    /// Per app launched: (previous app << 2 | gap bucket) → decayed count.
    private(set) var rows: [[Int64: Double]] = []
    private(set) var count = 0

    init() {}

    /// Adds `weight` (stored units) to app `app` launched after `previous` with gap `bucket`.
    mutating func add(_ weight: Double, previous: Int, bucket: Int, app: Int) {
        if app >= rows.count { rows.append(contentsOf: repeatElement([:], count: app + 1 - rows.count)) }
        let key = Int64(previous) << 2 | Int64(bucket)
        // One hash lookup for a pair already kept (the common case on the per-launch path).
        if let i = rows[app].index(forKey: key) {
            rows[app].values[i] += weight
            return
        }
        if count >= Self.maximumEntries { evictHalf() }
        count += 1
        rows[app][key] = weight
    }

    /// What app `app` followed, in (previous app, bucket) order.
    func followed(app: Int) -> [(previous: Int, bucket: Int, weight: Double)] {
        guard app >= 0, app < rows.count else { return [] }
        return rows[app].sorted { $0.key < $1.key }.map { (Int($0.key >> 2), Int($0.key & 3), $0.value) }
    }

    /// Multiplies the decayed counts by `factor` (the long clock's rescale).
    mutating func scale(by factor: Double) {
        for a in rows.indices where !rows[a].isEmpty { rows[a] = rows[a].mapValues { $0 * factor } }
    }

    /// Keeps the half of the entries with the most weight (ties: the lower app, then key).
    private mutating func evictHalf() {
        var all: [(weight: Double, app: Int, key: Int64)] = []
        all.reserveCapacity(count)
        for (a, row) in rows.enumerated() { for (k, v) in row { all.append((v, a, k)) } }
        all.sort { ($0.weight, -$0.app, -$0.key) > ($1.weight, -$1.app, -$1.key) }
        var kept = [[Int64: Double]](repeating: [:], count: rows.count)
        for e in all.prefix(all.count / 2) { kept[e.app][e.key] = e.weight }
        rows = kept
        count = all.count / 2
    }

    /// Whether the entries refer to existing apps and are finite (checked when restoring).
    func isConsistent(apps: Int) -> Bool {
        rows.count <= min(apps, FeatureState.maximumProfiledApps) && count <= Self.maximumEntries
            && count == rows.reduce(0) { $0 + $1.count }
            && rows.allSatisfy { $0.allSatisfy { $0.key >= 0 && $0.key >> 2 < apps && $0.value.isFinite } }
    }

    // Coded as each app's keys and values in key order, so equal states give equal bytes.
    enum CodingKeys: String, CodingKey { case keys, values }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let keys = try c.decode([[Int64]].self, forKey: .keys)
        let values = try c.decode([[Double]].self, forKey: .values)
        guard keys.count == values.count, zip(keys, values).allSatisfy({ $0.count == $1.count }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "app transition arrays of different lengths"))
        }
        rows = zip(keys, values).map { Dictionary(zip($0, $1), uniquingKeysWith: { a, _ in a }) }
        count = rows.reduce(0) { $0 + $1.count }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let sorted = rows.map { $0.sorted { $0.key < $1.key } }
        try c.encode(sorted.map { $0.map(\.key) }, forKey: .keys)
        try c.encode(sorted.map { $0.map(\.value) }, forKey: .values)
    }
}
