/// Sums `DaySummary` tallies of any multiset of user-days and turns them into `MetricValues`.
/// Reusable across bootstrap resamples (`reset()` is proportional to what was added).
struct MetricAccumulator {
    private var total = DecisionTally()
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
        total += day.tally
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
        total.reset()
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
        v[.decisions] = Double(total.decisions)
        v[.decisionsWithTarget] = Double(total.decisionsWithTarget)
        v[.hitAt1] = total.hitAt1
        v[.hitAt3] = total.hitAt3
        v[.mrr] = total.meanReciprocalRank
        v[.ndcgAt3] = total.ndcgAt3
        v[.rotationsPerActiveHour] = total.rotationsPerActiveHour
        v[.flickerRate] = total.flickerRate
        v[.unnecessaryRotationRate] = total.unnecessaryRotationRate
        v[.medianDwellMinutes] = DecisionTally.median(&total.dwellMinutes)   // in place: no copy per resample
        if universe > 0 { v[.coverage] = Double(covered) / Double(universe) }
        return v
    }
}
