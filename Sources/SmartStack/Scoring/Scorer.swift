import Foundation

/// Scores a user's stacks under one policy: the dispatch over the contextual model (`contextual`,
/// `bandit`), the baselines and an outside scorer, then eligibility and the ranking order. Its
/// online learning of the signal weights is in `Scorer+Learning.swift`, its reasons in
/// `Scorer+Explanations.swift`.
///
/// One per `UserEngine`, which feeds it every event and asks it to score a stack before each
/// ranking or decision; the result stays in ``scratch`` for the rotation policy to read.
final class Scorer {
    /// The policy, parsed and defaulted.
    let policy: ResolvedPolicy
    /// The policy's name as shown in rankings (`PolicySpec.description` or the outside scorer's name).
    let name: String
    /// The user's features. A `let`, so reading it costs no reference count (a `var` would be
    /// retained around every call into it, in case the call replaced it).
    let features: FeatureState
    let external: (any WidgetScorer)?
    /// The person's reading of the host's population prior (`contextual` and `bandit` with a
    /// positive `population`), or `nil`.
    let population: PopulationLookup?
    // Stored properties skip dynamic exclusivity checks: a Scorer is used by one caller at a
    // time (its `UserEngine`) and never accesses a property overlappingly.
    @exclusivity(unchecked) var bandit = BanditModel()
    @exclusivity(unchecked) var mixture = SignalMixture()
    @exclusivity(unchecked) var scratch = ScoringScratch()
    @exclusivity(unchecked) var learningScratch = ScoringScratch()
    /// The features without the population prior, for the reasons that say what it changed.
    @exclusivity(unchecked) var explanationScratch = ScoringScratch()
    /// Events recorded so far: tells whether the state changed since a stack was scored.
    @exclusivity(unchecked) var recordCount: UInt64 = 0
    /// Per stack, the contextual features `score` computed last, when weights are learned: the
    /// learning step at the same instant with nothing recorded since reuses them (they are
    /// bit-identical to a recomputation), so a decision followed by its screen-on or engagement
    /// computes them once.
    @exclusivity(unchecked) var lastScored: [ScoredFeatures] = []
    /// The bytes of the reason being written (`Scorer+Explanations`), reused by every reason.
    @exclusivity(unchecked) var textBuffer: [UInt8] = []

    /// A stack's features as scored at `time` after `recordCount` events, and the mixture's
    /// experts and ranks then (empty without a mixture).
    struct ScoredFeatures {
        var time: EventTime
        var recordCount: UInt64
        var features: [Double]
        var experts: [Double] = []
        var ranks: [Int32] = []
    }

    init(policy: ResolvedPolicy, name: String, features: FeatureState, external: (any WidgetScorer)?, prior: PopulationPrior? = nil) {
        self.policy = policy
        self.name = name
        self.features = features
        self.external = external
        population = policy.takesPopulationPrior ? prior.map { PopulationLookup(prior: $0, weight: policy.population) } : nil
    }

    /// The contextual features of `widgets` at `time` into `scratch` (the model's, with the
    /// population prior when there is one): every scoring and learning step computes them here.
    @inline(__always)
    func contextualFeatures(_ widgets: [Int32], at time: EventTime, scratch: inout ScoringScratch) {
        ContextualModel.features(features, widgets: widgets, at: time, records: recordCount, prior: policy.prior,
                                 sequencePrior: policy.sequencePrior, population: population, scratch: &scratch)
    }

    /// Whether the signal weights are learned online (`bandit`, or `contextual` with a
    /// positive `learning_rate`).
    var learnsWeights: Bool {
        policy.kind == .bandit || (policy.kind == .contextual && policy.learningRate > 0)
    }

    /// Whether each widget's score carries its learned offset (`contextual` with a positive
    /// `learning_rate`; see `BanditModel.bias`).
    var learnsOffsets: Bool { policy.kind == .contextual && policy.learningRate > 0 }

    /// Whether the scores are the `SignalMixture` of the model and the baselines (`contextual`
    /// with a positive `mixture`).
    var usesMixture: Bool { policy.kind == .contextual && policy.mixture > 0 }

    /// Scores stack `s` into `scratch.scores`, `scratch.eligible` and `scratch.order`.
    func score(stack s: Int, at time: EventTime) {
        let widgets = features.stackWidgets[s]
        let n = widgets.count
        let ts = time.secondsSinceEpoch
        // Works on `self.scratch` in place, as an inout argument: no swap or copy of its
        // buffers and no per-access checks (nothing else reads it meanwhile).
        func rank(_ scratch: inout ScoringScratch) {
            scratch.prepareRanking(widgets: n)
            switch policy.kind {
            case .contextual, .bandit:
                contextualFeatures(widgets, at: time, scratch: &scratch)
                scratch.withFeaturesAndScores { x, scores in modelScores(features: x, widgets: widgets, into: scores) }
                if usesMixture {
                    // The weights change only with the instant and a learning step (`version`).
                    if scratch.weightsTime != ts || scratch.weightsVersion != mixture.version {
                        mixture.weights(at: ts, halfLife: policy.halfLife, baselines: policy.mixture, into: &scratch.weights)
                        scratch.weightsTime = ts
                        scratch.weightsVersion = mixture.version
                    }
                    mixture.experts(features, policy: policy, stack: s, widgets: widgets, at: time, scratch: &scratch)
                    mixture.mix(weights: scratch.weights, widgets: n, scratch: &scratch)
                }
            case .external:
                let given = external?.scores(stack: features.stacks[Int32(s)], widgets: features.stackConfigs[s], at: time) ?? []
                for i in 0..<n { scratch.scores[i] = i < given.count && !given[i].isNaN ? given[i] : -Double.infinity }
            default:
                scratch.scores.withUnsafeMutableBufferPointer {
                    Baselines.scores(policy.kind, policy: policy, features, widgets: widgets, at: time, into: $0)
                }
            }
            // Order: pinned, eligible by score (ties: configured order), ineligible in order.
            let pin = features.stackPins[s]
            scratch.withRanking { scores, eligible, order in
                for i in 0..<n { eligible[i] = features.isEligible(Int(widgets[i]), at: ts) }
                for i in 0..<n { order[i] = i }
                @inline(__always) func before(_ a: Int, _ b: Int) -> Bool {
                    let pa = widgets[a] == pin, pb = widgets[b] == pin
                    if pa != pb { return pa }
                    if eligible[a] != eligible[b] { return eligible[a] }
                    if eligible[a] && scores[a] != scores[b] { return scores[a] > scores[b] }
                    return a < b
                }
                if n > 1 {
                    for i in 1..<n {
                        let x = order[i]
                        var j = i - 1
                        while j >= 0 && before(x, order[j]) { order[j + 1] = order[j]; j -= 1 }
                        order[j + 1] = x
                    }
                }
            }
        }
        rank(&scratch)
        if learnsWeights || usesMixture {  // `scratch.features` holds this stack's features
            let m = n * ContextualModel.featureCount
            while lastScored.count <= s {
                lastScored.append(ScoredFeatures(time: time, recordCount: .max, features: []))
            }
            lastScored[s].time = time
            lastScored[s].recordCount = recordCount
            scratch.features.withUnsafeBufferPointer { lastScored[s].features.overwrite(withFirst: m, of: $0) }
            if usesMixture {
                scratch.experts.withUnsafeBufferPointer { lastScored[s].experts.overwrite(withFirst: n * SignalMixture.expertCount, of: $0) }
                let r = n * SignalMixture.rankedCount
                scratch.ranks.withUnsafeBufferPointer { lastScored[s].ranks.overwrite(withFirst: r, of: $0) }
            }
        }
    }

    /// The model's scores `θ · x` of `n` widgets with features `x` (the learned weights, or the
    /// naive-Bayes ones when nothing is learned). Weights are subscripted in place (a local
    /// copy of the array costs a reference count).
    func modelScores(features x: UnsafeBufferPointer<Double>, widgets: [Int32], into scores: UnsafeMutableBufferPointer<Double>) {
        let F = ContextualModel.featureCount
        let n = widgets.count
        let offsets = learnsOffsets
        // The weights and offsets read through pointers (one look-up each per stack, not per
        // widget and feature); the sums are the same, in the same order.
        (learnsWeights ? bandit.theta : ContextualModel.defaultWeights).withUnsafeBufferPointer { theta in
            bandit.bias.withUnsafeBufferPointer { bias in
                for i in 0..<n {
                    let w = Int(widgets[i])
                    var v = offsets && w < bias.count ? bias[w] : 0
                    for k in 0..<F { v += theta[k] * x[i * F + k] }
                    scores[i] = v
                }
            }
        }
    }

    /// The ranking of stack `s` (named `name`) as last scored by ``score(stack:at:)``, with each
    /// widget's reasons when `explained`.
    /// - Complexity: O(widgets of the stack), plus O(widgets · reasons) when explaining.
    func ranking(stack s: Int, name: String, user: String, at time: EventTime, explained: Bool) -> Ranking {
        let widgets = features.stackWidgets[s]
        var result: [RankedWidget] = []
        result.reserveCapacity(widgets.count)
        let pin = features.stackPins[s]
        let effect = explained ? populationEffect(stack: s, at: time) : nil
        for k in 0..<widgets.count {
            let i = scratch.order[k]
            let w = widgets[i]
            let reasons = explained ? explanation(row: i, widget: Int(w), stack: s, at: time, isPinned: w == pin, population: effect) : []
            result.append(RankedWidget(widget: features.widgets[w], score: scratch.scores[i], isEligible: scratch.eligible[i], reasons: reasons))
        }
        return Ranking(stack: name, user: user, at: time, policy: self.name, widgets: result)
    }
}
