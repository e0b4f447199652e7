import Foundation

extension EvaluationReport {
    /// A fixed-precision rendering of a metric value (`-` when undefined).
    public static func format(_ value: Double?, metric: Metric) -> String {
        guard let value, value.isFinite else { return "-" }
        switch metric {
        case .decisions, .decisionsWithTarget, .decisionsWithTruth: return String(Int(value))
        case .rotationsPerActiveHour, .medianDwellMinutes: return String(format: "%.2f", value)
        default: return String(format: "%.3f", value)
        }
    }

    /// A short column title for each metric.
    public static func title(_ metric: Metric) -> String {
        switch metric {
        case .counterfactualEngagement: "cf. engagement"
        case .ceiling: "ceiling"
        case .ceilingRatio: "÷ ceiling"
        case .decisionsWithTruth: "with truth"
        case .hitAt1: "hit@1"
        case .hitAt3: "hit@3"
        case .mrr: "MRR"
        case .ndcgAt3: "nDCG@3"
        case .rotationsPerActiveHour: "rot/active h"
        case .flickerRate: "flicker"
        case .medianDwellMinutes: "dwell min"
        case .unnecessaryRotationRate: "unnecessary"
        case .coverage: "coverage"
        case .decisions: "decisions"
        case .decisionsWithTarget: "with target"
        }
    }

    /// The metrics shown with their interval in the text table.
    static let tableIntervalMetrics: Set<Metric> = [.counterfactualEngagement, .hitAt1, .mrr, .rotationsPerActiveHour]

    /// The columns of the tables for a report of `measure`: the headline first.
    static func columns(for measure: EvaluationMeasure) -> [Metric] {
        let base: [Metric] = [.hitAt1, .hitAt3, .mrr, .ndcgAt3, .rotationsPerActiveHour, .flickerRate, .medianDwellMinutes,
                              .unnecessaryRotationRate, .coverage, .decisions, .decisionsWithTarget]
        return measure == .counterfactual ? [.counterfactualEngagement, .ceilingRatio] + base + [.decisionsWithTruth] : base
    }

    /// The policies in the order the report shows them: by the headline measure, best first
    /// (the verdict's ranking), then any policy it could not rank, then the oracle.
    public var policiesInHeadlineOrder: [PolicyReport] {
        let ranking = verdict?.ranking ?? []
        let ranked = ranking.compactMap { name in policies.first { $0.name == name } }
        let rest = policies.filter { p in !ranking.contains(p.name) && !ReportFindings.isOracle(p.name) }
        return ranked + rest + policies.filter { ReportFindings.isOracle($0.name) }
    }

    /// One line saying what the headline measure is and how far to trust it.
    public var measureLine: String {
        switch measure {
        case .counterfactual:
            var s = "Measure: counterfactual engagement, the probability that each policy's own top is what the person came for"
            if let t = truth {
                s += " (truth \(t.file), \(t.decisionsWithTruth) decisions"
                if let c = policies.first?.metrics[.ceiling] { s += ", ceiling \(Self.format(c, metric: .ceiling))" }
                if let l = t.displayLift { s += ", display lift \(Self.format(l, metric: .ceiling)) kept apart" }
                s += ")"
            }
            return s + "; hit@1 is against the logged engagements"
        case .offPolicy:
            return "Measure: off-policy engagement per decision (doubly robust) from the logged impressions' propensities" + loggedBy
                + "; hit@1 is against the logged engagements"
        case .logged:
            return "Measure: logged hit@1, which favours the policy that produced the log" + loggedBy
                + "; record widget_impression events with a propensity, or give a truth file, to read it unbiased"
        }
    }

    /// ` (logged by X)` naming the main logging policy, or empty.
    private var loggedBy: String {
        guard let first = loggingPolicies.first else { return "" }
        return " (logged by \(first.name)\(loggingPolicies.count > 1 ? " and \(loggingPolicies.count - 1) more" : ""))"
    }

    /// The verdict in one line.
    public var verdictLine: String? {
        guard let v = verdict else { return nil }
        let figure = measure.figure
        if let w = v.winner {
            var s = "Verdict: \(w) is best by \(figure)"
            if let r = v.runnerUp, let lead = v.lead {
                s += ", ahead of \(r) by \(ReportFindings.signedDifference(lead, scale: max(abs(lead), abs(v.leadInterval?.last ?? 0))))"
                if let ci = v.leadInterval { s += " " + ReportFindings.differenceInterval(ci, difference: lead) }
            }
            return s + " (paired 95% interval excludes zero)"
        }
        if v.differences.isEmpty { return "Verdict: \(v.best) is the only policy ranked by \(figure)" }
        if v.leadInterval == nil {
            return "Verdict: no winner by \(figure): \(v.best) leads, but without bootstrap intervals no lead can be tested"
        }
        return "Verdict: no winner by \(figure): \(v.best) leads, but \(v.tied.dropFirst().joined(separator: ", ")) "
            + "\(v.tied.count == 2 ? "is" : "are") not behind it beyond chance (paired 95% intervals include zero)"
    }

    /// The text table printed by `smartstack evaluate` without `--report`: a header naming the
    /// dataset, options and measure, one aligned row per policy (best first by the headline
    /// measure), the verdict, and the paired differences when a reference was given.
    ///
    /// - Complexity: O(policies × metrics).
    public func textTable() -> String {
        var out = ""
        let d = dataset
        out += "Dataset: \(d.name): \(d.events) events, \(d.usersEvaluated) of \(d.users) users evaluated"
        if !d.usersSkipped.isEmpty { out += " (\(d.usersSkipped.count) skipped)" }
        out += ", \(d.decisionPoints) decision points, \(d.userDays) scored user-days\n"
        out += "Options: window \(Self.minutes(options.windowMinutes)), merge repeats \(options.mergeRepeats ? "on" : "off"), "
        out += "warm-up \(options.warmupDays) days, seed \(options.seed), "
        out += options.bootstrapResamples > 0 ? "95% intervals from \(options.bootstrapResamples) bootstrap resamples over user-days\n"
                                               : "no intervals (bootstrap off)\n"
        out += measureLine + "\n"
        for w in warnings { out += "Warning: \(w)\n" }
        out += "\n"
        let metrics = Self.columns(for: measure)
        var header = ["policy"] + metrics.map { m in measure == .counterfactual && m == .hitAt1 ? "logged hit@1" : Self.title(m) }
        if measure == .offPolicy { header.insert("ope DR", at: 1) }
        var rows: [[String]] = [header]
        for p in policiesInHeadlineOrder {
            var row = [p.name]
            if measure == .offPolicy {
                var cell = "-"
                if let e = p.ope?.estimates?[.doublyRobust()], let v = e.value {
                    cell = Self.format(v, metric: .hitAt1)
                    if let ci = e.interval, ci.count == 2 { cell += " [\(Self.format(ci[0], metric: .hitAt1)), \(Self.format(ci[1], metric: .hitAt1))]" }
                }
                row.append(cell)
            }
            for m in metrics {
                var cell = Self.format(p.metrics[m], metric: m)
                if Self.tableIntervalMetrics.contains(m), let ci = p.ci[m] {
                    cell += " [\(Self.format(ci.lowerBound, metric: m)), \(Self.format(ci.upperBound, metric: m))]"
                }
                row.append(cell)
            }
            rows.append(row)
        }
        out += Self.aligned(rows)
        if let v = verdictLine { out += "\n" + v + "\n" }
        let pairedPolicies = policiesInHeadlineOrder.filter { $0.paired != nil }
        if let reference = options.reference, !pairedPolicies.isEmpty {
            out += "\nPaired difference against \(reference) (same decisions; 95% interval):\n"
            var shown: [Metric] = [.hitAt1, .hitAt3, .mrr, .ndcgAt3, .rotationsPerActiveHour, .flickerRate, .unnecessaryRotationRate]
            if measure == .counterfactual { shown.insert(.counterfactualEngagement, at: 0) }
            var prow: [[String]] = [["policy"] + shown.map { m in measure == .counterfactual && m == .hitAt1 ? "logged hit@1" : Self.title(m) }]
            for p in pairedPolicies {
                guard let pc = p.paired else { continue }
                var row = [p.name]
                for m in shown {
                    var cell = Self.signed(pc.difference[m], metric: m)
                    if let ci = pc.ci[m] { cell += " [\(Self.signed(ci.lowerBound, metric: m)), \(Self.signed(ci.upperBound, metric: m))]" }
                    row.append(cell)
                }
                prow.append(row)
            }
            out += Self.aligned(prow)
        }
        if let curve = byDay {
            let table = LearningCurveTable(curve)
            out += "\nBy day since the stacks were configured (\(curve.isCounterfactual ? "counterfactual engagement" : "hit@1"); † fewer than \(curve.minimumDecisions) decisions):\n"
            var rows = [["day"] + table.titles]
            for row in table.rows { rows.append([row.label + (row.isThin ? "†" : "")] + row.cells) }
            if let reach = table.reach { rows.append([reach.label] + reach.cells) }
            out += Self.aligned(rows)
        }
        return out
    }

    static func signed(_ v: Double?, metric: Metric) -> String {
        guard let v, v.isFinite else { return "-" }
        return (v >= 0 ? "+" : "") + format(v, metric: metric)
    }

    static func minutes(_ m: Double) -> String {
        m == m.rounded() ? "\(Int(m))m" : String(format: "%.2gm", m)
    }

    /// Left-aligns the first column and right-aligns the others, two spaces apart.
    static func aligned(_ rows: [[String]]) -> String {
        guard let columns = rows.first?.count else { return "" }
        var widths = Array(repeating: 0, count: columns)
        for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
        var out = ""
        for r in rows {
            var line = ""
            for (i, c) in r.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - c.count)
                line += i == 0 ? c + pad : "  " + pad + c
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        return out
    }
}
