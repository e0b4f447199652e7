import Foundation

/// What rotations inside the dwell would have won, per person: the evidence that lets the
/// rotation policy skip its dwell where the person's next need is predictable.
///
/// Each time the rotation policy holds the top (or rotates early) while a challenger is
/// stronger by at least the margin but the top has been shown for less than the dwell, the
/// ledger keeps the pair (challenger, incumbent) and the challenger's relative `gain` (how
/// confident the scorer is). The stack's first engagement within
/// `DwellLedger.outcomeWindow` settles it: a *win* if it was the challenger, a *loss* if it was
/// the incumbent (anything else says nothing about the choice between them). Wins and losses
/// are kept per cell — a gain band (`bands` equal bands of 0...1), split by whether the
/// challenger is the widget the top replaced (a return, the signature of a wobble) — decayed
/// with the policy's `half_life`, and a rotation inside the dwell is made only when the
/// one-sided lower confidence bound of the cell's win share (Beta(1, 1) prior, normal approximation) is above
/// 1/2 at the rotation parameter `confidence`: the data must show that, for this person and
/// this much confidence of the scorer, early rotations are right more often than the top they
/// replace. The prior (Beta, worth two outcomes) is the scorer's own claim for the contest, so a
/// near-certain challenger need not wait for a record. A cell that does not convince on its own
/// is tested again on the pooled counts of its kind's bands up to its own: the win share rises
/// with the gain, so weaker challengers' record is a conservative witness for a stronger one
/// (never the other way), and a thin cell earns calm from the first day. Noisy score wobbles
/// never earn it; a strong sequence, hint or place change does.
///
/// ```swift
/// var ledger = DwellLedger()
/// let cell = DwellLedger.cell(gain: 0.9, isReturn: false)
/// ledger.settle(cell: cell, challengerWon: true, at: 0, halfLife: 14 * 86_400)
/// ledger.allowsEarlyRotation(cell: cell, gain: 0.9, z: DwellLedger.z(confidence: 0.95), at: 60, halfLife: 14 * 86_400)
/// ```
struct DwellLedger: Sendable, Codable, Hashable {
    /// Equal bands of the challenger's relative gain in 0...1.
    static let bands = 5
    /// Cells: the bands for new challengers, then for returns.
    static let cells = 2 * bands
    /// Seconds after a decision within which the stack's first engagement settles it (the
    /// evaluator's default attribution window).
    static let outcomeWindow = 600.0

    /// Decayed wins and losses per cell, and when each cell was last decayed.
    private(set) var wins = [Double](repeating: 0, count: DwellLedger.cells)
    private(set) var losses = [Double](repeating: 0, count: DwellLedger.cells)
    private(set) var updated = [Double](repeating: -Double.infinity, count: DwellLedger.cells)

    init() {}

    /// The cell of a challenger with relative gain `gain` (0...1), returning to the widget the
    /// top replaced or not.
    @inline(__always) static func cell(gain: Double, isReturn: Bool) -> Int {
        let band = gain.isFinite ? min(bands - 1, max(0, Int(gain * Double(bands)))) : 0
        return isReturn ? bands + band : band
    }

    /// The decay factor from `from` to `to` with `halfLife` (1 when nothing is stored yet).
    @inline(__always) private static func decay(from: Double, to: Double, halfLife: Double) -> Double {
        guard from.isFinite, to > from, halfLife > 0 else { return 1 }
        return exp2(-(to - from) / halfLife)
    }

    /// Records that, in cell `b`, the challenger (or the incumbent) was the widget engaged.
    mutating func settle(cell b: Int, challengerWon: Bool, at ts: Double, halfLife: Double) {
        guard b >= 0, b < Self.cells else { return }
        let f = Self.decay(from: updated[b], to: ts, halfLife: halfLife)
        wins[b] *= f
        losses[b] *= f
        if ts > updated[b] || !updated[b].isFinite { updated[b] = ts }
        if challengerWon { wins[b] += 1 } else { losses[b] += 1 }
    }

    /// Whether the evidence in cell `b` says an early rotation wins more often than it loses,
    /// with one-sided confidence given by the normal quantile `z`, for a challenger of relative
    /// gain `gain`. Before any evidence the scorer's own claim stands in for it, worth two
    /// outcomes: a challenger `1/(1 − gain)` times as strong as the top should win a share
    /// `1/(2 − gain)` of the contests between them (the Beta prior's mean), so only a very
    /// confident challenger (gain above about 0.82 at 95%) rotates before the record exists.
    func allowsEarlyRotation(cell b: Int, gain: Double, z: Double, at ts: Double, halfLife: Double) -> Bool {
        guard b >= 0, b < Self.cells, z.isFinite, gain.isFinite else { return false }
        let claim = 1 / (2 - min(1, max(0, gain)))
        @inline(__always) func convinces(wins w: Double, losses l: Double) -> Bool {
            let alpha = w + 2 * claim, beta = l + 2 * (1 - claim)
            let mean = alpha / (alpha + beta)
            let variance = mean * (1 - mean) / (alpha + beta + 1)
            return mean - z * variance.squareRoot() > 0.5
        }
        let f = Self.decay(from: updated[b], to: ts, halfLife: halfLife)
        if convinces(wins: wins[b] * f, losses: losses[b] * f) { return true }
        // Challengers at least as confident win at least as often (the win share rises with the
        // gain), so the record of this cell's kind at lower gains is a conservative witness too:
        // its pooled counts let a thin cell borrow evidence without borrowing optimism.
        let first = b < Self.bands ? 0 : Self.bands
        guard b > first else { return false }
        var w = 0.0, l = 0.0
        for c in first...b {
            let fc = Self.decay(from: updated[c], to: ts, halfLife: halfLife)
            w += wins[c] * fc
            l += losses[c] * fc
        }
        return convinces(wins: w, losses: l)
    }

    /// Whether the stored counts are usable (checked when restoring a snapshot).
    var isConsistent: Bool {
        wins.count == Self.cells && losses.count == Self.cells && updated.count == Self.cells
            && (wins + losses).allSatisfy { $0.isFinite && $0 >= 0 }
    }

    /// The one-sided standard normal quantile for `confidence` in (0.5, 1) (Acklam's rational
    /// approximation, relative error below 1.2e-9); +∞ at 1 and above (never rotate early).
    static func z(confidence p: Double) -> Double {
        guard p < 1 else { return .infinity }
        guard p > 0.5 else { return 0 }
        let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                 -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        if p > 0.97575 {
            let q = (-2 * log(1 - p)).squareRoot()
            return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        let q = p - 0.5, r = q * q
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
}
