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
}
