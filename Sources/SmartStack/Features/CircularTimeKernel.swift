import Foundation

/// Time of day as a circular quantity: engagements are counted in 96 bins of 15 minutes of the
/// event's own local time, and read back through a von Mises kernel, so 23:50 is as close to
/// 00:10 as 08:55 is to 09:05.
///
/// The kernel `exp(kappa * (cos(angle) - 1))` has `kappa = 1 / bandwidth²` (bandwidth in
/// radians of the day circle); it is evaluated at the exact query second (not the bin centre)
/// and truncated at ±`reach` bins, where it is below 0.05 for the default 45-minute bandwidth.
struct CircularTimeKernel: Sendable, Codable, Hashable {
    static let bins = 96
    static let binSeconds = 900
    let kappa: Double
    let reach: Int

    init(bandwidth: Double) {
        let radians = 2 * Double.pi * bandwidth / 86_400
        kappa = 1 / (radians * radians)
        // Reach where the kernel falls below ~0.03: (1 - cos θ) * kappa ≈ 3.5.
        let theta = acos(max(-1, 1 - 3.5 / kappa))
        reach = min(Self.bins / 2 - 1, max(2, Int((theta / (2 * Double.pi) * Double(Self.bins)).rounded(.up))))
    }

    /// The bin of a local second of day.
    @inline(__always) static func bin(ofSecond s: Int) -> Int { s / binSeconds }

    /// Fills `weights` (size `2 * reach + 1`) with kernel weights for bins
    /// `first ..< first + 2*reach+1` (mod 96) around local second `s`; returns `first`.
    func weights(atSecond s: Int, into weights: inout [Double]) -> Int {
        let centre = Self.bin(ofSecond: s)
        let first = centre - reach
        let count = 2 * reach + 1
        if weights.count != count { weights = [Double](repeating: 0, count: count) }
        for k in 0..<count {
            let binMid = (Double(first + k) + 0.5) * Double(Self.binSeconds)
            let angle = 2 * Double.pi * (binMid - Double(s)) / 86_400
            weights[k] = exp(kappa * (cos(angle) - 1))
        }
        return first
    }
}
