/// Reasons: short phrases in the person's local time, with their contribution to the score.
extension Scorer {
    static let minimumContribution = 0.05
    static let maximumReasons = 5

    func explanation(row i: Int, widget w: Int, stack s: Int, at time: EventTime, isPinned: Bool) -> [Reason] {
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
            for feature in ContextualModel.Feature.allCases {
                let c = theta[feature.rawValue] * scratch.features[feature.index(row: i)]
                guard abs(c) >= Self.minimumContribution else { continue }
                found.append(Reason(text: text(feature, contribution: c, widget: w, at: time), contribution: c))
            }
            found.sort { abs($0.contribution) > abs($1.contribution) }
            reasons.append(contentsOf: found.prefix(Self.maximumReasons))
        case .external:
            reasons.append(Reason(text: "scored by " + name, contribution: scratch.scores[i]))
        default:
            let row = features.stackWidgets[s].firstIndex(of: Int32(w)) ?? 0
            reasons.append(contentsOf: Baselines.reasons(policy.kind, policy: policy, features, widget: w, position: row, count: n, score: scratch.scores[i], at: time))
        }
        return reasons
    }

    private func hintUntil(_ w: Int, offset: Int32) -> String {
        let end = features.signals[w].hintEnd
        return end.isFinite ? " until " + ReasonText.clock(end, offset: offset) : ""
    }

    private func placeName(_ p: Int32) -> String {
        let name = features.places[p]
        return features.placeIsCluster[Int(p)] ? "place " + name.dropFirst() : name
    }

    private func text(_ feature: ContextualModel.Feature, contribution c: Double, widget w: Int, at time: EventTime) -> String {
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
            guard let p = features.place(at: ts) else { return "place" }
            return (positive ? "at " : "rarely used at ") + placeName(p)
        case .sequence:
            guard let (a, _) = features.previousApp(at: ts) else { return "previous app" }
            return (positive ? "after " : "rarely after ") + features.apps[Int32(a)]
        case .context:
            let pairs = features.currentPairs.filter { $0 >= 0 }.map { features.pairs[$0] }.joined(separator: ", ")
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
        }
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
