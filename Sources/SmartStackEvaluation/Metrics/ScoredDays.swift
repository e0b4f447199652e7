/// Every scored user-day of an evaluation with each policy's tallies, laid out flat for the
/// bootstrap: per policy one `DayCounts` value per user-day, the coverage bits of each day's tops,
/// and the dwells sorted once (`DwellOrder`), so a resample's metrics cost no allocation and no
/// sort. Users are appended in sorted order; the user-days (units) are numbered in that order.
///
/// ```swift
/// var table = ScoredDays(policies: 1)
/// try table.appendUser(universe: 4, days: [result.perPolicy[0].days], name: result.user)
/// table.finish()
/// let metrics = table.values(policy: 0)
/// ```
struct ScoredDays: Sendable {
    /// Where one user's units and coverage bits are.
    struct UserSlot: Sendable {
        /// The user's first unit.
        var firstUnit: Int
        /// Where the coverage words of the user's first unit start in `PolicyDays.topWords`.
        var wordBase: Int
        /// Where the user's words start in a resample's coverage scratch.
        var scratchBase: Int
        /// Configured (stack, widget) pairs: coverage's denominator.
        var universe: Int32
        /// Coverage words per unit: one bit per configured pair.
        var words: Int32
    }

    /// One policy's units.
    struct PolicyDays: Sendable {
        /// Per unit, while units are appended (emptied by `finish()`).
        var counts: [DayCounts] = []
        /// Per unit, once finished: the same counts as vectors a resample adds lane by lane.
        var packed: [PackedDay] = []
        /// The (stack, widget) pairs on top at scored decisions, as bits, per unit.
        var topWords: [UInt64] = []
        var dwells = DwellOrder()

        /// Whether any resample's sum of a count fits 32 bits (the largest count of a unit times
        /// the units, the most a resample can draw), so a resample can add in 32-bit lanes.
        var countsSumIn32Bits = true

        mutating func finish() {
            dwells.finish(counts: &counts)
            packed = counts.map(PackedDay.init)
            counts = []
            let largest = packed.reduce(Int32(0)) { max($0, $1.tallies.max(), $1.truthAndDwells.max()) }
            let (bound, overflow) = Int(largest).multipliedReportingOverflow(by: packed.count)
            countsSumIn32Bits = !overflow && bound <= Int(Int32.max)
        }
    }

    private(set) var users: [UserSlot] = []
    /// The user of each unit.
    private(set) var dayUser: [Int32] = []
    private(set) var policies: [PolicyDays]
    /// Coverage words of all users together (the size of a resample's coverage scratch).
    private(set) var totalUserWords = 0
    private(set) var isFinished = false

    /// An empty table for `policies` policies.
    init(policies: Int) { self.policies = Array(repeating: PolicyDays(), count: policies) }

    /// Number of units (scored user-days).
    var unitCount: Int { dayUser.count }

    /// Appends one evaluated user's scored days: `days[p]` are policy `p`'s, aligned across
    /// policies. `name` is used in errors.
    ///
    /// - Throws: `EvaluationError` when a count does not fit the table (more than 2^31 - 1 in a
    ///   day) or the days of the policies differ in number.
    /// - Complexity: O(days × policies + dwells + tops).
    mutating func appendUser(universe: Int, days: [[DaySummary]], name: String) throws(EvaluationError) {
        precondition(!isFinished, "appendUser after finish")
        precondition(days.count == policies.count)
        let dayCount = days.first?.count ?? 0
        guard days.allSatisfy({ $0.count == dayCount }) else {
            throw EvaluationError("user '\(name)': the policies' scored days differ in number")
        }
        guard let universe32 = Int32(exactly: universe), universe >= 0 else {
            throw EvaluationError("user '\(name)': \(universe) configured widgets is out of range")
        }
        let words = (universe + 63) / 64
        let user = users.count
        guard let user32 = Int32(exactly: user) else { throw EvaluationError("more than 2^31 users") }
        let firstUnit = dayUser.count
        let wordBase = policies[0].topWords.count   // the same layout for every policy
        users.append(UserSlot(firstUnit: firstUnit, wordBase: wordBase, scratchBase: totalUserWords,
                              universe: universe32, words: Int32(words)))
        totalUserWords += words
        dayUser.append(contentsOf: repeatElement(user32, count: dayCount))
        for p in policies.indices {
            for (d, day) in days[p].enumerated() {
                let unit = Int32(truncatingIfNeeded: firstUnit + d)
                policies[p].counts.append(try DayCounts(day.tally, user: name))
                let start = policies[p].topWords.count
                policies[p].topWords.append(contentsOf: repeatElement(0, count: words))
                for key in day.topKeys {
                    guard key >= 0, Int(key) < universe else {
                        throw EvaluationError("user '\(name)': top key \(key) is not below its \(universe) configured widgets")
                    }
                    policies[p].topWords[start + Int(key) / 64] |= 1 << UInt64(key % 64)
                }
                for minutes in day.tally.dwellMinutes { policies[p].dwells.add(minutes, unit: unit) }
            }
        }
    }

    /// Sorts every policy's dwells; no user may be appended afterwards.
    ///
    /// - Complexity: O(dwells log dwells).
    mutating func finish() {
        guard !isFinished else { return }
        isFinished = true
        for p in policies.indices { policies[p].finish() }
    }

    /// The metrics of `policy` over all units (each once, in order).
    ///
    /// - Complexity: O(units + the distance of the median from the dwells' pivot).
    func values(policy: Int) -> MetricValues {
        precondition(isFinished)
        var scratch = ResampleScratch(self)
        scratch.drawAll()
        return scratch.values(of: self, policy: policy)
    }
}

/// A unit's `DayCounts` as vectors (96 bytes, as `DayCounts`): a resample adds a drawn unit in a
/// few lanewise additions instead of one per field. The sums lane by lane are the fields' sums
/// in the same order, so every total is the same to the bit.
struct PackedDay: Sendable {
    /// `reciprocalRankSum`, `ndcgSum`, `counterfactualSum`, `ceilingSum`.
    var sums: SIMD4<Double>
    /// `decisions`, `decisionsWithTarget`, `hitsAt1`, `hitsAt3`, `activeHours`, `rotations`,
    /// `flickers`, `unnecessaryRotations`.
    var tallies: SIMD8<Int32>
    /// `decisionsWithTruth`, `dwells`, `dwellsBelowPivot`, `dwellsAtPivot`.
    var truthAndDwells: SIMD4<Int32>
    var liftSum: Double

    init(_ c: DayCounts) {
        sums = SIMD4(c.reciprocalRankSum, c.ndcgSum, c.counterfactualSum, c.ceilingSum)
        tallies = SIMD8(c.decisions, c.decisionsWithTarget, c.hitsAt1, c.hitsAt3, c.activeHours, c.rotations,
                        c.flickers, c.unnecessaryRotations)
        truthAndDwells = SIMD4(c.decisionsWithTruth, c.dwells, c.dwellsBelowPivot, c.dwellsAtPivot)
        liftSum = c.liftSum
    }
}

/// One policy's tallies of one user-day, flat: one 96-byte value per unit, so a resample's draw
/// reads one or two cache lines (rather than a `DecisionTally` with its array of dwells).
struct DayCounts: Sendable {
    var reciprocalRankSum: Double
    var ndcgSum: Double
    var counterfactualSum: Double
    var ceilingSum: Double
    var liftSum: Double
    var decisions: Int32
    var decisionsWithTarget: Int32
    var hitsAt1: Int32
    var hitsAt3: Int32
    var activeHours: Int32
    var rotations: Int32
    var flickers: Int32
    var unnecessaryRotations: Int32
    /// Finished dwells.
    var dwells: Int32
    var decisionsWithTruth: Int32
    /// Of these, shorter than the policy's pivot dwell value, and equal to it (`DwellOrder`).
    var dwellsBelowPivot: Int32 = 0
    var dwellsAtPivot: Int32 = 0

    /// The counts of `tally`; `user` names it in errors.
    init(_ tally: DecisionTally, user: String) throws(EvaluationError) {
        func narrow(_ value: Int, _ what: String) throws(EvaluationError) -> Int32 {
            guard value >= 0, let v = Int32(exactly: value) else {
                throw EvaluationError("user '\(user)': \(value) \(what) in one day is out of range")
            }
            return v
        }
        reciprocalRankSum = tally.reciprocalRankSum
        ndcgSum = tally.ndcgSum
        decisions = try narrow(tally.decisions, "decisions")
        decisionsWithTarget = try narrow(tally.decisionsWithTarget, "decisions with a target")
        hitsAt1 = try narrow(tally.hitsAt1, "hits at 1")
        hitsAt3 = try narrow(tally.hitsAt3, "hits at 3")
        activeHours = try narrow(tally.activeHours, "active hours")
        rotations = try narrow(tally.rotations, "rotations")
        flickers = try narrow(tally.flickers, "flickers")
        unnecessaryRotations = try narrow(tally.unnecessaryRotations, "unnecessary rotations")
        dwells = try narrow(tally.dwellMinutes.count, "dwells")
        decisionsWithTruth = try narrow(tally.decisionsWithTruth, "decisions with a ground-truth line")
        counterfactualSum = tally.counterfactualSum
        ceilingSum = tally.ceilingSum
        liftSum = tally.liftSum
    }
}
