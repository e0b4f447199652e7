import Foundation

/// A run of prose in a finding: plain text, or a name to emphasise. Markdown and HTML each
/// escape and style the runs their own way.
enum ReportRun: Hashable {
    /// Ordinary text.
    case plain(String)
    /// Emphasised text (a policy name).
    case strong(String)
    /// A command-line fragment to type, e.g. `--reference frecency`.
    case code(String)
}

/// The conclusions drawn from a report's figures, in reading order: what the headline measure
/// is and what it can be trusted for, the verdict on it (a winner only when the paired interval
/// of its lead excludes zero, else the tied group), the ceiling, the trade-off between the
/// headline and stability, and what the off-policy estimates say. Every sentence is computed
/// from the report; nothing is hard-coded.
struct ReportFindings {
    /// The policies that can win: every policy but the oracle, with a defined headline.
    let candidates: [PolicyReport]
    /// The winner: the best policy when it is ahead of every other beyond chance.
    let winner: PolicyReport?
    /// The best policy by the headline's point estimate.
    let best: PolicyReport?
    /// The oracle (ground-truth ceiling), if it was evaluated.
    let oracle: PolicyReport?
    /// The sentence on the measure the verdict rests on.
    let measureSentence: [ReportRun]
    /// The verdict.
    let winnerSentence: [ReportRun]
    /// One or two sentences on the headline against stability (empty with fewer than two policies).
    let tradeOffSentences: [[ReportRun]]
    /// The ceiling, if known.
    let oracleSentence: [ReportRun]?
    /// What the off-policy estimates say, when the log has propensities.
    let offPolicySentences: [[ReportRun]]
    /// When each policy reaches the threshold × the ceiling (`evaluate --by-day` with a truth file).
    let learningCurveSentence: [ReportRun]?

    /// Two values closer than this print the same with three decimals: a tie.
    static let tieTolerance = 0.0005

    /// Whether `name` is the oracle policy (the simulator's ground truth, not a real policy).
    static func isOracle(_ name: String) -> Bool { name == "oracle" || name.hasPrefix("oracle:") }

    /// Analyses `report`.
    ///
    /// - Complexity: O(policies²).
    init(_ report: EvaluationReport) {
        let policies = report.policies
        oracle = policies.first { Self.isOracle($0.name) }
        candidates = policies.filter { !Self.isOracle($0.name) && (report.headline(of: $0).value?.isFinite ?? false) }
        let verdict = report.verdict
        best = verdict.flatMap { v in policies.first { $0.name == v.best } }
        winner = verdict?.winner.flatMap { w in policies.first { $0.name == w } }
        measureSentence = Self.measureSentence(report)
        winnerSentence = Self.verdictSentence(report, evaluatedCount: policies.count)
        tradeOffSentences = Self.tradeOff(report, candidates: candidates, best: best)
        oracleSentence = Self.ceilingSentence(report, oracle: oracle, best: best)
        offPolicySentences = Self.offPolicySentences(report)
        learningCurveSentence = Self.learningCurveSentence(report)
    }

    /// All findings in reading order.
    var sentences: [[ReportRun]] {
        [measureSentence, winnerSentence] + (oracleSentence.map { [$0] } ?? []) + tradeOffSentences + offPolicySentences
            + (learningCurveSentence.map { [$0] } ?? [])
    }

    /// "By day since the stacks were configured, contextual reaches 0.85 × the ceiling on day 3
    /// and stays there; mfu on day 9; mru never (over 28 days)." The oracle left out.
    private static func learningCurveSentence(_ report: EvaluationReport) -> [ReportRun]? {
        guard let curve = report.byDay, let threshold = curve.threshold else { return nil }
        let policies = curve.policies.filter { !isOracle($0.name) }
        guard !policies.isEmpty else { return nil }
        // Soonest first; those that never do last, in report order.
        let ordered = policies.enumerated().sorted {
            ($0.element.reachesDay ?? Int.max, $0.offset) < ($1.element.reachesDay ?? Int.max, $1.offset)
        }.map(\.element)
        var runs: [ReportRun] = [.plain("By day since the stacks were configured (every decision, warm-up included), ")]
        for (k, p) in ordered.enumerated() {
            if k > 0 { runs.append(.plain("; ")) }
            runs.append(.strong(p.name))
            if let day = p.reachesDay {
                runs.append(.plain(k == 0 ? " reaches \(String(format: "%g", threshold)) × the ceiling on day \(day) and stays there" : " on day \(day)"))
            } else {
                runs.append(.plain(k == 0 ? " never stays at \(String(format: "%g", threshold)) × the ceiling" : " never"))
            }
        }
        runs.append(.plain(" (over \(curve.days.count) day\(curve.days.count == 1 ? "" : "s"); days with fewer than \(curve.minimumDecisions) decisions with a truth line not counted)."))
        return runs
    }

    // MARK: - Formatting

    static func f3(_ v: Double) -> String { String(format: "%.3f", v) }
    static func signed3(_ v: Double) -> String { (v >= 0 ? "+" : "-") + String(format: "%.3f", abs(v)) }
    /// Signed with three decimals, or four when that is what tells the figures from zero.
    static func signedDifference(_ v: Double, scale: Double) -> String {
        (v >= 0 ? "+" : "-") + String(format: scale < 0.01 ? "%.4f" : "%.3f", abs(v))
    }
    /// A paired interval with its difference's precision.
    static func differenceInterval(_ r: [Double], difference: Double) -> String {
        guard r.count == 2 else { return "" }
        let scale = max(abs(difference), abs(r[0]), abs(r[1]))
        return "[\(signedDifference(r[0], scale: scale)), \(signedDifference(r[1], scale: scale))]"
    }
    static func f2(_ v: Double) -> String { String(format: "%.2f", v) }

    static func interval(_ r: ClosedRange<Double>) -> String { "\(f3(r.lowerBound))–\(f3(r.upperBound))" }
    static func signedInterval(_ r: ClosedRange<Double>) -> String { "[\(signed3(r.lowerBound)), \(signed3(r.upperBound))]" }
    static func signedInterval(_ r: [Double]) -> String { r.count == 2 ? signedInterval(r[0]...r[1]) : "" }

    /// The policy names joined as prose, each emphasised.
    static func names(_ list: [String]) -> [ReportRun] {
        var runs: [ReportRun] = []
        for (i, n) in list.enumerated() {
            if i > 0 { runs.append(.plain(i == list.count - 1 ? " and " : ", ")) }
            runs.append(.strong(n))
        }
        return runs
    }

    // MARK: - Measure

    /// The logging policies as prose: `sim-epsilon-greedy (5980 impressions)`.
    private static func loggers(_ report: EvaluationReport) -> [ReportRun] {
        guard let first = report.loggingPolicies.first else { return [.plain("an unnamed policy (the impressions carry no policy field)")] }
        var runs: [ReportRun] = [.strong(first.name)]
        if report.loggingPolicies.count > 1 {
            runs.append(.plain(" and \(report.loggingPolicies.count - 1) other logging polic\(report.loggingPolicies.count == 2 ? "y" : "ies")"))
        }
        return runs
    }

    private static func measureSentence(_ report: EvaluationReport) -> [ReportRun] {
        let logged = !report.loggingPolicies.isEmpty
        switch report.measure {
        case .counterfactual:
            var runs: [ReportRun] = [.plain("Measured by counterfactual engagement: the probability that each policy's own top is what the person came for")]
            if let t = report.truth {
                let scored = t.decisionsWithTruth + t.leftOutWithoutLine + t.leftOutUnknownWidget
                runs.append(.plain(", read from the truth file on \(t.decisionsWithTruth) of \(scored) scored decisions"))
            }
            runs.append(.plain(". It is what the person would have lived had the policy run the stacks, whatever the log showed them. Logged hit@1 is shown as well; it credits whichever policy produced the log"))
            if logged { runs += [.plain(" (here ")] + loggers(report) + [.plain(")")] }
            runs.append(.plain(", since people also tap what is on top."))
            return runs
        case .offPolicy:
            let impressions = report.policies.compactMap(\.ope?.impressions).max() ?? 0
            var runs: [ReportRun] = [.plain("Measured by off-policy estimates (doubly robust) of each policy's engagement per decision, from \(impressions) logged impressions with their propensities, logged by ")]
            runs += loggers(report)
            runs.append(.plain(". Logged hit@1 is shown as well but favours that policy: people also tap what it put on top. With a truth file the measure would be counterfactual engagement."))
            return runs
        case .logged:
            var runs: [ReportRun] = [.plain("Measured by logged hit@1: each policy's top is checked against what the person engaged, but they engaged under what the logging policy showed")]
            if logged { runs += [.plain(" (") ] + loggers(report) + [.plain(")")] }
            runs += [.plain(", so hit@1 favours policies that imitate it and cannot tell which policy the person would have been better served by. To read it unbiased, record each "), .code("widget_impression"),
                     .plain(" with its "), .code("propensity"), .plain(" (off-policy estimates then lead the report), or evaluate with "), .code("--truth"), .plain(" on simulated data.")]
            return runs
        }
    }

    // MARK: - Verdict

    private static func verdictSentence(_ report: EvaluationReport, evaluatedCount: Int) -> [ReportRun] {
        let figure = report.headlineTitle
        guard let v = report.verdict, let best = report.policies.first(where: { $0.name == v.best }),
              let bv = report.headline(of: best).value else {
            if evaluatedCount == 0 { return [.plain("No policy was evaluated.")] }
            if report.policies.allSatisfy({ isOracle($0.name) }) {
                return [.plain("Only the oracle was evaluated, so there is no real policy to rank.")]
            }
            if report.measure == .logged {
                return [.plain("No scored decision had a target (an engagement within the attribution window), so hit@1 is undefined and there is no winner.")]
            }
            return [.plain("No policy has a defined \(figure), so there is no winner.")]
        }
        let ci = report.headline(of: best).interval
        let bText = f3(bv) + (ci.map { " (95% CI \(interval($0)))" } ?? "")
        guard let runnerName = v.runnerUp, let runner = report.policies.first(where: { $0.name == runnerName }),
              let rv = report.headline(of: runner).value else {
            return [.strong(best.name), .plain(" is the only policy ranked\(report.policies.count > 1 ? " besides the oracle" : ""); its \(figure) is \(bText).")]
        }
        let lead = v.lead ?? (bv - rv)
        let scale = max(abs(lead), abs(v.leadInterval?.first ?? 0), abs(v.leadInterval?.last ?? 0))
        let leadText = signedDifference(lead, scale: scale)
        if let w = v.winner {
            var runs: [ReportRun] = [.plain("Winner by \(figure): "), .strong(w), .plain(" at \(bText), ahead of "), .strong(runnerName),
                                     .plain(" at \(f3(rv)) by \(leadText)")]
            if let li = v.leadInterval { runs.append(.plain(" (paired 95% interval on the same decisions \(differenceInterval(li, difference: lead)), which excludes zero)")) }
            runs.append(.plain(v.differences.count > 1 ? ", and ahead of every other policy beyond chance." : "."))
            return runs
        }
        var runs: [ReportRun] = [.plain("No winner by \(figure): "), .strong(best.name), .plain(" leads at \(bText), but ")]
        let others = Array(v.tied.dropFirst())
        if others.isEmpty || v.leadInterval == nil {
            runs += [.plain("without bootstrap intervals its lead of \(leadText) over "), .strong(runnerName),
                     .plain(" cannot be tested (run with "), .code("--bootstrap 1000"), .plain(").")]
            return runs
        }
        runs += names(others)
        runs.append(.plain(" \(others.count == 1 ? "is" : "are") not behind it beyond chance"))
        if let li = v.leadInterval { runs.append(.plain(" (the lead over \(runnerName), \(leadText), has the paired 95% interval \(differenceInterval(li, difference: lead)), which includes zero)")) }
        runs.append(.plain(": the tied group is "))
        runs += names(v.tied)
        runs.append(.plain("."))
        return runs
    }

    // MARK: - Ceiling

    private static func ceilingSentence(_ report: EvaluationReport, oracle: PolicyReport?, best: PolicyReport?) -> [ReportRun]? {
        if report.measure == .counterfactual, let c = report.policies.first?.metrics[.ceiling] {
            var runs: [ReportRun] = [.plain("Ceiling: the best eligible widget at each decision is what the person came for with probability \(f3(c))")]
            if let b = best, let r = b.metrics[.ceilingRatio] {
                runs += [.plain("; "), .strong(b.name), .plain(String(format: " reaches %.0f%% of it", r * 100))]
            }
            if let lift = report.truth?.displayLift {
                runs.append(.plain(". Showing any widget adds \(f3(lift)) to its engagement (the display lift), whichever it is, so the lift is left out of the measure and of the ratio"))
            }
            if let o = oracle, let ov = o.metrics[.counterfactualEngagement] {
                runs += [.plain(". The "), .strong(o.name), .plain(", which ranks by the logged distribution under the rotation rules, reaches \(f3(ov))")]
            }
            runs.append(.plain("."))
            return runs
        }
        guard let oracle else { return nil }
        guard let oh = oracle.metrics[.hitAt1] else {
            return [.plain("The oracle was evaluated but had no decision with a target.")]
        }
        var runs: [ReportRun] = [.plain("Ceiling: the oracle (ground truth of the simulation) reaches hit@1 \(f3(oh))")]
        if let r = oracle.metrics[.rotationsPerActiveHour] { runs.append(.plain(" with \(f2(r)) rotations per active hour")) }
        if let w = best, let wh = w.metrics[.hitAt1], oh > 0 {
            runs += [.plain("; "), .strong(w.name), .plain(String(format: " reaches %.0f%% of it.", wh / oh * 100))]
        } else {
            runs.append(.plain("."))
        }
        return runs
    }

    // MARK: - Off-policy

    private static func offPolicySentences(_ report: EvaluationReport) -> [[ReportRun]] {
        let rows = report.policies.filter { !isOracle($0.name) }.compactMap { p -> (String, Double, OffPolicyResult)? in
            guard let e = p.ope?.estimates, let v = e[.doublyRobust()]?.value else { return nil }
            return (p.name, v, e)
        }
        guard rows.count >= 1 else { return [] }
        var out: [[ReportRun]] = []
        let byDR = rows.enumerated().sorted { $0.element.1 != $1.element.1 ? $0.element.1 > $1.element.1 : $0.offset < $1.offset }.map(\.element)
        let hit = report.policies.filter { p in !isOracle(p.name) && rows.contains { $0.0 == p.name } }
            .compactMap { p in p.metrics[.hitAt1].map { (p.name, $0) } }
        let byHit = hit.enumerated().sorted { $0.element.1 != $1.element.1 ? $0.element.1 > $1.element.1 : $0.offset < $1.offset }.map(\.element)
        if report.measure != .offPolicy, let top = byDR.first {
            var runs: [ReportRun] = [.plain("Off-policy estimates (doubly robust, from the logged propensities) put "), .strong(top.0),
                                     .plain(" first at \(f3(top.1)) engagements per decision")]
            if let h = byHit.first {
                if h.0 == top.0 {
                    runs.append(.plain(", as logged hit@1 does."))
                } else {
                    runs += [.plain(", where logged hit@1 puts "), .strong(h.0),
                             .plain(" first: hit@1 credits the taps that what the logging policy showed drew, the estimate reweights each logged round by how likely the policy was to show it.")]
                }
            } else {
                runs.append(.plain("."))
            }
            if report.measure == .counterfactual {
                runs.append(.plain(" The estimates include the display lift, so they are comparable to counterfactual engagement plus the lift."))
            }
            out.append(runs)
        }
        // Why Switch-DR may equal DR: no weight above its threshold.
        if let (_, _, e) = rows.first, let largest = rows.map({ $0.2.diagnostics.maxWeight }).max() {
            for estimate in e.estimates {
                guard case .switchDoublyRobust(let tau) = estimate.estimator else { continue }
                if largest <= tau {
                    out.append([.plain("Switch-DR equals DR here: it switches to the reward model only for rounds whose importance weight exceeds τ = \(String(format: "%g", tau)), and the largest weight is \(f2(largest)).")])
                }
                break
            }
        }
        return out
    }

    // MARK: - Trade-off

    /// `a` dominates `b` on `metric` (larger is better) and rotations: at least as good on both,
    /// strictly better on one.
    static func dominates(_ a: PolicyReport, _ b: PolicyReport, metric: Metric = .hitAt1) -> Bool {
        guard let ah = a.metrics[metric], let bh = b.metrics[metric],
              let ar = a.metrics[.rotationsPerActiveHour], let br = b.metrics[.rotationsPerActiveHour] else { return false }
        return ah >= bh && ar <= br && (ah > bh || ar < br)
    }

    private static func tradeOff(_ report: EvaluationReport, candidates: [PolicyReport], best: PolicyReport?) -> [[ReportRun]] {
        let m = report.headlineMetric
        let name = report.measure == .counterfactual ? "counterfactual engagement" : "hit@1"
        let both = candidates.filter { ($0.metrics[.rotationsPerActiveHour]?.isFinite ?? false) && ($0.metrics[m]?.isFinite ?? false) }
        guard both.count >= 2, let w = best, let wr = w.metrics[.rotationsPerActiveHour], let wh = w.metrics[m] else { return [] }
        // The calmest: fewest rotations per active hour; among equals the better, then the earlier.
        let calmest = both.enumerated().min { a, b in
            let x = a.element.metrics[.rotationsPerActiveHour]!, y = b.element.metrics[.rotationsPerActiveHour]!
            if x != y { return x < y }
            let hx = a.element.metrics[m]!, hy = b.element.metrics[m]!
            return hx != hy ? hx > hy : a.offset < b.offset
        }!.element
        let cr = calmest.metrics[.rotationsPerActiveHour]!, ch = calmest.metrics[m]!
        var first: [ReportRun]
        if calmest.name == w.name || wr <= cr {
            first = [.strong(w.name), .plain(" is also the calmest policy (\(f2(wr)) rotations per active hour), so its \(name) costs no stability here.")]
        } else if wh - ch < tieTolerance {
            first = [.strong(calmest.name), .plain(" matches the best \(name) (\(f3(ch))) while rotating least (\(f2(cr)) rotations per active hour against \(f2(wr)) for "),
                     .strong(w.name), .plain("), so the extra rotations buy nothing.")]
        } else {
            let ratio = cr > 0 ? String(format: ", %.1f× as many", wr / cr) : ""
            first = [.plain("\(name.prefix(1).uppercased() + name.dropFirst()) costs stability: "), .strong(w.name), .plain(" gains \(signed3(wh - ch)) over the calmest policy "),
                     .strong(calmest.name), .plain(" (\(f3(wh)) vs \(f3(ch))) but rotates \(f2(wr)) times per active hour instead of \(f2(cr))\(ratio)")]
            if let wf = w.metrics[.flickerRate], let cf = calmest.metrics[.flickerRate] {
                first.append(.plain(", with flicker \(f3(wf)) vs \(f3(cf))"))
            }
            if let wu = w.metrics[.unnecessaryRotationRate], let cu = calmest.metrics[.unnecessaryRotationRate] {
                first.append(.plain(" and unnecessary rotations \(f3(wu)) vs \(f3(cu))"))
            }
            first.append(.plain("."))
        }
        // The frontier: policies no other policy dominates.
        let dominated = both.filter { p in both.contains { dominates($0, p, metric: m) } }
        var second: [ReportRun] = []
        if dominated.isEmpty {
            second = [.plain("Every policy is on the \(name)–stability frontier: each one is either better or calmer than every other.")]
        } else {
            let shown = dominated.prefix(3)
            for (i, d) in shown.enumerated() {
                let by = both.first { dominates($0, d, metric: m) }!
                second += [.plain(i == 0 ? "" : "; "), .strong(d.name), .plain(" is dominated by "), .strong(by.name),
                           .plain(" (at least as good, rotating no more)")]
            }
            if dominated.count > shown.count { second.append(.plain("; and \(dominated.count - shown.count) more")) }
            let frontier = both.filter { p in !dominated.contains { $0.name == p.name } }
            second.append(.plain(". On the frontier: "))
            second += names(frontier.map(\.name))
            second.append(.plain("."))
        }
        return [first, second]
    }
}
