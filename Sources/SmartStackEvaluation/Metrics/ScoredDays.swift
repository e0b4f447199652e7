/// Every scored user-day of a replay with each policy's tallies, aligned across policies (the
/// decision points, hence the user-days, do not depend on the policy). Users are in sorted order.
struct ScoredDays: Sendable {
    /// User ids, sorted.
    var users: [String] = []
    /// Where each user's (stack, widget) keys start in the global key space.
    var userKeyOffsets: [Int] = []
    /// Configured (stack, widget) pairs per user.
    var userUniverses: [Int] = []
    /// The user index of each unit (user-day).
    var dayUser: [Int] = []
    /// Tallies per policy, then per unit.
    var summaries: [[DaySummary]]

    /// An empty table for `policies` policies.
    init(policies: Int) { summaries = Array(repeating: [], count: policies) }

    /// A fresh accumulator sized for this table.
    func accumulator() -> MetricAccumulator {
        MetricAccumulator(userKeyOffsets: userKeyOffsets, userUniverses: userUniverses)
    }

    /// The metrics of `policy` over the units `indices` (all units when `nil`).
    ///
    /// - Complexity: O(units + dwells log dwells).
    func values(policy: Int, indices: [Int]? = nil) -> MetricValues {
        var acc = accumulator()
        if let indices {
            for i in indices { acc.add(summaries[policy][i], user: dayUser[i]) }
        } else {
            for i in dayUser.indices { acc.add(summaries[policy][i], user: dayUser[i]) }
        }
        return acc.values()
    }
}
