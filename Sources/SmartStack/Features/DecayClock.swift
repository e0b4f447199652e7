import Foundation

/// Exponential decay with a half-life, kept exact and O(1) per update.
///
/// A count added at time `t` is stored multiplied by `exp((t - origin) / tau)`; reading at time
/// `now` multiplies by `exp(-(now - origin) / tau)`. Every count of one clock therefore decays
/// together without touching it. When stored weights would grow too large the owner rescales
/// its arrays once (`needsRescale`), which is amortised O(1) per event. A late event simply gets
/// the (smaller) weight of its own time: it is decayed exactly as if it had arrived on time.
struct DecayClock: Sendable, Codable, Hashable {
    /// e-folding time in seconds (`halfLife / ln 2`).
    var tau: Double
    /// The time (Unix seconds) at which stored weights equal real weights.
    var origin: Double

    init(halfLife: Double, origin: Double = 0) {
        self.tau = halfLife / M_LN2
        self.origin = origin
    }

    /// The stored weight of a unit added at `t`.
    @inline(__always) func weight(at t: Double) -> Double { exp((t - origin) / tau) }

    /// The factor turning stored weights into real weights at `now`.
    @inline(__always) func factor(at now: Double) -> Double { exp((origin - now) / tau) }

    /// Whether adding at `t` would make stored weights large enough to lose precision.
    func needsRescale(at t: Double) -> Bool { (t - origin) / tau > 200 }
}
