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
        var sums = SIMD4<Double>.zero, liftSum = 0.0
        var tallies = SIMD8<Int64>.zero, truthAndDwells = SIMD4<Int64>.zero
        // 32-bit lanes where no sum can outgrow them (the table checked), widened once at the end.
        var tallies32 = SIMD8<Int32>.zero, truthAndDwells32 = SIMD4<Int32>.zero
        var universe = 0
        let policy = table.policies[p]
        let narrow = policy.countsSumIn32Bits
        policy.packed.withUnsafeBufferPointer { packed in
            policy.topWords.withUnsafeBufferPointer { topWords in
                table.users.withUnsafeBufferPointer { users in
                    table.dayUser.withUnsafeBufferPointer { dayUser in
                        for d in draws {
                            let i = Int(d)
                            let c = packed[i]
                            sums += c.sums
                            liftSum += c.liftSum
                            if narrow {
                                tallies32 &+= c.tallies
                                truthAndDwells32 &+= c.truthAndDwells
                            } else {
                                tallies &+= SIMD8<Int64>(truncatingIfNeeded: c.tallies)
                                truthAndDwells &+= SIMD4<Int64>(truncatingIfNeeded: c.truthAndDwells)
                            }
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
        if narrow {
            tallies = SIMD8<Int64>(truncatingIfNeeded: tallies32)
            truthAndDwells = SIMD4<Int64>(truncatingIfNeeded: truthAndDwells32)
        }
        var total = DecisionTally()
        total.reciprocalRankSum = sums[0]
        total.ndcgSum = sums[1]
        total.counterfactualSum = sums[2]
        total.ceilingSum = sums[3]
        total.liftSum = liftSum
        total.decisions = Int(tallies[0])
        total.decisionsWithTarget = Int(tallies[1])
        total.hitsAt1 = Int(tallies[2])
        total.hitsAt3 = Int(tallies[3])
        total.activeHours = Int(tallies[4])
        total.rotations = Int(tallies[5])
        total.flickers = Int(tallies[6])
        total.unnecessaryRotations = Int(tallies[7])
        total.decisionsWithTruth = Int(truthAndDwells[0])
        let dwells = Int(truthAndDwells[1]), below = Int(truthAndDwells[2]), atPivot = Int(truthAndDwells[3])
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
