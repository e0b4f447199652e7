/// The reward model `q̂(context, action)` behind the direct method and the doubly robust
/// estimators: a smoothed mean per (context key, action), shrunk towards the action's mean,
/// which is itself shrunk towards the global mean.
///
/// With `m` the prior strength, `μ` the global mean reward, `S`/`N` sums and counts:
/// `μ_a = (S_a + m μ) / (N_a + m)` and `q̂(k, a) = (S_{k,a} + m μ_a) / (N_{k,a} + m)`.
/// An unseen action predicts `μ`; an unseen (context, action) predicts `μ_a`; with no data at
/// all the model predicts 0.
///
/// ```swift
/// var model = RewardModel(priorStrength: 5)
/// model.add(contextKey: "morning", action: 2, reward: 1)
/// let q = model.prediction(contextKey: "morning", action: 2)
/// ```
public struct RewardModel: Sendable, Hashable {
    private struct Key: Hashable, Sendable {
        var context: String
        var action: Int
    }
    private struct Tally: Hashable, Sendable {
        var sum = 0.0
        var count = 0.0
    }

    /// The prior strength `m` (pseudo-observations at the parent mean).
    public let priorStrength: Double
    private var global = Tally()
    private var byAction: [Int: Tally] = [:]
    private var byContextAction: [Key: Tally] = [:]

    /// An empty model with prior strength `m` (default 5 pseudo-observations).
    public init(priorStrength: Double = 5) {
        self.priorStrength = max(0, priorStrength.isFinite ? priorStrength : 5)
    }

    /// A model fitted on `(context key, action, reward)` rows.
    ///
    /// - Complexity: O(rows).
    public init<Rows: Sequence>(rows: Rows, priorStrength: Double = 5)
    where Rows.Element == (contextKey: String, action: Int, reward: Double) {
        self.init(priorStrength: priorStrength)
        for row in rows { add(contextKey: row.contextKey, action: row.action, reward: row.reward) }
    }

    /// Adds one observed reward.
    public mutating func add(contextKey: String, action: Int, reward: Double) {
        global.sum += reward
        global.count += 1
        byAction[action, default: Tally()].sum += reward
        byAction[action, default: Tally()].count += 1
        let key = Key(context: contextKey, action: action)
        byContextAction[key, default: Tally()].sum += reward
        byContextAction[key, default: Tally()].count += 1
    }

    /// The number of rewards added.
    public var observationCount: Int { Int(global.count) }

    /// The predicted reward `q̂(contextKey, action)`.
    public func prediction(contextKey: String, action: Int) -> Double {
        guard global.count > 0 else { return 0 }
        let mu = global.sum / global.count
        let m = priorStrength
        let actionTally = byAction[action] ?? Tally()
        let muAction = Self.shrunk(actionTally, towards: mu, strength: m)
        let cell = byContextAction[Key(context: contextKey, action: action)] ?? Tally()
        return Self.shrunk(cell, towards: muAction, strength: m)
    }

    private static func shrunk(_ tally: Tally, towards prior: Double, strength m: Double) -> Double {
        let denominator = tally.count + m
        return denominator > 0 ? (tally.sum + m * prior) / denominator : prior
    }
}
