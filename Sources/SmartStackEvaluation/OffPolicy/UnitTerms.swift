/// What one logged round gives every estimator's terms.
struct RoundBase {
    /// π_e(a) / p, unclipped.
    var weight: Double
    /// π_e(a), the target's probability of the logged action.
    var target: Double
    var reward: Double
    /// q̂(x, a) at the logged action.
    var qFactual: Double
    /// Σ_a π_e(a) q̂(x, a) / Σ_a π_e(a).
    var direct: Double
}

extension OffPolicyEstimator {
    /// Whether the estimate is a ratio of sums (replay, SNIPS) rather than a mean of rounds.
    var isRatio: Bool {
        switch self {
        case .replay, .snips: true
        case .ips, .directMethod, .doublyRobust, .switchDoublyRobust, .doublyRobustWithShrinkage: false
        }
    }

    /// The round's numerator and, for a ratio estimator, denominator term: the estimate is
    /// Σ numerators / Σ denominators, a mean-type estimator's denominator being 1 per round.
    func terms(_ b: RoundBase) -> (numerator: Double, denominator: Double?) {
        func dr(_ effectiveWeight: Double) -> Double { b.direct + effectiveWeight * (b.reward - b.qFactual) }
        switch self {
        case .replay:
            return (b.target * b.reward, b.target)
        case .ips(let clip):
            return (b.reward * min(b.weight, clip ?? .infinity), nil)
        case .snips:
            return (b.reward * b.weight, b.weight)
        case .directMethod:
            return (b.direct, nil)
        case .doublyRobust(let clip):
            return (dr(min(b.weight, clip ?? .infinity)), nil)
        case .switchDoublyRobust(let tau):
            return (dr(b.weight <= tau ? b.weight : 0), nil)
        case .doublyRobustWithShrinkage(let lambda):
            if lambda == .infinity { return (dr(b.weight), nil) }
            let w = b.weight
            return (dr(w == 0 ? 0 : lambda * w / (w * w + lambda)), nil)
        }
    }
}

/// Estimators' terms summed as rounds are given, one at a time in order: per bootstrap unit (a
/// cluster of rounds, or each round alone) and in all, with the weight diagnostics. This is all
/// a result needs, so no per-round array of terms is ever held (the evaluator's sample has
/// hundreds of thousands of rounds and up to 17 policies).
///
/// Every sum adds the same values in the same order as summing each estimator's per-round
/// terms, round by round, then unit by unit, would: the result is the same to the bit.
struct UnitTerms {
    let estimators: [OffPolicyEstimator]
    /// Whether rounds come in clusters: a unit's rows then count their rounds.
    private let clustered: Bool
    /// Slots of each estimator's numerator and denominator in a unit's row, then (clustered)
    /// the rounds' count.
    private let numeratorSlot: [Int], denominatorSlot: [Int?]
    private let slots: Int
    /// Unit-major: `rows[u * width ..< (u + 1) * width]` are unit `u`'s sums.
    private var rows: [Double] = []
    private var totals: [Double]
    private(set) var rounds = 0
    private(set) var unitCount = 0
    private var weightSum = 0.0, weightSquares = 0.0, largestWeight = 0.0, zeroWeights = 0, accepted = 0.0
    /// Rounds whose support is known (every action the target may take could be logged, or
    /// not), and those where it is not.
    var supportKnown = 0
    var supportViolations = 0

    init(estimators: [OffPolicyEstimator], clustered: Bool) {
        self.estimators = estimators
        self.clustered = clustered
        var slot = 0
        numeratorSlot = estimators.map { _ in defer { slot += 1 }; return slot }
        denominatorSlot = estimators.map { e in
            guard e.isRatio else { return nil }
            defer { slot += 1 }
            return slot
        }
        slots = slot
        totals = [Double](repeating: 0, count: slot)
    }

    private var width: Int { clustered ? slots + 1 : slots }

    /// Adds a round of unit `unit`: the units already given, or the next one (`unitCount`).
    /// Without clusters every round must be a new unit.
    mutating func add(_ b: RoundBase, unit: Int) {
        precondition(unit <= unitCount && (clustered || unit == unitCount), "units are numbered densely in order")
        if unit == unitCount {
            rows.append(contentsOf: repeatElement(0, count: width))
            unitCount += 1
        }
        let row = unit * width, clustered = clustered
        rows.withUnsafeMutableBufferPointer { rows in
            totals.withUnsafeMutableBufferPointer { totals in
                func put(_ value: Double, _ slot: Int) {
                    totals[slot] += value
                    if clustered { rows[row + slot] += value } else { rows[row + slot] = value }
                }
                for (e, estimator) in estimators.enumerated() {
                    let t = estimator.terms(b)
                    if let s = denominatorSlot[e], let d = t.denominator { put(d, s) }
                    put(t.numerator, numeratorSlot[e])
                }
                if clustered { rows[row + slots] += 1 }
            }
        }
        rounds += 1
        weightSum += b.weight
        weightSquares += b.weight * b.weight
        largestWeight = max(largestWeight, b.weight)
        if b.weight == 0 { zeroWeights += 1 }
        accepted += b.target
    }

    /// Adds a round whose target is one-hot on `top` (a policy that shows one widget), with the
    /// reward model's predictions at `top` and at the logged action: the same as a round with a
    /// one-hot target distribution would add.
    mutating func addOneHot(top: Int, logged: Int, propensity: Double, reward: Double, qTop: Double, qLogged: Double,
                            unit: Int) {
        let target: Double = top == logged ? 1 : 0
        add(RoundBase(weight: target / propensity, target: target, reward: reward, qFactual: qLogged, direct: qTop),
            unit: unit)
        if propensity == 1 {
            supportKnown += 1
            if top != logged { supportViolations += 1 }
        }
    }

    var diagnostics: OffPolicyDiagnostics {
        let n = Double(rounds)
        return OffPolicyDiagnostics(
            effectiveSampleSize: weightSquares > 0 ? weightSum * weightSum / weightSquares : 0,
            maxWeight: largestWeight,
            meanWeight: rounds > 0 ? weightSum / n : 0,
            zeroWeightShare: rounds > 0 ? Double(zeroWeights) / n : 0,
            zeroSupportShare: supportKnown > 0 ? Double(supportViolations) / n : nil,
            supportKnownRounds: supportKnown,
            replayAccepted: accepted)
    }

    /// Every estimator's value and percentile interval over `bootstrap.samples` resamples of
    /// the units (see `RoundTerms.replicates(_:samples:seed:threads:)`).
    func result(bootstrap: BootstrapOptions, seed: UInt64, threads: Int = 1) -> OffPolicyResult {
        let n = rounds
        let values: [Double?] = estimators.indices.map { e in
            guard n > 0 else { return nil }
            let numerator = totals[numeratorSlot[e]]
            if let s = denominatorSlot[e] {
                // obp: mean(r w / mean(w)) — the same ratio.
                let denominator = totals[s]
                return denominator > 0 ? numerator / denominator : nil
            }
            return numerator / Double(n)
        }
        var intervals = [[Double]?](repeating: nil, count: estimators.count)
        if bootstrap.samples > 0, n > 0 {
            let replicates = RoundTerms.replicates(distinctColumns(), samples: bootstrap.samples, seed: seed, threads: threads)
            for e in estimators.indices where values[e] != nil && !replicates[e].isEmpty {
                let sorted = replicates[e].sorted()
                intervals[e] = [RoundTerms.percentile(sorted, bootstrap.alpha / 2),
                                RoundTerms.percentile(sorted, 1 - bootstrap.alpha / 2)]
            }
        }
        let estimates = estimators.indices.map {
            OffPolicyEstimate(estimator: estimators[$0], value: values[$0], interval: intervals[$0])
        }
        return OffPolicyResult(estimates: estimates, diagnostics: diagnostics, rounds: n, bootstrap: bootstrap, seed: seed)
    }

    /// The rows with each distinct column once (bit for bit over all units): a resample sums
    /// each only once (SNIPS's numerator is IPS's, switch-DR's is DR's when no weight exceeds
    /// its threshold), and a narrow row is one vector.
    private func distinctColumns() -> RoundTerms.UnitTable {
        let w = width, g = unitCount
        var kept: [Int] = []
        var columnOf = [Int](repeating: 0, count: w)
        for s in 0..<w {
            let same = kept.firstIndex { k in (0..<g).allSatisfy { rows[$0 * w + k].bitPattern == rows[$0 * w + s].bitPattern } }
            if let same { columnOf[s] = same } else {
                columnOf[s] = kept.count
                kept.append(s)
            }
        }
        var terms = [Double](repeating: 0, count: g * kept.count)
        for u in 0..<g { for (c, s) in kept.enumerated() { terms[u * kept.count + c] = rows[u * w + s] } }
        return RoundTerms.UnitTable(terms: terms, width: kept.count, units: g,
                                    numerator: numeratorSlot.map { columnOf[$0] },
                                    denominator: denominatorSlot.map { $0.map { columnOf[$0] } },
                                    countColumn: clustered ? columnOf[slots] : nil, rounds: rounds)
    }
}
