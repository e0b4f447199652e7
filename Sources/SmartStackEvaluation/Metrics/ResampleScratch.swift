import SmartStack

/// One thread's working memory for measuring resamples of a `ScoredDays` table: the units drawn
/// and what the metrics need besides sums (users seen, coverage bits per user, multiplicities
/// for the median), reused from one resample to the next so a resample allocates nothing.
struct ResampleScratch {
    /// The units of the current resample, in draw order (sums are taken in this order, so
    /// floating-point totals are those of adding the units' tallies one after another).
    private(set) var draws: [Int32]
    /// Multiplicity of each unit in `draws`, counted only when a median needs it.
    private var weights: [Int32]
    private var weightsAreCounted = false
    /// Per user, the stamp of the measurement that last saw it.
    private var seen: [UInt32]
    private var stamp: UInt32 = 0
    private var touched: [Int] = []
    /// Per user (at `UserSlot.scratchBase`), the OR of its drawn units' coverage words.
    private var covered: [UInt64]

    /// Scratch sized for `table`.
    init(_ table: ScoredDays) {
        draws = Array(repeating: 0, count: table.unitCount)
        weights = Array(repeating: 0, count: table.unitCount)
        seen = Array(repeating: 0, count: table.users.count)
        covered = Array(repeating: 0, count: table.totalUserWords)
    }

    /// Draws `draws.count` units uniformly with replacement from `generator`.
    mutating func draw(_ generator: inout SeededGenerator) {
        clearWeights()
        let n = draws.count
        for i in 0..<n { draws[i] = Int32(truncatingIfNeeded: generator.index(below: n)) }
    }

    /// Makes the resample every unit once, in order.
    mutating func drawAll() {
        clearWeights()
        for i in draws.indices { draws[i] = Int32(truncatingIfNeeded: i) }
    }

    /// Makes the resample `units` (as many as the table has), in this order.
    mutating func draw(_ units: [Int32]) {
        precondition(units.count == draws.count)
        clearWeights()
        draws = units
    }

    private mutating func clearWeights() {
        guard weightsAreCounted else { return }
        for i in draws { weights[Int(i)] = 0 }
        weightsAreCounted = false
    }

    /// The metrics of `policy` over the drawn units: what summing their tallies and sorting
    /// their dwells would give, bit for bit.
    ///
    /// - Complexity: O(draws + coverage words drawn), plus the median's walk off its pivot.
    mutating func values(of table: ScoredDays, policy p: Int) -> MetricValues {
        stamp &+= 1
        if stamp == 0 {   // wrapped: forget every earlier stamp
            for u in seen.indices { seen[u] = 0 }
            stamp = 1
        }
        var total = DecisionTally()
        var dwells = 0, below = 0, atPivot = 0, universe = 0
        let policy = table.policies[p]
        policy.counts.withUnsafeBufferPointer { counts in
            policy.topWords.withUnsafeBufferPointer { topWords in
                table.users.withUnsafeBufferPointer { users in
                    table.dayUser.withUnsafeBufferPointer { dayUser in
                        for d in draws {
                            let i = Int(d)
                            let c = counts[i]
                            total.decisions += Int(c.decisions)
                            total.decisionsWithTarget += Int(c.decisionsWithTarget)
                            total.hitsAt1 += Int(c.hitsAt1)
                            total.hitsAt3 += Int(c.hitsAt3)
                            total.reciprocalRankSum += c.reciprocalRankSum
                            total.ndcgSum += c.ndcgSum
                            total.activeHours += Int(c.activeHours)
                            total.rotations += Int(c.rotations)
                            total.flickers += Int(c.flickers)
                            total.unnecessaryRotations += Int(c.unnecessaryRotations)
                            total.decisionsWithTruth += Int(c.decisionsWithTruth)
                            total.counterfactualSum += c.counterfactualSum
                            total.ceilingSum += c.ceilingSum
                            total.liftSum += c.liftSum
                            dwells += Int(c.dwells)
                            below += Int(c.dwellsBelowPivot)
                            atPivot += Int(c.dwellsAtPivot)
                            let u = Int(dayUser[i])
                            let slot = users[u]
                            if seen[u] != stamp {
                                seen[u] = stamp
                                touched.append(u)
                                universe += Int(slot.universe)
                            }
                            let words = Int(slot.words)
                            let source = slot.wordBase + (i - slot.firstUnit) * words
                            for w in 0..<words { covered[slot.scratchBase + w] |= topWords[source + w] }
                        }
                    }
                }
            }
        }
        var coveredPairs = 0
        for u in touched {
            let slot = table.users[u]
            for w in slot.scratchBase..<(slot.scratchBase + Int(slot.words)) {
                coveredPairs += covered[w].nonzeroBitCount
                covered[w] = 0
            }
        }
        touched.removeAll(keepingCapacity: true)

        if policy.dwells.walksOffPivot(count: dwells, below: below, atPivot: atPivot) {
            countWeights()   // the walk reads multiplicities
        }
        let median = weights.withUnsafeBufferPointer {
            policy.dwells.median(count: dwells, below: below, atPivot: atPivot, weight: $0)
        }
        return MetricValues(total, medianDwell: median, covered: coveredPairs, universe: universe)
    }

    private mutating func countWeights() {
        guard !weightsAreCounted else { return }
        for i in draws { weights[Int(i)] += 1 }
        weightsAreCounted = true
    }
}
