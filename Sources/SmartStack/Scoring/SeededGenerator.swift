/// SplitMix64 (Steele, Lea & Flood 2014): a small, fast, seedable generator whose whole state
/// is one integer, so it is trivially saved in a snapshot. Never seeded from the system; the same
/// seed gives the same sequence on every platform. The one SplitMix64 of the package: the
/// engine's exploration, the evaluator's bootstrap and seeds, the simulator's seeding, and the
/// benchmarks and tests use it.
package struct SeededGenerator: RandomNumberGenerator, Sendable, Codable, Hashable {
    package var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in [0, 1).
    package mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A uniform integer in `0..<bound` (Lemire's multiply-shift: the high word of
    /// `next() × bound`; negligible bias for the bounds used here, identical on every platform).
    package mutating func index(below bound: Int) -> Int {
        Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// Mixes two values into one well-spread 64-bit value (for deriving seeds).
    package static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var g = SeededGenerator(seed: a ^ (b &* 0xD6E8_FEB8_6659_FD93))
        return g.next()
    }

    /// FNV-1a hash of a string's UTF-8 bytes: unlike `Hasher`, the same in every run (gives each
    /// user an independent stream from one seed).
    package static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return h
    }
}
