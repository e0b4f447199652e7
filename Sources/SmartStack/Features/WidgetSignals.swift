/// One interned widget's scalar signals: `FeatureState.signals[w]`, appended with these
/// initial values when widget `w` is interned.
///
/// A new per-widget signal is one stored property here (its initial value included) plus its
/// update in `FeatureState`; a decayed one also scales in `rescale(_:by:)`. Snapshots save the
/// properties in declaration order, so adding one needs a new `UserEngine.Snapshot` version.
///
/// ```swift
/// fs.signals[w].usage += fs.longClock.weight(at: ts)   // subscripted in place
/// ```
struct WidgetSignals: Sendable, Codable, Hashable {
    /// The app whose launches engage the widget (index in `FeatureState.apps`), `-1` if none.
    var app: Int32 = -1
    /// Engagements decayed with the long clock (`half_life`).
    var usage = 0.0
    /// Engagements decayed with the recent clock (`recent_half_life`).
    var recent = 0.0
    /// The latest engagement (Unix seconds, `FeatureState.never` if none) and its UTC offset.
    var lastUsed = FeatureState.never
    var lastUsedOffset: Int32 = 0
    /// Engagements of all time, not decayed.
    var totalUses = 0.0
    /// Engagements decayed with the frecency clock, for the `frecency` baseline.
    var frecency = 0.0
    /// Rejections of all time, not decayed (for explanations).
    var rejectionTotal = 0.0
    /// The hint in force: its score, active from `hintStart` until `hintEnd`, and its UTC offset.
    var hintScore = 0.0
    var hintStart = FeatureState.never
    var hintEnd = FeatureState.never
    var hintOffset: Int32 = 0
    /// The largest, the sum and the number of the widget's positive hints.
    var hintMax = 0.0
    var hintSum = 0.0
    var hintCount = 0.0

    /// The decay clocks of `FeatureState`, for `rescale(_:by:)`.
    enum Clock { case long, recent, frecency }

    /// Multiplies the signals decayed with `clock` by `factor` (the clock's rescale).
    @inline(__always) mutating func rescale(_ clock: Clock, by factor: Double) {
        switch clock {
        case .long: usage *= factor
        case .recent: recent *= factor
        case .frecency: frecency *= factor
        }
    }
}
