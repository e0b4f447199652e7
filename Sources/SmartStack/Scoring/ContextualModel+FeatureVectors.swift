import Foundation

extension ContextualModel {
    /// The feature vectors of `widgets` at `time` (see ``FeatureVector``), in their order,
    /// computed with the model's feature code from `fs` as recorded so far.
    /// - Complexity: O(widgets · (kernel bins + context pairs)).
    static func featureVectors(_ fs: FeatureState, widgets: [Int32], at time: EventTime, prior: Double) -> [FeatureVector] {
        var scratch = ScoringScratch()
        features(fs, widgets: widgets, at: time, prior: prior, scratch: &scratch)
        let F = featureCount
        let R = ScoringScratch.rawCount
        let ts = time.secondsSinceEpoch
        var out: [FeatureVector] = []
        out.reserveCapacity(widgets.count)
        for (i, w32) in widgets.enumerated() {
            let w = Int(w32)
            var values = Array(scratch.features[(i * F)..<(i * F + F)])
            let r = i * R
            for k in [1, 7, 3, 4, 5] { values.append(log1p(max(0, scratch.raw[r + k]))) }
            let last = fs.lastUsed[w]
            values.append(last.isFinite && last <= ts ? log1p((ts - last) / 3600) : -1)
            out.append(FeatureVector(widget: fs.widgets[w32], values: values, isEligible: fs.isEligible(w, at: ts)))
        }
        return out
    }
}
