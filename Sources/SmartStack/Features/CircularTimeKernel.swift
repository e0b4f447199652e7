import Foundation

/// Time of day as a circular quantity: engagements are counted in 96 bins of 15 minutes of the
/// event's own local time, and read back through a von Mises kernel, so 23:50 is as close to
/// 00:10 as 08:55 is to 09:05.
///
/// The kernel `exp(kappa * (cos(angle) - 1))` has `kappa = 1 / bandwidth²` (bandwidth in
/// radians of the day circle); it is evaluated at the query's minute (not the bin centre) from
/// a precomputed table, and truncated at ±`reach` bins, where it is below ~0.03.
struct CircularTimeKernel: Sendable, Codable, Hashable {
    static let bins = 96
    static let binSeconds = 900
    let bandwidth: Double
    let kappa: Double
    let reach: Int
    /// Weights for each query minute within a bin (15 rows) × `2 * reach + 1` bins.
    private let table: [Double]

    init(bandwidth: Double) {
        self.bandwidth = bandwidth
        let radians = 2 * Double.pi * bandwidth / 86_400
        let kappa = 1 / (radians * radians)
        self.kappa = kappa
        // Reach where the kernel falls below ~0.03: (1 - cos θ) * kappa ≈ 3.5.
        let theta = acos(max(-1, 1 - 3.5 / kappa))
        let reach = min(Self.bins / 2 - 1, max(2, Int((theta / (2 * Double.pi) * Double(Self.bins)).rounded(.up))))
        self.reach = reach
        let count = 2 * reach + 1
        var table = [Double](repeating: 0, count: 15 * count)
        for minute in 0..<15 {
            let query = Double(minute * 60 + 30)  // seconds into the centre bin
            for k in 0..<count {
                let binMid = (Double(k - reach) + 0.5) * Double(Self.binSeconds)
                let angle = 2 * Double.pi * (binMid - query) / 86_400
                table[minute * count + k] = exp(kappa * (cos(angle) - 1))
            }
        }
        self.table = table
    }

    enum CodingKeys: String, CodingKey { case bandwidth }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(bandwidth: try c.decode(Double.self, forKey: .bandwidth))
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bandwidth, forKey: .bandwidth)
    }

    /// The bin of a local second of day.
    @inline(__always) static func bin(ofSecond s: Int) -> Int { s / binSeconds }

    /// Calls `body` with the first bin (`first ..< first + 2*reach+1`, mod 96; may be negative)
    /// and the `2 * reach + 1` kernel weights of those bins around local second `s`, read in
    /// place from the table (no copy).
    @inline(__always)
    func withWeights<T>(atSecond s: Int, _ body: (_ first: Int, _ weights: UnsafeBufferPointer<Double>) -> T) -> T {
        let count = 2 * reach + 1
        let row = (s % Self.binSeconds) / 60 * count
        let first = Self.bin(ofSecond: s) - reach
        return table.withUnsafeBufferPointer { body(first, UnsafeBufferPointer(rebasing: $0[row ..< row + count])) }
    }
}
