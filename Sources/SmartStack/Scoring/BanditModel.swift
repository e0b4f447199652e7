import Foundation

/// The learner of the signal weights of `contextual` and `bandit`: a multinomial logistic (softmax)
/// model over the `ContextualModel` features, `score(w) = θ · x(w)`, trained online by one
/// gradient step per learning moment on the log-loss, whose gradient is
/// `g = x(engaged) − Σ p(w) x(w)`, `p` the model's softmax over the stack. θ starts at the
/// contextual model's weights.
///
/// - `contextual` steps by AdaGrad (Duchi, Hazan and Singer, 2011): `θ_k += rate · g_k /
///   sqrt(1 + Σ g_k²)`, each weight's step shrinking with its own accumulated gradients. A
///   signal that carries nothing for this person (its gradient has no consistent sign) loses
///   its weight within days instead of months, and the regret against the best fixed weights
///   grows as the square root of the learning moments. `rate` (`learning_rate`, default 0.3) is
///   the step's scale: the weights move by about that much per consistent day of evidence.
/// - `contextual` also learns a **per-widget offset** `b_w` (the intercept a naive-Bayes sum of
///   shared-weight signals lacks: a widget the person picks more, or less, often than every
///   signal together predicts), `score(w) = θ · x(w) + b_w`, by AdaGrad on the same gradient
///   (`1[w engaged] − p(w)`) at `offsetRate` times the step: a smaller step, because one
///   offset per widget is many more weights than the signals' few, and a thin record must not
///   swing them. It matters most in the first days, when the smoothed signals are near 0.
/// - `bandit` takes plain stochastic gradient steps `θ += rate · (g − 0.01 (θ − θ₀))`, a weak
///   pull keeping it near its start when data is scarce.
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
        /// The mixture's expert probabilities (`widgets.count × SignalMixture.expertCount`) and
        /// baseline ranks (`× SignalMixture.rankedCount`) as of the screen-on; empty when
        /// the policy has no mixture.
        var experts: [Double] = []
        var ranks: [Int32] = []
    }

    /// The offsets' step relative to the signal weights' (chosen on the quality test bed's
    /// tuning seeds among 0.1, 0.3 and 1: mean hit@1 +0.0015, +0.0018 and +0.0012 over the
    /// rows, the largest step also the largest losses on single rows).
    static let offsetRate = 0.3

    var theta: [Double] = ContextualModel.defaultWeights
    /// Per weight, the sum of its squared gradients (AdaGrad's accumulator).
    var squaredGradients = [Double](repeating: 0, count: ContextualModel.featureCount)
    var updates = 0
    /// Per widget (by index), a learned offset of its score (`contextual` only: the per-widget
    /// intercept a naive-Bayes sum lacks), and its AdaGrad accumulator; grown on first use.
    var bias: [Double] = []
    var biasSquared: [Double] = []
    /// When the stacks in `pending` were scored (`-∞`: never).
    var pendingTime = -Double.infinity
    /// Stacks scored at the latest screen-on (those still `isOpen` wait for an engagement).
    var pending: [PendingStack] = []

    /// One gradient step toward row `engaged` of a stack whose features are `x`
    /// (n × `ContextualModel.featureCount`): AdaGrad's when `adaptive`, plain otherwise.
    mutating func learn(features x: [Double], widgets: [Int32], count n: Int, engaged: Int, rate: Double, adaptive: Bool,
                        probabilities p: inout [Double]) {
        guard n > 1, rate > 0 else { return }
        let F = ContextualModel.featureCount
        softmax(features: x, widgets: adaptive ? widgets : [], count: n, temperature: 1, into: &p)
        if adaptive {
            for i in 0..<n {
                let w = Int(widgets[i])
                if w >= bias.count {
                    bias += [Double](repeating: 0, count: w + 1 - bias.count)
                    biasSquared += [Double](repeating: 0, count: w + 1 - biasSquared.count)
                }
                let gradient = (i == engaged ? 1 : 0) - p[i]
                biasSquared[w] += gradient * gradient
                bias[w] = max(-10, min(10, bias[w] + Self.offsetRate * rate * gradient / (1 + biasSquared[w]).squareRoot()))
            }
        }
        // The features and probabilities read through pointers (one check per array, not per
        // element); the sums are the same, in the same order.
        x.withUnsafeBufferPointer { x in
            p.withUnsafeBufferPointer { p in
                for k in 0..<F {
                    var expected = 0.0
                    for i in 0..<n { expected += p[i] * x[i * F + k] }
                    let gradient = x[engaged * F + k] - expected
                    if adaptive {
                        squaredGradients[k] += gradient * gradient
                        theta[k] = max(-10, min(10, theta[k] + rate * gradient / (1 + squaredGradients[k]).squareRoot()))
                    } else {
                        let pull = 0.01 * (theta[k] - ContextualModel.defaultWeights[k])
                        theta[k] = max(-10, min(10, theta[k] + rate * (gradient - pull)))
                    }
                }
            }
        }
        updates += 1
    }

    /// Steps toward widget `w` in every open pending stack holding it (each stack trains once,
    /// on its first engaged widget).
    mutating func learnPending(engaged w: Int32, rate: Double, adaptive: Bool, probabilities p: inout [Double]) {
        for k in pending.indices where pending[k].isOpen {
            guard let row = pending[k].widgets.firstIndex(of: w) else { continue }
            pending[k].isOpen = false
            let features = pending[k].features
            learn(features: features, widgets: pending[k].widgets, count: pending[k].widgets.count, engaged: row, rate: rate,
                  adaptive: adaptive, probabilities: &p)
        }
    }

    /// Closes every pending stack (kept for reuse by the next screen-on).
    mutating func closePending() {
        for k in pending.indices { pending[k].isOpen = false }
    }

    /// Whether the pending entries refer to existing widgets and have full feature rows (checked
    /// when restoring a snapshot).
    func isConsistent(widgets: Int) -> Bool {
        theta.count == ContextualModel.featureCount && squaredGradients.count == ContextualModel.featureCount
            && bias.count == biasSquared.count && bias.count <= widgets && (bias + biasSquared).allSatisfy(\.isFinite)
            && pending.allSatisfy { entry in
            entry.widgets.allSatisfy { $0 >= 0 && Int($0) < widgets }
                && entry.features.count == entry.widgets.count * ContextualModel.featureCount
                && (entry.experts.isEmpty || entry.experts.count == entry.widgets.count * SignalMixture.expertCount)
                && (entry.ranks.isEmpty || entry.ranks.count == entry.widgets.count * SignalMixture.rankedCount)
        }
    }

    /// The learned offset of widget `w` (0 before any).
    @inline(__always) func bias(of w: Int32) -> Double { Int(w) < bias.count ? bias[Int(w)] : 0 }

    /// Softmax of the scores `θ · x(i)` (plus each widget's offset when `widgets` is not empty) at
    /// `temperature` into `p`.
    func softmax(features x: [Double], widgets: [Int32], count n: Int, temperature: Double, into p: inout [Double]) {
        if p.count < n { p = [Double](repeating: 0, count: n) }
        let F = ContextualModel.featureCount
        // `score(features:widgets:row:)` for every row, read through pointers: the same sums.
        x.withUnsafeBufferPointer { x in
            theta.withUnsafeBufferPointer { theta in
                bias.withUnsafeBufferPointer { bias in
                    p.withUnsafeMutableBufferPointer { p in
                        var m = -Double.infinity
                        for i in 0..<n {
                            let w = widgets.isEmpty ? -1 : Int(widgets[i])
                            var s = w < 0 ? 0 : (w < bias.count ? bias[w] : 0)
                            for k in 0..<F { s += theta[k] * x[i * F + k] }
                            p[i] = s / temperature
                            m = max(m, p[i])
                        }
                        var total = 0.0
                        for i in 0..<n { p[i] = exp(p[i] - m); total += p[i] }
                        for i in 0..<n { p[i] /= total }
                    }
                }
            }
        }
    }
}
