import Foundation

/// Reasons: short phrases in the person's local time, with their contribution to the score.
extension Scorer {
    static let minimumContribution = 0.05
    static let maximumReasons = 5

    func explanation(row i: Int, widget w: Int, stack s: Int, at time: EventTime, isPinned: Bool,
                     population effect: PopulationEffect? = nil) -> [Reason] {
        var reasons: [Reason] = []
        let ts = time.secondsSinceEpoch
        let offset = time.utcOffsetSeconds
        if isPinned { reasons.append(Reason(text: "pinned", contribution: 0)) }
        if !scratch.eligible[i], let h = features.hint(w, at: ts) {
            reasons.append(Reason(text: "relevance hint " + ReasonText.number(h) + hintUntil(w, offset: offset) + ": not relevant now", contribution: 0))
        }
        let n = features.stackWidgets[s].count
        switch policy.kind {
        case .contextual, .bandit:
            let theta = learnsWeights ? bandit.theta : ContextualModel.defaultWeights
            var found: [Reason] = []
            // With a population prior, the signals' reasons are the person's own (the features
            // without it) and the prior's change is one reason of its own: they add up.
            let x = effect == nil ? scratch.features : explanationScratch.features
            for feature in ContextualModel.Feature.allCases {
                let c = theta[feature.rawValue] * x[feature.index(row: i)]
                guard abs(c) >= Self.minimumContribution else { continue }
                found.append(Reason(text: text(feature, contribution: c, widget: w, stack: s, at: time), contribution: c))
            }
            if learnsOffsets {
                let b = bandit.bias(of: Int32(w))
                if abs(b) >= Self.minimumContribution {
                    found.append(Reason(text: b > 0 ? "picked more often than the signals predict" : "picked less often than the signals predict",
                                        contribution: b))
                }
            }
            var decided: Reason?
            if let effect, abs(effect.change[i]) >= Self.minimumContribution {
                let reason = populationReason(row: i, widget: w, at: time, effect: effect)
                if effect.decidedRow == i { decided = reason } else { found.append(reason) }
            }
            found.sort { abs($0.contribution) > abs($1.contribution) }
            // When the population prior decided the top, it says so first.
            if let decided { reasons.append(decided) }
            reasons.append(contentsOf: found.prefix(Self.maximumReasons - (decided == nil ? 0 : 1)))
            if usesMixture { reasons.append(mixtureReason(row: i)) }
        case .external:
            reasons.append(Reason(text: "scored by " + name, contribution: scratch.scores[i]))
        default:
            let row = features.stackWidgets[s].firstIndex(of: Int32(w)) ?? 0
            reasons.append(contentsOf: Baselines.reasons(policy.kind, policy: policy, features, widget: w, position: row, count: n, score: scratch.scores[i], at: time))
        }
        return reasons
    }

    /// The mixture's weights, largest first (`weights: model 0.91, frecency 0.05, ...`), with
    /// how much the mixture moved this widget's log-probability from the model's own.
    private func mixtureReason(row i: Int) -> Reason {
        let model = scratch.experts[i * SignalMixture.expertCount]
        let contribution = model > 0 ? scratch.scores[i] - log(model) : 0
        // The text is the same for every widget of a ranking: kept while the weights stay.
        if let kept = scratch.weightsText,
           kept.weights.elementsEqual(scratch.weights, by: { $0.bitPattern == $1.bitPattern }) {
            return Reason(text: kept.text, contribution: contribution)
        }
        // The model's calibrations are shown as one weight.
        var names: [String] = []
        var weights: [Double] = []
        for expert in SignalMixture.Expert.allCases {
            if let k = names.firstIndex(of: expert.name) {
                weights[k] += scratch.weights[expert.rawValue]
            } else {
                names.append(expert.name)
                weights.append(scratch.weights[expert.rawValue])
            }
        }
        let order = names.indices.sorted { weights[$0] > weights[$1] || (weights[$0] == weights[$1] && $0 < $1) }
        let shown = order.filter { weights[$0] >= 0.01 || $0 == order[0] }
        let text = "weights: " + shown.map { names[$0] + " " + ReasonText.number(weights[$0]) }.joined(separator: ", ")
        scratch.weightsText = (scratch.weights, text)
        return Reason(text: text, contribution: contribution)
    }

    private func hintUntil(_ w: Int, offset: Int32) -> String {
        let end = features.signals[w].hintEnd
        return end.isFinite ? " until " + ReasonText.clock(end, offset: offset) : ""
    }

    private func placeName(_ p: Int32) -> String {
        let name = features.places[p]
        return features.placeIsCluster[Int(p)] ? "place " + name.dropFirst() : name
    }

    private func text(_ feature: ContextualModel.Feature, contribution c: Double, widget w: Int, stack s: Int, at time: EventTime) -> String {
        let ts = time.secondsSinceEpoch
        let positive = c > 0
        switch feature {
        case .base:
            let uses = features.signals[w].totalUses
            if uses == 0 { return positive ? "early in the configured order" : "not used yet" }
            return (positive ? "often used lately (" : "less used lately (") + ReasonText.times(uses) + " in all)"
        case .time:
            return timeText(widget: w, at: time, positive: positive)
        case .place:
            guard let (p, confidence) = features.place(at: ts) else { return "place" }
            let likely = confidence < 0.5 ? "probably still " : ""
            return (positive ? likely + "at " : "rarely used at ") + placeName(p)
        case .sequence:
            guard let (a, _) = features.previousApp(at: ts) else { return "previous app" }
            return (positive ? "after " : "rarely after ") + sequenceText(lastApp: Int32(a), widget: w, at: ts)
        case .context:
            // The moment's UTC offset is named when it tells this widget apart on its own.
            let offset = features.offsetPair(time.utcOffsetSeconds)
            let offsetMatters = offset >= 0 && abs(offsetLogRatio(pair: Int(offset), widget: w, stack: s, at: time)) >= Self.minimumContribution
            let pairs = (features.currentPairs + (offsetMatters ? [offset] : [])).filter { $0 >= 0 }
                .map { features.pairs[$0] }.joined(separator: ", ")
            return (positive ? "when " : "rarely when ") + pairs
        case .recent:
            if positive, features.signals[w].lastUsed > FeatureState.never {
                return "used " + ReasonText.ago(ts - features.signals[w].lastUsed)
            }
            return "not used lately"
        case .hint:
            let h = features.hint(w, at: ts) ?? 0
            return "relevance hint " + ReasonText.number(h) + hintUntil(w, offset: time.utcOffsetSeconds)
        case .feedback:
            return "swiped away or ignored " + ReasonText.times(features.signals[w].rejectionTotal) + " around this time"
        case .hour:
            let h = time.localHour
            return "used " + ReasonText.times(features.bins[WidgetBins.hourCounts.index(w, h)]) + " between "
                + ReasonText.clock(secondOfDay: h * 3600) + " and " + ReasonText.clock(secondOfDay: (h + 1) * 3600)
        case .awake:
            let awake = features.wakeClock.awake(at: ts) ?? 0
            let when = awake < 900 ? "as the day starts" : ReasonText.duration(awake) + " into the day"
            return (positive ? "often used " : "rarely used ") + when
        }
    }

    /// The smoothed log-ratio of context pair `pair` for widget `w` of stack `s` at `time`, as
    /// `ContextualModel` adds it (its weight aside).
    private func offsetLogRatio(pair: Int, widget w: Int, stack s: Int, at time: EventTime) -> Double {
        let widgets = features.stackWidgets[s]
        let fL = features.longClock.factor(at: time.secondsSinceEpoch)
        var total = 0.0
        for v in widgets { total += features.pairTable.value(pair, Int(v)) * fL }
        guard total > 0, let i = widgets.firstIndex(of: Int32(w)) else { return 0 }
        let p0 = scratch.raw[ContextualModel.Evidence.p0.index(row: i)]
        let a = policy.prior
        return log((features.pairTable.value(pair, w) * fL + a * p0) / (total + a) / p0)
    }

    /// The apps the sequence signal conditions on, oldest first (`Mail, then Maps`): the
    /// longest context in which this widget was engaged before, else the last app alone.
    private func sequenceText(lastApp a: Int32, widget w: Int, at ts: Double) -> String {
        // The longest context that saw the widget: the apps as they came, then the routine of
        // widgets' apps an unrelated app interrupted.
        func chain(_ model: SequenceModel) -> [Int32]? {
            let rows = model.rows(at: ts)
            let (two, three) = model.current(at: ts)
            if let three, rows.order3 >= 0, model.value(rows.order3, w) > 0 { return [three.a3, three.a2, three.a1] }
            if let two, rows.order2 >= 0, model.value(rows.order2, w) > 0 { return [two.a2, two.a1] }
            return nil
        }
        return (chain(features.sequence) ?? chain(features.routines) ?? [a]).map { features.apps[$0] }.joined(separator: ", then ")
    }

    /// `opened K of the last M weekdays between 07:30 and 08:30` when the day bitmaps say so,
    /// otherwise `often/rarely used around 08:00`.
    private func timeText(widget w: Int, at time: EventTime, positive: Bool) -> String {
        let second = time.localSecondsOfDay
        let around = "around " + ReasonText.clock(secondOfDay: (second + 450) / 900 * 900)
        guard positive else { return "rarely used " + around }
        let weekend = time.isWeekend
        let today = time.localDayNumber
        let firstBin = (second - 1800).quotientRounded()
        var days = 0, hits = 0
        var back = 1
        while back < 32 && days < 10 {
            let d = today - back
            back += 1
            let isWeekend = EventTime(nanosecondsSinceEpoch: Int64(d) * 86_400_000_000_000, utcOffsetSeconds: 0).isWeekend
            guard isWeekend == weekend,
                  FeatureState.bit(day: d, mask: features.activeMask, maskDay: features.activeDay) else { continue }
            days += 1
            for k in 0..<4 {
                let b = firstBin + k
                guard b >= 0 && b < WidgetBins.binsPerDay else { continue }
                let m = WidgetBins.dayMask(w, WidgetBins.slot(bin: b, weekend: weekend))
                if FeatureState.bit(day: d, mask: features.dayMasks[m], maskDay: features.maskDays[m]) { hits += 1; break }
            }
        }
        let kind = weekend ? "weekend days" : "weekdays"
        if days >= 3 && hits >= 1 {
            return "opened \(hits) of the last \(days) \(kind) between "
                + ReasonText.clock(secondOfDay: max(0, firstBin) * 900) + " and "
                + ReasonText.clock(secondOfDay: min(WidgetBins.binsPerDay, firstBin + 4) * 900)
        }
        return "often used " + around + " on " + kind
    }
}

extension Int {
    /// The 15-minute bin of a (possibly negative) local second, rounded to the nearest bin start.
    fileprivate func quotientRounded() -> Int { Int((Double(self) / 900).rounded()) }
}
