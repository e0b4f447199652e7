import Testing
import SmartStack
@testable import SmartStackEvaluation

/// The off-policy bootstrap splits its resamples among threads and sums shared columns of terms
/// once; its replicates stay those of one generator drawing resample after resample.
@Suite struct OffPolicyResampleTests {
    /// The replicates as one thread drawing every resample in turn computes them, every
    /// numerator and denominator summed apart: each round's terms times the times it was drawn,
    /// in round order.
    static func reference(_ parts: [(numerator: [Double], denominator: [Double]?)], rounds n: Int, samples: Int,
                          seed: UInt64) -> [[Double]] {
        var generator = SeededGenerator(seed: seed)
        var replicates = [[Double]](repeating: [], count: parts.count)
        for _ in 0..<samples {
            var times = [Int](repeating: 0, count: n)
            for _ in 0..<n { times[generator.index(below: n)] += 1 }
            var num = [Double](repeating: 0, count: parts.count)
            for i in 0..<n where times[i] > 0 {
                for (k, part) in parts.enumerated() { num[k] += Double(times[i]) * part.numerator[i] }
            }
            for k in parts.indices {
                var den = Double(n)
                if let d = parts[k].denominator {
                    den = 0
                    for i in 0..<n where times[i] > 0 { den += Double(times[i]) * d[i] }
                }
                if den > 0 { replicates[k].append(num[k] / den) }
            }
        }
        return replicates
    }

    @Test func replicatesAreOneGeneratorsForAnyThreadsWithSharedColumns() {
        var g = SeededGenerator(seed: 5)
        let n = 257
        let a = (0..<n).map { _ in g.nextUnit() }
        let b = (0..<n).map { $0 == 3 || $0 == 100 ? g.nextUnit() + 0.5 : 0 }   // a ratio undefined in some resamples
        let c = (0..<n).map { _ in g.nextUnit() * 3 }
        let parts: [(numerator: [Double], denominator: [Double]?)] = [(a, nil), (a, c), (c, b), (b, nil), (a, nil)]
        let expected = Self.reference(parts, rounds: n, samples: 101, seed: 9)
        #expect(expected[2].count < 101)   // some resamples left out
        for threads in [1, 2, 3, 8] {
            let got = RoundTerms.bootstrapReplicates(parts, rounds: n, samples: 101, seed: 9, threads: threads)
            #expect(got.map { $0.map(\.bitPattern) } == expected.map { $0.map(\.bitPattern) }, "threads \(threads)")
        }
    }

    @Test func advancingTheGeneratorSkipsExactlyThatManyDraws() {
        var stepped = SeededGenerator(seed: 42)
        for k in 0..<1000 {
            #expect(SeededGenerator(seed: 42).advanced(by: UInt64(k)) == stepped)
            _ = stepped.next()
        }
    }
    /// Units of rounds: each resample draws as many units as there are and takes all their
    /// rounds; a mean divides by the rounds drawn.
    static func clusteredReference(_ parts: [(numerator: [Double], denominator: [Double]?)], units: [Int],
                                   unitCount g: Int, samples: Int, seed: UInt64) -> [[Double]] {
        var generator = SeededGenerator(seed: seed)
        var replicates = [[Double]](repeating: [], count: parts.count)
        for _ in 0..<samples {
            var times = [Int](repeating: 0, count: g)
            for _ in 0..<g { times[generator.index(below: g)] += 1 }
            for (k, part) in parts.enumerated() {
                var num = 0.0, den = 0.0
                for (i, u) in units.enumerated() where times[u] > 0 {
                    num += Double(times[u]) * part.numerator[i]
                    den += Double(times[u]) * (part.denominator?[i] ?? 1)
                }
                if den > 0 { replicates[k].append(num / den) }
            }
        }
        return replicates
    }

    @Test func clusteredReplicatesResampleWholeUnitsForAnyThreads() {
        var g = SeededGenerator(seed: 11)
        let n = 300
        let units = (0..<n).map { ($0 * 7) % 23 }   // 23 units, rounds interleaved
        let a = (0..<n).map { _ in g.nextUnit() }
        let c = (0..<n).map { _ in g.nextUnit() * 2 }
        let parts: [(numerator: [Double], denominator: [Double]?)] = [(a, nil), (a, c), (c, nil)]
        let expected = Self.clusteredReference(parts, units: units, unitCount: 23, samples: 64, seed: 3)
        for threads in [1, 2, 5] {
            let got = RoundTerms.bootstrapReplicates(parts, rounds: n, units: units, unitCount: 23,
                                                     samples: 64, seed: 3, threads: threads)
            #expect(got.count == expected.count)
            for (x, y) in zip(got, expected) {
                #expect(x.count == y.count)
                for (u, v) in zip(x, y) { #expect(abs(u - v) <= 1e-12 * max(1, abs(v)), "threads \(threads)") }
            }
        }
    }

    @Test func oneRoundPerUnitIsTheRoundBootstrapExactly() {
        var g = SeededGenerator(seed: 8)
        let n = 97
        let a = (0..<n).map { _ in g.nextUnit() }
        let c = (0..<n).map { _ in g.nextUnit() + 0.1 }
        let parts: [(numerator: [Double], denominator: [Double]?)] = [(a, nil), (a, c)]
        let plain = RoundTerms.bootstrapReplicates(parts, rounds: n, samples: 50, seed: 1)
        let units = RoundTerms.bootstrapReplicates(parts, rounds: n, units: Array(0..<n), unitCount: n,
                                                   samples: 50, seed: 1)
        #expect(plain.map { $0.map(\.bitPattern) } == units.map { $0.map(\.bitPattern) })
    }

    /// Rounds of one day that share their outcome are one piece of evidence, not many: naming
    /// the day as the rounds' cluster widens the interval; rounds without a cluster are units
    /// of their own, and a negative cluster is refused with the round and field.
    @Test func clustersOfCorrelatedRoundsWidenTheInterval() throws {
        var g = SeededGenerator(seed: 21)
        var rounds: [LoggedRound] = []
        for day in 0..<30 {
            let engaged: Double = g.nextUnit() < 0.5 ? 1 : 0   // the whole day engages or not
            for _ in 0..<20 {
                rounds.append(LoggedRound(candidateCount: 2, loggedAction: 0, propensity: 0.5, reward: engaged,
                                          targetDistribution: [1, 0], contextKey: "s", cluster: day))
            }
        }
        let clustered = try OffPolicyEvaluation.estimate(rounds, estimators: [.ips()], seed: 4)
        let loose = try OffPolicyEvaluation.estimate(rounds.map { var r = $0; r.cluster = nil; return r },
                                                     estimators: [.ips()], seed: 4)
        let wide = try #require(clustered.estimates[0].interval), narrow = try #require(loose.estimates[0].interval)
        #expect(clustered.estimates[0].value == loose.estimates[0].value)
        #expect(wide[1] - wide[0] > 3 * (narrow[1] - narrow[0]))
        var bad = rounds
        bad[5].cluster = -1
        #expect(throws: OffPolicyError(round: 5, field: "cluster", message: "must be >= 0, got -1")) {
            try OffPolicyEvaluation.estimate(bad, seed: 1)
        }
    }
    /// The evaluator's one-hot rounds give exactly what the general estimator gives on the same
    /// rounds written out as `LoggedRound`s (one-hot targets, the same predictions, the unit as
    /// cluster): values, intervals and diagnostics.
    @Test func oneHotRoundsMatchTheGeneralEstimator() throws {
        var g = SeededGenerator(seed: 33)
        var fast = UnitTerms(estimators: OffPolicyEstimator.standard, clustered: true)
        var rounds: [LoggedRound] = []
        for i in 0..<400 {
            let k = 2 + g.index(below: 4)
            let top = g.index(below: k), logged = g.index(below: k)
            let propensity = i % 37 == 0 ? 1 : 0.1 + 0.9 * g.nextUnit()
            let reward: Double = g.nextUnit() < 0.3 ? 1 : 0
            var q = (0..<k).map { _ in g.nextUnit() * 0.5 }
            q[top] = g.nextUnit()
            let unit = i / 9
            fast.addOneHot(top: top, logged: logged, propensity: propensity, reward: reward, qTop: q[top],
                           qLogged: q[logged], unit: unit)
            var target = [Double](repeating: 0, count: k)
            target[top] = 1
            rounds.append(LoggedRound(candidateCount: k, loggedAction: logged, propensity: propensity, reward: reward,
                                      targetDistribution: target, estimatedRewards: q, cluster: unit))
        }
        let general = try OffPolicyEvaluation.estimate(rounds, bootstrap: BootstrapOptions(samples: 200), seed: 6)
        #expect(fast.result(bootstrap: BootstrapOptions(samples: 200), seed: 6) == general)
        #expect(general.diagnostics.supportKnownRounds > 0)
    }
}

/// Arbitrary per-round terms through the off-policy bootstrap.
extension RoundTerms {
    /// The bootstrap replicates of per-round terms given as columns (`parts`: each estimator's
    /// numerator and, for a ratio, denominator per round), each round its own unit or, with
    /// `units`, grouped into `unitCount` units: the table `RoundTerms.replicates` reads, built
    /// with each bit-for-bit distinct column once, as `UnitTerms` builds it.
    static func bootstrapReplicates(_ parts: [(numerator: [Double], denominator: [Double]?)], rounds n: Int,
                                    units: [Int]? = nil, unitCount: Int = 0,
                                    samples: Int, seed: UInt64, threads: Int = 1) -> [[Double]] {
        var columns: [[Double]] = []
        func column(_ terms: [Double]) -> Int {
            if let k = columns.firstIndex(where: { $0.elementsEqual(terms) { $0.bitPattern == $1.bitPattern } }) { return k }
            columns.append(terms)
            return columns.count - 1
        }
        let numerator = parts.map { column($0.numerator) }
        let denominator = parts.map { $0.denominator.map(column) }
        let c = columns.count
        // Unit-major layout so one unit's terms are one contiguous run; with units, a last
        // column counts each unit's rounds (a mean's denominator).
        var terms: [Double]
        if let units {
            terms = [Double](repeating: 0, count: unitCount * (c + 1))
            for i in 0..<n {
                let base = units[i] * (c + 1)
                for (k, column) in columns.enumerated() { terms[base + k] += column[i] }
                terms[base + c] += 1
            }
        } else {
            terms = [Double](repeating: 0, count: n * c)
            for (k, column) in columns.enumerated() { for i in 0..<n { terms[i * c + k] = column[i] } }
        }
        return replicates(UnitTable(terms: terms, width: units == nil ? c : c + 1, units: units == nil ? n : unitCount,
                                    numerator: numerator, denominator: denominator,
                                    countColumn: units == nil ? nil : c, rounds: n),
                          samples: samples, seed: seed, threads: threads)
    }
}
