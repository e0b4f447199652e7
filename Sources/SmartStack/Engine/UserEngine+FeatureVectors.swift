extension UserEngine {
    /// The feature vectors of every configured widget of `stack` at `time`, in the configured
    /// order, computed with the contextual model's feature code from the state as recorded so
    /// far (nothing is learned or rotated). The model's smoothing `prior` is this engine's.
    ///
    /// - Throws: ``EngineError`` of kind ``EngineError/Kind/unknownStack`` for an unknown stack.
    /// - Complexity: O(widgets of the stack · (kernel bins + context pairs)).
    public func featureVectors(stack: String, at time: EventTime) throws(EngineError) -> [FeatureVector] {
        let s = try stackIndex(stack)
        return ContextualModel.featureVectors(features, widgets: features.stackWidgets[s], at: time, prior: scorer.policy.prior,
                                              sequencePrior: scorer.policy.sequencePrior, population: scorer.population)
    }
}
