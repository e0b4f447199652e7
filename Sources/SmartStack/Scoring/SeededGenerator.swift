/// SplitMix64 (Steele, Lea & Flood 2014): a small, fast, seedable generator whose whole state
/// is one integer, so it is trivially saved in a snapshot. Never seeded from the system.
struct SeededGenerator: RandomNumberGenerator, Sendable, Codable, Hashable {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// FNV-1a hash of a string, to give each user an independent stream from one seed.
    static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return h
    }
}
