import Foundation

/// The learner of the signal weights of `contextual` and `bandit`: a multinomial logistic (softmax) model over the
/// `ContextualModel` features, `score(w) = θ · x(w)`, trained online by one stochastic gradient
/// step per engagement: `θ += rate · (x(engaged) − Σ p(w) x(w))`, with `p` the model's softmax
/// over the stack, computed from the state just before the engagement. θ starts at the
/// contextual model's weights, and a weak pull (1% of the step) keeps it near them when data
/// is scarce. Only session starts train it (see `UserEngine.sessionGap`). Exploration (in
/// `UserEngine.decide`, `bandit` only) uses a seeded `SeededGenerator`.
struct BanditModel: Sendable, Codable, Hashable {
    var theta: [Double] = ContextualModel.defaultWeights
    var updates = 0

    /// One gradient step toward widget `engaged` of a stack whose features are `x` (n × 8).
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
