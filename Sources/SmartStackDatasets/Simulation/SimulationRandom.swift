import SmartStack

#if canImport(Glibc)
import Glibc
@inline(__always) func _log(_ x: Double) -> Double { Glibc.log(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Glibc.cos(x) }
@inline(__always) func _exp(_ x: Double) -> Double { Glibc.exp(x) }
#elseif canImport(Darwin)
import Darwin
@inline(__always) func _log(_ x: Double) -> Double { Darwin.log(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Darwin.cos(x) }
@inline(__always) func _exp(_ x: Double) -> Double { Darwin.exp(x) }
#else
import Foundation
@inline(__always) func _log(_ x: Double) -> Double { Foundation.log(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Foundation.cos(x) }
@inline(__always) func _exp(_ x: Double) -> Double { Foundation.exp(x) }
#endif

/// The simulator's seeded pseudo-random generator: xoshiro256** seeded through SplitMix64.
///
/// Every random choice the persona simulator makes goes through one of these, so the same seed
/// always gives the same output, on every platform. It never touches the system's generator.
///
/// ```swift
/// var rng = SimulationRandom(seed: 42)
/// let u = rng.nextDouble()        // in [0, 1)
/// let k = rng.nextInt(below: 6)   // in 0..<6
/// ```
public struct SimulationRandom: Sendable, Hashable, RandomNumberGenerator {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// A generator whose whole sequence is determined by `seed`.
    public init(seed: UInt64) {
        var sm = seed
        s0 = SimulationRandom.splitMix(&sm)
        s1 = SimulationRandom.splitMix(&sm)
        s2 = SimulationRandom.splitMix(&sm)
        s3 = SimulationRandom.splitMix(&sm)
        if s0 | s1 | s2 | s3 == 0 { s0 = 0x9E37_79B9_7F4A_7C15 }
    }

    /// One step of SplitMix64: advances `state` and returns a well-mixed value.
    public static func splitMix(_ state: inout UInt64) -> UInt64 {
        var g = SeededGenerator(seed: state)
        defer { state = g.state }
        return g.next()
    }

    /// Mixes several values into one seed (order matters), for deriving independent streams.
    ///
    /// Each part is folded into the mixer's output so far, not into a state that only advanced
    /// by a constant: otherwise `(seed, i)` and `(seed', i')` reached the same state whenever
    /// `seed ^ seed'` equalled `i ^ i'` in the low bits, and seeds 1 and 2 simulated the same
    /// people under other user indices.
    public static func derive(_ parts: UInt64...) -> UInt64 {
        var state: UInt64 = 0x5353_5F53_494D_0001
        for p in parts {
            state ^= p
            state = splitMix(&state)
        }
        return state
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// A uniform double in [0, 1) with 53 random bits.
    public mutating func nextDouble() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform integer in `0..<bound` (`bound > 0`), without modulo bias.
    public mutating func nextInt(below bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(truncatingIfNeeded: next(upperBound: UInt64(bound)))
    }

    /// A uniform double in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextDouble()
    }

    /// `true` with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { nextDouble() < p }

    /// A standard normal draw (Box–Muller, one of the pair).
    public mutating func normal() -> Double {
        let u1 = max(nextDouble(), 0x1.0p-60)
        let u2 = nextDouble()
        return (-2 * _log(u1)).squareRoot() * _cos(2 * Double.pi * u2)
    }

    /// An exponential draw with the given mean.
    public mutating func exponential(mean: Double) -> Double {
        -mean * _log(1 - nextDouble())
    }

    /// An index drawn with probability proportional to `weights` (non-negative, some positive).
    ///
    /// - Complexity: O(n).
    public mutating func pick(weights: [Double]) -> Int {
        var total = 0.0
        for w in weights { total += w }
        var r = nextDouble() * total
        var last = 0
        for (i, w) in weights.enumerated() where w > 0 {
            if r < w { return i }
            r -= w
            last = i
        }
        return last
    }
}
