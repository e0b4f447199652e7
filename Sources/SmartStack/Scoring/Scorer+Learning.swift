/// Online learning of the signal weights (`contextual` with a positive `learning_rate`, and
/// `bandit`) and of the `contextual` mixture's weights: when a step is taken and on which
/// features. The steps themselves are `BanditModel`'s and `SignalMixture`'s.
extension Scorer {
    /// Minimum seconds since the previous app launch for an engagement with no screen-on just
    /// before it to train the weights.
    static let sessionGap = 300.0
    /// Seconds after a screen-on within which an engagement trains on the stacks as scored at
    /// that screen-on (the evaluator's default attribution window).
    static let sessionWindow = 600.0

    /// Learns the signal weights from one event, before it is recorded (see `BanditModel`).
    ///
    /// A `screen_on` keeps every multi-widget stack's features as scored at that instant; the
    /// first widget of each such stack engaged within `sessionWindow` after it trains on them —
    /// the question a decision at screen-on answers. An engagement with no screen-on in the
    /// window before it (data without screen-on events, or a long session) trains instead when
    /// it starts a session (at least `sessionGap` after the previous app launch), from the state
    /// just before it; the rest of each session is skipped, which keeps recording cheap.
    func learnBandit(from event: UnsafePointer<Event>) {
        let ts = event.pointee.time.secondsSinceEpoch
        // The engaged widgets: those of app `app` (>= 0), or the single widget `single`.
        var app = -1
        var single: Int32 = -1
        switch event.pointee.payload {
        case .screenOn:
            keepForLearning(at: event.pointee.time)
            return
        case .appLaunch(let name):
            guard let a = features.apps.index(of: name) else { return }
            app = Int(a)
        case .widgetTap(let widget, _):
            guard let w = features.widgets.index(of: widget) else { return }
            single = w
        case .widgetSwipe(_, _, let to):
            guard let w = features.widgets.index(of: to) else { return }
            single = w
        default:
            return
        }
        // Read in place, in order (no array is built or copied per event).
        let count = app >= 0 ? features.appWidgets[app].count : 1
        @inline(__always) func engaged(_ k: Int) -> Int32 { app >= 0 ? features.appWidgets[app][k] : single }
        let sinceScreenOn = ts - bandit.pendingTime
        if sinceScreenOn >= 0 && sinceScreenOn <= Self.sessionWindow {
            for k in 0..<count {
                // The share of the engagement the person's intent explains (less than 1 only for
                // the widget shown, once the display lift is known).
                let weight = features.discountsDisplay ? features.displayDiscount(Int(engaged(k)), at: ts) : 1
                if usesMixture { learnMixturePending(engaged: engaged(k), at: ts, weight: weight) }
                bandit.learnPending(engaged: engaged(k), rate: learnsWeights ? policy.learningRate * weight : 0,
                                    adaptive: policy.kind == .contextual, probabilities: &learningScratch.probabilities)
            }
            return
        }
        if sinceScreenOn > Self.sessionWindow { bandit.closePending() }
        guard ts - features.lastAppTime >= Self.sessionGap || features.lastAppTime > ts else { return }
        for k in 0..<count { learnBandit(engaged: engaged(k), at: event.pointee.time) }
    }

    /// Keeps the features of every stack with more than one widget as of a screen-on at `time`
    /// (a late screen-on older than the kept one is ignored).
    private func keepForLearning(at time: EventTime) {
        let ts = time.secondsSinceEpoch
        guard ts >= bandit.pendingTime else { return }
        bandit.pendingTime = ts
        let F = ContextualModel.featureCount
        var k = 0
        for s in 0..<features.stackWidgets.count where features.stackConfigTime[s] > FeatureState.never {
            let n = features.stackWidgets[s].count
            guard n > 1 else { continue }
            if k == bandit.pending.count {
                bandit.pending.append(BanditModel.PendingStack(widgets: [], features: [], isOpen: false))
            }
            // Entries are overwritten in place: their buffers are reused from one screen-on to
            // the next, and an unchanged widget list (the same buffer) is not reassigned.
            if bandit.pending[k].widgets != features.stackWidgets[s] { bandit.pending[k].widgets = features.stackWidgets[s] }
            // The decision at the same instant, with nothing recorded since, computed them: its
            // buffers are taken as they are (exchanged with the entry's), and `lastScored[s]`, which
            // this screen-on's recording makes stale anyway, is marked so.
            let scored = hasScored(stack: s, widgets: n, at: time)
            if scored {
                swap(&lastScored[s].features, &bandit.pending[k].features)
            } else {
                contextualFeatures(features.stackWidgets[s], at: time, scratch: &learningScratch)
                learningScratch.features.withUnsafeBufferPointer { bandit.pending[k].features.overwrite(withFirst: n * F, of: $0) }
            }
            if usesMixture { keepExperts(pending: k, stack: s, scored: scored, at: time) }
            if scored { lastScored[s].recordCount = .max }
            bandit.pending[k].isOpen = true
            k += 1
        }
        bandit.pending.removeLast(bandit.pending.count - k)
    }

    /// Keeps the mixture's experts of stack `s` at `time` in pending entry `k` (whose features
    /// are kept already); `scored`: the decision at the same instant computed them (`lastScored[s]`).
    private func keepExperts(pending k: Int, stack s: Int, scored: Bool, at time: EventTime) {
        let n = features.stackWidgets[s].count
        let E = SignalMixture.expertCount, B = SignalMixture.rankedCount
        if scored && lastScored[s].experts.count == n * E && lastScored[s].ranks.count == n * B {
            swap(&lastScored[s].experts, &bandit.pending[k].experts)
            swap(&lastScored[s].ranks, &bandit.pending[k].ranks)
            return
        }
        if bandit.pending[k].ranks.count != n * B { bandit.pending[k].ranks = [Int32](repeating: 0, count: n * B) }
        bandit.pending[k].features.withUnsafeBufferPointer { modelScores(features: $0, widgets: features.stackWidgets[s]) }
        mixture.experts(features, policy: policy, stack: s, widgets: features.stackWidgets[s], at: time, scratch: &learningScratch)
        learningScratch.experts.withUnsafeBufferPointer { bandit.pending[k].experts.overwrite(withFirst: n * E, of: $0) }
        learningScratch.ranks.withUnsafeBufferPointer { bandit.pending[k].ranks.overwrite(withFirst: n * B, of: $0) }
    }

    /// One mixture step toward widget `w` in every open pending stack holding it (before
    /// `BanditModel.learnPending` closes them), from the experts kept at the screen-on.
    private func learnMixturePending(engaged w: Int32, at ts: Double, weight: Double) {
        let E = SignalMixture.expertCount, B = SignalMixture.rankedCount
        for k in bandit.pending.indices where bandit.pending[k].isOpen && !bandit.pending[k].experts.isEmpty {
            guard let row = bandit.pending[k].widgets.firstIndex(of: w) else { continue }
            bandit.pending[k].experts.withUnsafeBufferPointer { experts in
                bandit.pending[k].ranks.withUnsafeBufferPointer { ranks in
                    mixture.learn(engaged: UnsafeBufferPointer(rebasing: experts[(row * E)..<(row * E + E)]),
                                  ranks: UnsafeBufferPointer(rebasing: ranks[(row * B)..<(row * B + B)]),
                                  at: ts, halfLife: policy.halfLife, weight: weight)
                }
            }
        }
    }

    /// The model's scores of `n` widgets with features `x` into `learningScratch.scores`.
    private func modelScores(features x: UnsafeBufferPointer<Double>, widgets: [Int32]) {
        learningScratch.prepareRanking(widgets: widgets.count)
        learningScratch.scores.withUnsafeMutableBufferPointer { modelScores(features: x, widgets: widgets, into: $0) }
    }

    /// One online step of the bandit toward widget `w` in every stack holding it (with more than
    /// one widget), from the state now.
    private func learnBandit(engaged w: Int32, at time: EventTime) {
        for s in 0..<features.stackWidgets.count {
            let widgets = features.stackWidgets[s]
            guard widgets.count > 1, let row = widgets.firstIndex(of: w) else { continue }
            let x = learningFeatures(stack: s, widgets: widgets, at: time)
            if usesMixture {
                x.withUnsafeBufferPointer { modelScores(features: $0, widgets: widgets) }
                mixture.experts(features, policy: policy, stack: s, widgets: widgets, at: time, scratch: &learningScratch)
                let E = SignalMixture.expertCount, B = SignalMixture.rankedCount
                learningScratch.experts.withUnsafeBufferPointer { experts in
                    learningScratch.ranks.withUnsafeBufferPointer { ranks in
                        mixture.learn(engaged: UnsafeBufferPointer(rebasing: experts[(row * E)..<(row * E + E)]),
                                      ranks: UnsafeBufferPointer(rebasing: ranks[(row * B)..<(row * B + B)]),
                                      at: time.secondsSinceEpoch, halfLife: policy.halfLife)
                    }
                }
            }
            if learnsWeights {
                bandit.learn(features: x, widgets: widgets, count: widgets.count, engaged: row, rate: policy.learningRate,
                             adaptive: policy.kind == .contextual, probabilities: &learningScratch.probabilities)
            }
        }
    }

    /// Whether `lastScored[s]` holds the features of stack `s` (of `n` widgets) at `time`, with
    /// nothing recorded since.
    private func hasScored(stack s: Int, widgets n: Int, at time: EventTime) -> Bool {
        s < lastScored.count && lastScored[s].recordCount == recordCount && lastScored[s].time == time
            && lastScored[s].features.count == n * ContextualModel.featureCount
    }

    /// The contextual features of stack `s` at `time` (rows `0..<widgets.count`): those `score`
    /// kept for the same instant when nothing was recorded since, otherwise computed into
    /// `learningScratch`.
    private func learningFeatures(stack s: Int, widgets: [Int32], at time: EventTime) -> [Double] {
        if hasScored(stack: s, widgets: widgets.count, at: time) { return lastScored[s].features }
        contextualFeatures(widgets, at: time, scratch: &learningScratch)
        return learningScratch.features
    }
}
