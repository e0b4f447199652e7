/// Sums `DaySummary` tallies of any multiset of user-days and turns them into `MetricValues`.
/// Reusable across bootstrap resamples (`reset()` is proportional to what was added).
struct MetricAccumulator {
    private var decisions = 0, withTarget = 0, hits1 = 0, hits3 = 0
    private var rrSum = 0.0, ndcgSum = 0.0
    private var activeHours = 0, rotations = 0, flickers = 0, unnecessary = 0
    private var dwells: [Double] = []
    private var coveredKeys: [Bool]
    private var touchedKeys: [Int] = []
    private var usersSeen: [Bool]
    private var touchedUsers: [Int] = []
    private var covered = 0
    private var universe = 0
    private let userKeyOffsets: [Int]
    private let userUniverses: [Int]

    /// - Parameters:
    ///   - userKeyOffsets: where each user's (stack, widget) keys start in the global key space.
    ///   - userUniverses: how many (stack, widget) pairs each user has configured.
    init(userKeyOffsets: [Int], userUniverses: [Int]) {
        self.userKeyOffsets = userKeyOffsets
        self.userUniverses = userUniverses
        coveredKeys = Array(repeating: false, count: userUniverses.reduce(0, +))
        usersSeen = Array(repeating: false, count: userUniverses.count)
    }

    /// Adds one user-day.
    ///
    /// - Complexity: O(dwells + tops of the day).
    mutating func add(_ day: DaySummary, user: Int) {
        decisions += day.decisions
        withTarget += day.decisionsWithTarget
        hits1 += day.hitsAt1
        hits3 += day.hitsAt3
        rrSum += day.reciprocalRankSum
        ndcgSum += day.ndcgSum
        activeHours += day.activeHours
        rotations += day.rotations
        flickers += day.flickers
        unnecessary += day.unnecessaryRotations
        dwells.append(contentsOf: day.dwellMinutes)
        if !usersSeen[user] {
            usersSeen[user] = true
            touchedUsers.append(user)
            universe += userUniverses[user]
        }
        let offset = userKeyOffsets[user]
        for key in day.topKeys {
            let k = offset + Int(key)
            if !coveredKeys[k] {
                coveredKeys[k] = true
                touchedKeys.append(k)
                covered += 1
            }
        }
    }

    /// Empties the accumulator.
    mutating func reset() {
        decisions = 0; withTarget = 0; hits1 = 0; hits3 = 0
        rrSum = 0; ndcgSum = 0
        activeHours = 0; rotations = 0; flickers = 0; unnecessary = 0
        dwells.removeAll(keepingCapacity: true)
        for k in touchedKeys { coveredKeys[k] = false }
        touchedKeys.removeAll(keepingCapacity: true)
        for u in touchedUsers { usersSeen[u] = false }
        touchedUsers.removeAll(keepingCapacity: true)
        covered = 0
        universe = 0
    }

    /// The metrics of everything added (undefined ratios are `nil`).
    ///
    /// - Complexity: O(d log d) for d dwells (the median).
    mutating func values() -> MetricValues {
        var v = MetricValues()
        v[.decisions] = Double(decisions)
        v[.decisionsWithTarget] = Double(withTarget)
        if withTarget > 0 {
            let n = Double(withTarget)
            v[.hitAt1] = Double(hits1) / n
            v[.hitAt3] = Double(hits3) / n
            v[.mrr] = rrSum / n
            v[.ndcgAt3] = ndcgSum / n
        }
        if activeHours > 0 { v[.rotationsPerActiveHour] = Double(rotations) / Double(activeHours) }
        if rotations > 0 {
            v[.flickerRate] = Double(flickers) / Double(rotations)
            v[.unnecessaryRotationRate] = Double(unnecessary) / Double(rotations)
        }
        v[.medianDwellMinutes] = Self.median(&dwells)
        if universe > 0 { v[.coverage] = Double(covered) / Double(universe) }
        return v
    }

    /// The median (mean of the two middle values for an even count), `nil` when empty.
    static func median(_ values: inout [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        values.sort()
        let n = values.count
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2
    }
}
