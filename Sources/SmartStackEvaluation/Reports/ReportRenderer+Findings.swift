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

/// The conclusions drawn from a report's figures: the winner by hit@1 and whether its lead is
/// significant, the trade-off between accuracy and stability, the oracle's ceiling. Every
/// sentence is computed from the report; nothing is hard-coded.
struct ReportFindings {
    /// The policies that can win: every policy but the oracle, with a defined hit@1.
    let candidates: [PolicyReport]
    /// The policy with the best hit@1 (ties go to the earlier policy), if any.
    let winner: PolicyReport?
    /// The second best by hit@1.
    let runnerUp: PolicyReport?
    /// The oracle (ground-truth ceiling), if it was evaluated.
    let oracle: PolicyReport?
    /// The finding about the winner and the significance of its lead.
    let winnerSentence: [ReportRun]
    /// One or two sentences on accuracy against stability (empty with fewer than two policies).
    let tradeOffSentences: [[ReportRun]]
    /// The oracle's ceiling, if present.
    let oracleSentence: [ReportRun]?

    /// Two hit@1 values closer than this print the same with three decimals: a tie.
    static let tieTolerance = 0.0005

    /// Whether `name` is the oracle policy (the simulator's ground truth, not a real policy).
    static func isOracle(_ name: String) -> Bool { name == "oracle" || name.hasPrefix("oracle:") }

    /// Analyses `report`.
    ///
    /// - Complexity: O(policies²).
    init(_ report: EvaluationReport) {
        let policies = report.policies
        oracle = policies.first { Self.isOracle($0.name) }
        candidates = policies.filter { !Self.isOracle($0.name) && ($0.metrics[.hitAt1]?.isFinite ?? false) }
        // Stable sort by hit@1, best first: ties keep the order the policies were asked for.
        let ranked = candidates.enumerated().sorted { a, b in
            let x = a.element.metrics[.hitAt1]!, y = b.element.metrics[.hitAt1]!
            return x != y ? x > y : a.offset < b.offset
        }.map(\.element)
        winner = ranked.first
        runnerUp = ranked.count > 1 ? ranked[1] : nil
        winnerSentence = Self.winnerSentence(report, ranked: ranked, evaluatedCount: policies.count)
        tradeOffSentences = Self.tradeOff(candidates: candidates, winner: ranked.first)
        oracleSentence = oracle.map { Self.oracleSentence(oracle: $0, winner: ranked.first) }
    }

    /// All findings in reading order.
    var sentences: [[ReportRun]] {
        [winnerSentence] + tradeOffSentences + (oracleSentence.map { [$0] } ?? [])
    }

    // MARK: - Winner

    static func f3(_ v: Double) -> String { String(format: "%.3f", v) }
    static func signed3(_ v: Double) -> String { (v >= 0 ? "+" : "-") + String(format: "%.3f", abs(v)) }
    static func f2(_ v: Double) -> String { String(format: "%.2f", v) }

    static func interval(_ r: ClosedRange<Double>) -> String { "\(f3(r.lowerBound))–\(f3(r.upperBound))" }
    static func signedInterval(_ r: ClosedRange<Double>) -> String { "[\(signed3(r.lowerBound)), \(signed3(r.upperBound))]" }

    private static func winnerSentence(_ report: EvaluationReport, ranked: [PolicyReport], evaluatedCount: Int) -> [ReportRun] {
        guard let w = ranked.first, let wh = w.metrics[.hitAt1] else {
            if evaluatedCount == 0 { return [.plain("No policy was evaluated.")] }
            if ranked.isEmpty, evaluatedCount > 0, report.policies.allSatisfy({ isOracle($0.name) }) {
                return [.plain("Only the oracle was evaluated, so there is no real policy to rank.")]
            }
            return [.plain("No scored decision had a target (an engagement within the attribution window), so hit@1 is undefined and there is no winner.")]
        }
        var runs: [ReportRun] = []
        let ci = w.ci[.hitAt1]
        let wText = f3(wh) + (ci.map { " (95% CI \(interval($0)))" } ?? "")
        guard let r = ranked.dropFirst().first, let rh = r.metrics[.hitAt1] else {
            runs = [.strong(w.name), .plain(" is the only policy evaluated\(report.policies.count > 1 ? " besides the oracle" : ""); its hit@1 is \(wText).")]
            return runs
        }
        // Tied policies in the order they were asked for.
        let tied = report.policies.filter { p in ranked.contains { $0.name == p.name } && abs(p.metrics[.hitAt1]! - wh) < tieTolerance }
        if tied.count > 1 {
            runs.append(.plain("Tie for the best hit@1 (\(f3(wh)) to three decimals): "))
            for (i, t) in tied.enumerated() {
                if i > 0 { runs.append(.plain(i == tied.count - 1 ? " and " : ", ")) }
                runs.append(.strong(t.name))
            }
            runs.append(.plain("; no winner by hit@1."))
            return runs
        }
        runs = [.plain("Winner by hit@1: "), .strong(w.name), .plain(" at \(wText), ahead of "), .strong(r.name),
                .plain(" at \(f3(rh)) (lead \(signed3(wh - rh))). ")]
        runs += significance(report, winner: w, runnerUp: r)
        return runs
    }

    /// Whether the winner's lead over the runner-up is significant: by the paired interval when
    /// one of the two is the reference, otherwise by comparing their (unpaired) intervals.
    private static func significance(_ report: EvaluationReport, winner w: PolicyReport, runnerUp r: PolicyReport) -> [ReportRun] {
        let reference = report.options.reference
        // Paired: the difference winner − runner-up, with its interval, from whichever is not the reference.
        var paired: (difference: Double, ci: ClosedRange<Double>)?
        if reference == r.name, let p = w.paired, let d = p.difference[.hitAt1], let ci = p.ci[.hitAt1] {
            paired = (d, ci)
        } else if reference == w.name, let p = r.paired, let d = p.difference[.hitAt1], let ci = p.ci[.hitAt1] {
            paired = (-d, (-ci.upperBound)...(-ci.lowerBound))
        }
        if let paired {
            let significant = paired.ci.lowerBound > 0 || paired.ci.upperBound < 0
            let verdict = significant ? "significant: it excludes zero." : "not significant: it includes zero."
            return [.plain("The paired 95% interval of the lead on the same decisions is \(signedInterval(paired.ci)), so the lead is \(verdict)")]
        }
        guard let wc = w.ci[.hitAt1], let rc = r.ci[.hitAt1] else {
            return [.plain("Without bootstrap intervals the significance of the lead is not assessed.")]
        }
        var runs: [ReportRun]
        if wc.lowerBound > rc.upperBound {
            runs = [.plain("Their 95% intervals do not overlap, so the lead is significant even without pairing")]
        } else {
            runs = [.plain("Their 95% intervals overlap, so these unpaired intervals cannot establish the lead")]
        }
        if let reference {
            if reference == w.name || reference == r.name {
                runs.append(.plain(" (no paired interval for hit@1 was computed)."))
            } else {
                runs += [.plain(" (paired intervals are against the reference "), .strong(reference), .plain(" only; run with "),
                         .code("--reference \(r.name)"), .plain(" for a paired test).")]
            }
        } else {
            runs += [.plain(" (run with "), .code("--reference \(r.name)"), .plain(" for a paired test).")]
        }
        return runs
    }

    // MARK: - Trade-off

    /// `a` dominates `b` when it is at least as accurate and rotates at most as often, and
    /// strictly better in one of the two.
    static func dominates(_ a: PolicyReport, _ b: PolicyReport) -> Bool {
        guard let ah = a.metrics[.hitAt1], let bh = b.metrics[.hitAt1],
              let ar = a.metrics[.rotationsPerActiveHour], let br = b.metrics[.rotationsPerActiveHour] else { return false }
        return ah >= bh && ar <= br && (ah > bh || ar < br)
    }

    private static func tradeOff(candidates: [PolicyReport], winner: PolicyReport?) -> [[ReportRun]] {
        let both = candidates.filter { $0.metrics[.rotationsPerActiveHour]?.isFinite ?? false }
        guard both.count >= 2, let w = winner, let wr = w.metrics[.rotationsPerActiveHour], let wh = w.metrics[.hitAt1] else { return [] }
        // The calmest: fewest rotations per active hour; among equals the more accurate, then the earlier.
        let calmest = both.enumerated().min { a, b in
            let x = a.element.metrics[.rotationsPerActiveHour]!, y = b.element.metrics[.rotationsPerActiveHour]!
            if x != y { return x < y }
            let hx = a.element.metrics[.hitAt1]!, hy = b.element.metrics[.hitAt1]!
            return hx != hy ? hx > hy : a.offset < b.offset
        }!.element
        let cr = calmest.metrics[.rotationsPerActiveHour]!, ch = calmest.metrics[.hitAt1]!
        var first: [ReportRun]
        if calmest.name == w.name || wr <= cr {
            first = [.strong(w.name), .plain(" is also the calmest policy (\(f2(wr)) rotations per active hour), so its accuracy costs no stability here.")]
        } else if wh - ch < tieTolerance {
            first = [.strong(calmest.name), .plain(" matches the best hit@1 (\(f3(ch))) while rotating least (\(f2(cr)) rotations per active hour against \(f2(wr)) for "),
                     .strong(w.name), .plain("), so the extra rotations buy no accuracy.")]
        } else {
            let ratio = cr > 0 ? String(format: ", %.1f× as many", wr / cr) : ""
            first = [.plain("Accuracy costs stability: "), .strong(w.name), .plain(" gains \(signed3(wh - ch)) hit@1 over the calmest policy "),
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
        let dominated = both.filter { p in both.contains { dominates($0, p) } }
        var second: [ReportRun] = []
        if dominated.isEmpty {
            second = [.plain("Every policy is on the accuracy–stability frontier: each one is either more accurate or calmer than every other.")]
        } else {
            let shown = dominated.prefix(3)
            for (i, d) in shown.enumerated() {
                let by = both.first { dominates($0, d) }!
                second += [.plain(i == 0 ? "" : "; "), .strong(d.name), .plain(" is dominated by "), .strong(by.name),
                           .plain(" (at least as accurate, rotating no more)")]
            }
            if dominated.count > shown.count { second.append(.plain("; and \(dominated.count - shown.count) more")) }
            let frontier = both.filter { p in !dominated.contains { $0.name == p.name } }
            second.append(.plain(". On the frontier: "))
            for (i, f) in frontier.enumerated() {
                if i > 0 { second.append(.plain(", ")) }
                second.append(.strong(f.name))
            }
            second.append(.plain("."))
        }
        return [first, second]
    }

    // MARK: - Oracle

    private static func oracleSentence(oracle: PolicyReport, winner: PolicyReport?) -> [ReportRun] {
        guard let oh = oracle.metrics[.hitAt1] else {
            return [.plain("The oracle was evaluated but had no decision with a target.")]
        }
        var runs: [ReportRun] = [.plain("Ceiling: the oracle (ground truth of the simulation) reaches hit@1 \(f3(oh))")]
        if let r = oracle.metrics[.rotationsPerActiveHour] { runs.append(.plain(" with \(f2(r)) rotations per active hour")) }
        if let w = winner, let wh = w.metrics[.hitAt1], oh > 0 {
            runs += [.plain("; "), .strong(w.name), .plain(String(format: " reaches %.0f%% of it.", wh / oh * 100))]
        } else {
            runs.append(.plain("."))
        }
        return runs
    }
}
