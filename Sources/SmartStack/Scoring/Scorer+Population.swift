/// What a host's population prior changed in a ranking, for its reasons ("people like you…").
extension Scorer {
    /// Per row of the stack scored last, how much the prior moved the model's score, and the row
    /// it put on top (-1 when the model's top is the same without it, or is not the ranking's).
    struct PopulationEffect {
        var change: [Double]
        var decidedRow: Int
    }

    /// The prior's effect on stack `s` as just scored at `time`: the model's scores with the
    /// prior against the same without it; `nil` without a prior, or when it changed nothing
    /// (it names none of the stack's widgets).
    /// - Complexity: O(widgets · features): one more computation of the features, only when
    ///   reasons are asked for.
    func populationEffect(stack s: Int, at time: EventTime) -> PopulationEffect? {
        guard population != nil, policy.kind == .contextual || policy.kind == .bandit else { return nil }
        let widgets = features.stackWidgets[s]
        let n = widgets.count
        guard n > 0 else { return nil }
        var with = [Double](repeating: 0, count: n)
        scratch.features.withUnsafeBufferPointer { x in with.withUnsafeMutableBufferPointer { modelScores(features: x, widgets: widgets, into: $0) } }
        ContextualModel.features(features, widgets: widgets, at: time, records: recordCount, prior: policy.prior,
                                 sequencePrior: policy.sequencePrior, population: nil, scratch: &explanationScratch)
        var without = [Double](repeating: 0, count: n)
        explanationScratch.features.withUnsafeBufferPointer { x in
            without.withUnsafeMutableBufferPointer { modelScores(features: x, widgets: widgets, into: $0) }
        }
        let change = (0..<n).map { with[$0] - without[$0] }
        guard change.contains(where: { $0 != 0 }) else { return nil }
        // The model's top among the eligible, unpinned widgets, with and without the prior.
        let pin = features.stackPins[s]
        func top(_ scores: [Double]) -> Int {
            var best = -1
            for i in 0..<n where scratch.eligible[i] && widgets[i] != pin && (best < 0 || scores[i] > scores[best]) { best = i }
            return best
        }
        let withTop = top(with), withoutTop = top(without)
        let decided = withTop >= 0 && withTop != withoutTop && scratch.order[0] == withTop ? withTop : -1
        return PopulationEffect(change: change, decidedRow: decided)
    }

    /// `people like you often use it between 08:00 and 09:00 on weekdays at work`, with the
    /// prior's change of the score; the time is named where the population's lift there says so.
    func populationReason(row i: Int, widget w: Int, at time: EventTime, effect: PopulationEffect) -> Reason {
        let c = effect.change[i]
        guard let population else { return Reason(text: "population prior", contribution: c) }
        let prior = population.prior
        let r = Int(population.row(w, features))
        var kind = -1
        if let (p, confidence) = features.place(at: time.secondsSinceEpoch), confidence >= ContextualModel.placeKindConfidence {
            kind = population.kind(ofPlace: Int(p), features)
        }
        let hour = time.localHour
        let lift = r >= 0 ? prior.lifts[prior.liftIndex(row: r, weekend: time.isWeekend, placeKind: kind, hour: hour)] : 1
        var text = c > 0 ? "people like you often use it" : "people like you rarely use it"
        if (c > 0 && lift > 1.1) || (c < 0 && lift < 0.9) {
            text += " between " + ReasonText.clock(secondOfDay: hour * 3600) + " and " + ReasonText.clock(secondOfDay: (hour + 1) * 3600)
                + (time.isWeekend ? " on weekend days" : " on weekdays") + (kind >= 0 ? " at " + prior.placeKinds[kind] : "")
        }
        if effect.decidedRow == i { text += " (the population prior put it on top)" }
        return Reason(text: text, contribution: c)
    }
}
