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
