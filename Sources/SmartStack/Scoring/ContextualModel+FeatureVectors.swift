import Foundation

extension ContextualModel {
    /// The feature vectors of `widgets` at `time` (see ``FeatureVector``), in their order,
    /// computed with the model's feature code from `fs` as recorded so far (with the person's
    /// reading of a population prior, when there is one).
    /// - Complexity: O(widgets · (kernel bins + context pairs)).
    static func featureVectors(_ fs: FeatureState, widgets: [Int32], at time: EventTime, prior: Double,
                               sequencePrior: Double, population: PopulationLookup? = nil) -> [FeatureVector] {
        var scratch = ScoringScratch()  // fresh: nothing kept from another moment
        features(fs, widgets: widgets, at: time, records: 0, prior: prior, sequencePrior: sequencePrior, population: population,
                 scratch: &scratch)
        let F = featureCount
        let ts = time.secondsSinceEpoch
        var out: [FeatureVector] = []
        out.reserveCapacity(widgets.count)
        for (i, w32) in widgets.enumerated() {
            let w = Int(w32)
            var values = Array(scratch.features[(i * F)..<(i * F + F)])
            for (_, column) in FeatureVector.evidence { values.append(log1p(max(0, scratch.raw[column.index(row: i)]))) }
            let last = fs.signals[w].lastUsed
            values.append(last.isFinite && last <= ts ? log1p((ts - last) / 3600) : -1)
            out.append(FeatureVector(widget: fs.widgets[w32], values: values, isEligible: fs.isEligible(w, at: ts)))
        }
        return out
    }
}

extension FeatureVector {
    /// The names of `values`, in order: the model's features, the raw evidence exported, the
    /// hours since last use.
    public static let names = ContextualModel.Feature.allCases.map(\.declaration.name) + evidence.map(\.name)
        + ["log_hours_since_use"]
    /// The raw evidence in `values` after the features, `log1p` of each.
    static let evidence: [(name: String, column: ContextualModel.Evidence)] = [
        ("log_frequency", .usage), ("log_recent_frequency", .recent), ("log_time_kernel", .timeSameDays),
        ("log_place_count", .place), ("log_after_app_count", .previousApp),
    ]
}
