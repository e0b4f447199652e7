import Testing
import SmartStack
@testable import SmartStackEvaluation

/// The off-policy bootstrap splits its resamples among threads and sums shared columns of terms
/// once; its replicates stay those of one generator drawing resample after resample.
@Suite struct OffPolicyResampleTests {
    /// The replicates as one thread drawing every resample in turn computes them, every
    /// numerator and denominator summed apart.
    static func reference(_ parts: [(numerator: [Double], denominator: [Double]?)], rounds n: Int, samples: Int,
                          seed: UInt64) -> [[Double]] {
        var generator = SeededGenerator(seed: seed)
        var replicates = [[Double]](repeating: [], count: parts.count)
        for _ in 0..<samples {
            var num = [Double](repeating: 0, count: parts.count), den = num
            for _ in 0..<n {
                let i = generator.index(below: n)
                for (k, part) in parts.enumerated() {
                    num[k] += part.numerator[i]
                    den[k] += part.denominator?[i] ?? 1
                }
            }
            for k in parts.indices where den[k] > 0 { replicates[k].append(num[k] / den[k]) }
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
