/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast, seedable generator used for the bootstrap
/// and for deriving per-user seeds. Same seed, same sequence, on every platform.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// Starts the sequence at `seed`.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (Lemire's multiply-shift; negligible bias for the
    /// bounds used here, and identical on every platform).
    mutating func index(below bound: Int) -> Int {
        Int((UInt128(next()) * UInt128(bound)) >> 64)
    }

    /// Mixes two values into one well-spread 64-bit value (for seeds).
    static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var g = SplitMix64(seed: a ^ (b &* 0xD6E8_FEB8_6659_FD93))
        return g.next()
    }

    /// A stable 64-bit hash of a string (FNV-1a over UTF-8), unlike `Hasher` the same in every run.
    static func stableHash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }
}
