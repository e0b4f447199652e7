import Foundation

/// The signal values SmartStack's `contextual` model computes for one candidate widget of a
/// stack at an instant, from the events recorded before it only.
///
/// `values` follow `FeatureVector.names`: the eight log-ratio signals the contextual score is a
/// weighted sum of (`base` … `feedback`, see `ContextualModel`), then raw evidence behind them:
/// `log1p` of the decayed frequency, of the short-term (1 h half-life) frequency, of the
/// time-of-day kernel count (same kind of day), of the count at the current place and of the
/// count after the previous app, and `log1p` of the hours since the widget was last used
/// (`-1` when never used).
///
/// ```swift
/// let vectors = try engine.featureVectors(stack: "home", at: now)
/// print(vectors[0].widget, vectors[0].values[FeatureVector.names.firstIndex(of: "time")!])
/// ```
public struct FeatureVector: Sendable, Hashable {
    /// The names of `values`, in order.
    public static let names = [
        "base", "time", "place", "sequence", "context", "recent", "hint", "feedback",
        "log_frequency", "log_recent_frequency", "log_time_kernel", "log_place_count",
        "log_after_app_count", "log_hours_since_use",
    ]
    /// The candidate widget's id.
    public var widget: String
    /// The feature values, in `FeatureVector.names` order.
    public var values: [Double]
    /// Whether the widget may be shown now (no active relevance hint `<= 0`).
    public var isEligible: Bool

    /// Creates a feature vector.
    public init(widget: String, values: [Double], isEligible: Bool) {
        self.widget = widget
        self.values = values
        self.isEligible = isEligible
    }
}

extension UserEngine {
    /// The feature vectors of every configured widget of `stack` at `time`, in the configured
    /// order, computed with the contextual model's feature code from the state as recorded so
    /// far (nothing is learned or rotated). The model's smoothing `prior` is this engine's.
    ///
    /// - Throws: `EngineError` for an unknown stack.
    /// - Complexity: O(widgets of the stack · (kernel bins + context pairs)).
    public func featureVectors(stack: String, at time: EventTime) throws(EngineError) -> [FeatureVector] {
        let s = try stackIndex(stack)
        let widgets = features.stackWidgets[s]
        var scratch = ScoringScratch()
        ContextualModel.features(features, widgets: widgets, at: time, prior: policy.prior, scratch: &scratch)
        let F = ContextualModel.featureCount
        let R = ScoringScratch.rawCount
        let ts = time.secondsSinceEpoch
        var out: [FeatureVector] = []
        out.reserveCapacity(widgets.count)
        for (i, w32) in widgets.enumerated() {
            let w = Int(w32)
            var values = Array(scratch.features[(i * F)..<(i * F + F)])
            let r = i * R
            for k in [1, 7, 3, 4, 5] { values.append(log1p(max(0, scratch.raw[r + k]))) }
            let last = features.lastUsed[w]
            values.append(last.isFinite && last <= ts ? log1p((ts - last) / 3600) : -1)
            out.append(FeatureVector(widget: features.widgets[w32], values: values, isEligible: features.isEligible(w, at: ts)))
        }
        return out
    }
}
