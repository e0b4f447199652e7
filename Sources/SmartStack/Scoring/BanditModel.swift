import Foundation

/// The learner of the signal weights of `contextual` and `bandit`: a multinomial logistic (softmax)
/// model over the `ContextualModel` features, `score(w) = θ · x(w)`, trained online by one
/// stochastic gradient step per learning moment: `θ += rate · (x(engaged) − Σ p(w) x(w))`, with
/// `p` the model's softmax over the stack. θ starts at the contextual model's weights, and a weak
/// pull (1% of the step) keeps it near them when data is scarce.
///
/// Learning moments (`Scorer+Learning.swift`): the stacks as they were scored at a `screen_on`
/// (`pending`), stepped toward the first widget of each stack engaged within
/// `Scorer.sessionWindow` after it — the exact question a decision at screen-on answers —
/// and, for data without screen-on events, each session start (an engagement at least
/// `Scorer.sessionGap` after the previous app launch) from the state just before it.
/// Exploration (`RotationPolicy`, `bandit` only) uses a seeded `SeededGenerator`.
struct BanditModel: Sendable, Codable, Hashable {
    /// One stack's features as of the latest screen-on, waiting for an engagement.
    struct PendingStack: Sendable, Codable, Hashable {
        var widgets: [Int32]
        /// `widgets.count × ContextualModel.featureCount`, row-major.
        var features: [Double]
        /// Whether no engagement has trained on it yet (entries are reused, not freed).
        var isOpen: Bool
    }

    var theta: [Double] = ContextualModel.defaultWeights
    var updates = 0
    /// When the stacks in `pending` were scored (`-∞`: never).
    var pendingTime = -Double.infinity
    /// Stacks scored at the latest screen-on (those still `isOpen` wait for an engagement).
    var pending: [PendingStack] = []

    /// One gradient step toward row `engaged` of a stack whose features are `x` (n × 8).
    mutating func learn(features x: [Double], count n: Int, engaged: Int, rate: Double, probabilities p: inout [Double]) {
        guard n > 1, rate > 0 else { return }
        let F = ContextualModel.featureCount
        softmax(features: x, count: n, temperature: 1, into: &p)
        for k in 0..<F {
            var expected = 0.0
            for i in 0..<n { expected += p[i] * x[i * F + k] }
            let gradient = x[engaged * F + k] - expected
            let pull = 0.01 * (theta[k] - ContextualModel.defaultWeights[k])
            theta[k] = max(-10, min(10, theta[k] + rate * (gradient - pull)))
        }
        updates += 1
    }

    /// Steps toward widget `w` in every open pending stack holding it (each stack trains once,
    /// on its first engaged widget).
    mutating func learnPending(engaged w: Int32, rate: Double, probabilities p: inout [Double]) {
        for k in pending.indices where pending[k].isOpen {
            guard let row = pending[k].widgets.firstIndex(of: w) else { continue }
            pending[k].isOpen = false
            let features = pending[k].features
            learn(features: features, count: pending[k].widgets.count, engaged: row, rate: rate, probabilities: &p)
        }
    }

    /// Closes every pending stack (kept for reuse by the next screen-on).
    mutating func closePending() {
        for k in pending.indices { pending[k].isOpen = false }
    }

    /// Whether the pending entries refer to existing widgets and have full feature rows (checked
    /// when restoring a snapshot).
    func isConsistent(widgets: Int) -> Bool {
        theta.count == ContextualModel.featureCount && pending.allSatisfy { entry in
            entry.widgets.allSatisfy { $0 >= 0 && Int($0) < widgets }
                && entry.features.count == entry.widgets.count * ContextualModel.featureCount
        }
    }

    /// The score of row `i`.
    @inline(__always) func score(features x: [Double], row i: Int) -> Double {
        var s = 0.0
        let F = ContextualModel.featureCount
        for k in 0..<F { s += theta[k] * x[i * F + k] }
        return s
    }

    /// Softmax of the scores at `temperature` into `p`.
    func softmax(features x: [Double], count n: Int, temperature: Double, into p: inout [Double]) {
        if p.count < n { p = [Double](repeating: 0, count: n) }
        var m = -Double.infinity
        for i in 0..<n { p[i] = score(features: x, row: i) / temperature; m = max(m, p[i]) }
        var total = 0.0
        for i in 0..<n { p[i] = exp(p[i] - m); total += p[i] }
        for i in 0..<n { p[i] /= total }
    }
}
