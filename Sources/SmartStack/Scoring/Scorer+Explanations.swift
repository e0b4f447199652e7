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
            // With a population prior, the signals' reasons are the person's own (the features
            // without it) and the prior's change is one reason of its own: they add up.
            let x = effect == nil ? scratch.features : explanationScratch.features
            // The reasons worth giving, largest first; a signal's text is made only when it is
            // shown, written into one buffer and made one string.
            var found: [(source: ReasonSource, contribution: Double)] = []
            found.reserveCapacity(ContextualModel.featureCount + 2)
            for feature in ContextualModel.Feature.allCases {
                let c = theta[feature.rawValue] * x[feature.index(row: i)]
                guard abs(c) >= Self.minimumContribution else { continue }
                found.append((.feature(feature), c))
            }
            if learnsOffsets {
                let b = bandit.bias(of: Int32(w))
                if abs(b) >= Self.minimumContribution { found.append((.offset, b)) }
            }
            var decided: Reason?
            if let effect, abs(effect.change[i]) >= Self.minimumContribution {
                let reason = populationReason(row: i, widget: w, at: time, effect: effect)
                if effect.decidedRow == i { decided = reason } else { found.append((.made(reason), reason.contribution)) }
            }
            found.sort { abs($0.contribution) > abs($1.contribution) }
            // When the population prior decided the top, it says so first.
            if let decided { reasons.append(decided) }
            reasons.reserveCapacity(reasons.count + min(found.count, Self.maximumReasons) + 1)
            for (source, c) in found.prefix(Self.maximumReasons - (decided == nil ? 0 : 1)) {
                switch source {
                case .feature(let feature):
                    textBuffer.removeAll(keepingCapacity: true)
                    appendText(feature, contribution: c, widget: w, stack: s, at: time, to: &textBuffer)
                    reasons.append(Reason(text: String(decoding: textBuffer, as: UTF8.self), contribution: c))
                case .offset:
                    reasons.append(Reason(text: c > 0 ? "picked more often than the signals predict" : "picked less often than the signals predict",
                                          contribution: c))
                case .made(let reason):
                    reasons.append(reason)
                }
            }
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
        ReasonText.text { appendHintUntil(w, offset: offset, to: &$0) }
    }

    private func appendHintUntil(_ w: Int, offset: Int32, to out: inout [UInt8]) {
        let end = features.signals[w].hintEnd
        guard end.isFinite else { return }
        ReasonText.append(" until ", to: &out)
        ReasonText.appendClock(end, offset: offset, to: &out)
    }

    private func appendPlaceName(_ p: Int32, to out: inout [UInt8]) {
        let name = features.places[p]
        if features.placeIsCluster[Int(p)] {
            ReasonText.append("place ", to: &out)
            out.append(contentsOf: name.utf8.dropFirst())
        } else {
            ReasonText.append(string: name, to: &out)
        }
    }

    /// The phrase of `feature`'s reason, written into `out`.
    private func appendText(_ feature: ContextualModel.Feature, contribution c: Double, widget w: Int, stack s: Int, at time: EventTime,
                            to out: inout [UInt8]) {
        let ts = time.secondsSinceEpoch
        let positive = c > 0
        switch feature {
        case .base:
            let uses = features.signals[w].totalUses
            if uses == 0 { ReasonText.append(positive ? "early in the configured order" : "not used yet", to: &out); return }
            ReasonText.append(positive ? "often used lately (" : "less used lately (", to: &out)
            ReasonText.appendTimes(uses, to: &out)
            ReasonText.append(" in all)", to: &out)
        case .time:
            appendTimeText(widget: w, at: time, positive: positive, to: &out)
        case .place:
            guard let (p, confidence) = features.place(at: ts) else { ReasonText.append("place", to: &out); return }
            if positive {
                if confidence < 0.5 { ReasonText.append("probably still ", to: &out) }
                ReasonText.append("at ", to: &out)
            } else {
                ReasonText.append("rarely used at ", to: &out)
            }
            appendPlaceName(p, to: &out)
        case .sequence:
            guard let (a, _) = features.previousApp(at: ts) else { ReasonText.append("previous app", to: &out); return }
            ReasonText.append(positive ? "after " : "rarely after ", to: &out)
            appendSequenceText(lastApp: Int32(a), widget: w, at: ts, to: &out)
        case .context:
            // The moment's UTC offset is named when it tells this widget apart on its own.
            let offset = features.offsetPair(time.utcOffsetSeconds)
            let offsetMatters = offset >= 0 && abs(offsetLogRatio(pair: Int(offset), widget: w, stack: s, at: time)) >= Self.minimumContribution
            ReasonText.append(positive ? "when " : "rarely when ", to: &out)
            var first = true
            for pair in features.currentPairs + (offsetMatters ? [offset] : []) where pair >= 0 {
                if !first { ReasonText.append(", ", to: &out) }
                first = false
                ReasonText.append(string: features.pairs[pair], to: &out)
            }
        case .recent:
            if positive, features.signals[w].lastUsed > FeatureState.never {
                ReasonText.append("used ", to: &out)
                ReasonText.appendAgo(ts - features.signals[w].lastUsed, to: &out)
                return
            }
            ReasonText.append("not used lately", to: &out)
        case .hint:
            ReasonText.append("relevance hint ", to: &out)
            ReasonText.appendNumber(features.hint(w, at: ts) ?? 0, to: &out)
            appendHintUntil(w, offset: time.utcOffsetSeconds, to: &out)
        case .feedback:
            ReasonText.append("swiped away or ignored ", to: &out)
            ReasonText.appendTimes(features.signals[w].rejectionTotal, to: &out)
            ReasonText.append(" around this time", to: &out)
        case .hour:
            let h = time.localHour
            ReasonText.append("used ", to: &out)
            ReasonText.appendTimes(features.bins[WidgetBins.hourCounts.index(w, h)], to: &out)
            ReasonText.append(" between ", to: &out)
            ReasonText.appendClock(secondOfDay: h * 3600, to: &out)
            ReasonText.append(" and ", to: &out)
            ReasonText.appendClock(secondOfDay: (h + 1) * 3600, to: &out)
        case .awake:
            let awake = features.wakeClock.awake(at: ts) ?? 0
            ReasonText.append(positive ? "often used " : "rarely used ", to: &out)
            if awake < 900 {
                ReasonText.append("as the day starts", to: &out)
            } else {
                ReasonText.appendDuration(awake, to: &out)
                ReasonText.append(" into the day", to: &out)
            }
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
    private func appendSequenceText(lastApp a: Int32, widget w: Int, at ts: Double, to out: inout [UInt8]) {
        // The longest context that saw the widget: the apps as they came, then the routine of
        // widgets' apps an unrelated app interrupted.
        func chain(_ model: SequenceModel) -> [Int32]? {
            let rows = model.rows(at: ts)
            let (two, three) = model.current(at: ts)
            if let three, rows.order3 >= 0, model.value(rows.order3, w) > 0 { return [three.a3, three.a2, three.a1] }
            if let two, rows.order2 >= 0, model.value(rows.order2, w) > 0 { return [two.a2, two.a1] }
            return nil
        }
        for (k, app) in (chain(features.sequence) ?? chain(features.routines) ?? [a]).enumerated() {
            if k > 0 { ReasonText.append(", then ", to: &out) }
            ReasonText.append(string: features.apps[app], to: &out)
        }
    }

    /// `opened K of the last M weekdays between 07:30 and 08:30` when the day bitmaps say so,
    /// otherwise `often/rarely used around 08:00`.
    private func appendTimeText(widget w: Int, at time: EventTime, positive: Bool, to out: inout [UInt8]) {
        let second = time.localSecondsOfDay
        func around() {
            ReasonText.append("around ", to: &out)
            ReasonText.appendClock(secondOfDay: (second + 450) / 900 * 900, to: &out)
        }
        guard positive else { ReasonText.append("rarely used ", to: &out); around(); return }
        let weekend = time.isWeekend
        let today = time.localDayNumber
        let firstBin = (second - 1800).quotientRounded()
        var days = 0, hits = 0
        var back = 1
        while back < 32 && days < 10 {
            let d = today - back
            back += 1
            // Day `d`'s weekday as `EventTime.isWeekend` reads it (day 0, 1970-01-01, a Thursday).
            let isWeekend = ((d + 3) % 7 + 7) % 7 >= 5
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
        let kind: StaticString = weekend ? "weekend days" : "weekdays"
        if days >= 3 && hits >= 1 {
            ReasonText.append("opened ", to: &out)
            ReasonText.appendInteger(hits, to: &out)
            ReasonText.append(" of the last ", to: &out)
            ReasonText.appendInteger(days, to: &out)
            ReasonText.append(" ", to: &out)
            ReasonText.append(kind, to: &out)
            ReasonText.append(" between ", to: &out)
            ReasonText.appendClock(secondOfDay: max(0, firstBin) * 900, to: &out)
            ReasonText.append(" and ", to: &out)
            ReasonText.appendClock(secondOfDay: min(WidgetBins.binsPerDay, firstBin + 4) * 900, to: &out)
            return
        }
        ReasonText.append("often used ", to: &out)
        around()
        ReasonText.append(" on ", to: &out)
        ReasonText.append(kind, to: &out)
    }
}

extension Int {
    /// The 15-minute bin of a (possibly negative) local second, rounded to the nearest bin start.
    fileprivate func quotientRounded() -> Int { Int((Double(self) / 900).rounded()) }
}

/// Where a reason of the model's comes from: a signal (its text made when shown), the widget's
/// learned offset, or a reason already made (the population prior's).
private enum ReasonSource {
    case feature(ContextualModel.Feature)
    case offset
    case made(Reason)
}
