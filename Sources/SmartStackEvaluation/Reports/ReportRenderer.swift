import Foundation

/// Renders an `EvaluationReport` for people: `report.md`, a summary read in a minute, and
/// `report.html`, one self-contained page (inline CSS and SVG charts, no script, no network).
///
/// Both state the dataset and the options, the table of policies, the winner by hit@1 with the
/// significance of its lead, and the trade-off between accuracy and stability, all computed from
/// the report. Every name (policy, widget, stack, file) is escaped.
///
/// ```swift
/// let report = try Evaluator(options: options).evaluate(source, policies: factories)
/// try ReportRenderer.markdown(report).write(toFile: "out/report.md", atomically: true, encoding: .utf8)
/// try ReportRenderer.html(report).write(toFile: "out/report.html", atomically: true, encoding: .utf8)
/// ```
public enum ReportRenderer {
    /// The metrics of the policies table, in column order (decisions with target are shown
    /// inside the decisions column): the headline first.
    static func tableMetrics(_ report: EvaluationReport) -> [Metric] {
        let base: [Metric] = [.hitAt1, .hitAt3, .mrr, .ndcgAt3, .rotationsPerActiveHour, .flickerRate,
                              .medianDwellMinutes, .unnecessaryRotationRate, .coverage]
        return report.measure == .counterfactual ? [.counterfactualEngagement, .ceilingRatio] + base : base
    }

    /// The metrics compared in the paired table.
    static func pairedMetrics(_ report: EvaluationReport) -> [Metric] {
        let base: [Metric] = [.hitAt1, .hitAt3, .mrr, .ndcgAt3, .rotationsPerActiveHour, .flickerRate,
                              .unnecessaryRotationRate, .coverage]
        return report.measure == .counterfactual ? [.counterfactualEngagement, .ceilingRatio] + base : base
    }

    /// A column title in the report's terms: hit@1 is "logged hit@1" wherever it is not the
    /// headline.
    static func title(_ m: Metric, in report: EvaluationReport) -> String {
        m == .hitAt1 ? report.hitAt1Title : EvaluationReport.title(m)
    }

    /// The metrics whose interval the tables print (the headline and the two it is read with).
    static func intervalMetrics(_ report: EvaluationReport) -> Set<Metric> {
        [report.headlineMetric, .hitAt1, .rotationsPerActiveHour]
    }

    /// The off-policy headline cell of `p`: `0.140 [0.131, 0.149]`, `-` without an estimate.
    static func offPolicyCell(_ report: EvaluationReport, _ p: PolicyReport) -> String {
        let h = report.headline(of: p)
        guard let v = h.value else { return "-" }
        var cell = EvaluationReport.format(v, metric: .hitAt1)
        if let ci = h.interval {
            cell += " [\(EvaluationReport.format(ci.lowerBound, metric: .hitAt1)), \(EvaluationReport.format(ci.upperBound, metric: .hitAt1))]"
        }
        return cell
    }

    /// How `p` stands in the verdict: `winner`, `tied` (in the best group without a winner), or `nil`.
    static func standing(_ report: EvaluationReport, _ p: PolicyReport) -> String? {
        guard let v = report.verdict else { return nil }
        if v.winner == p.name { return "winner" }
        if v.winner == nil, v.leadInterval != nil, v.tied.count > 1, v.tied.contains(p.name) { return "tied for best" }
        return nil
    }

    /// Where the meaning of every figure is written down, in the SmartStack repository.
    static let glossary = "docs/metrics.md"

    /// A metric's value with its interval: `0.412 [0.380, 0.444]`.
    static func valueWithInterval(_ p: PolicyReport, _ m: Metric) -> String {
        var cell = EvaluationReport.format(p.metrics[m], metric: m)
        if let ci = p.ci[m], p.metrics[m] != nil {
            cell += " [\(EvaluationReport.format(ci.lowerBound, metric: m)), \(EvaluationReport.format(ci.upperBound, metric: m))]"
        }
        return cell
    }

    /// `1234 (567 with target)`.
    static func decisionsCell(_ p: PolicyReport) -> String {
        let d = EvaluationReport.format(p.metrics[.decisions], metric: .decisions)
        let t = EvaluationReport.format(p.metrics[.decisionsWithTarget], metric: .decisionsWithTarget)
        return "\(d) (\(t) with target)"
    }

    /// A paired difference with its interval: `+0.031 [+0.012, +0.050]`.
    static func pairedCell(_ c: PairedComparison, _ m: Metric) -> String {
        var cell = EvaluationReport.signed(c.difference[m], metric: m)
        if let ci = c.ci[m], c.difference[m] != nil {
            cell += " [\(EvaluationReport.signed(ci.lowerBound, metric: m)), \(EvaluationReport.signed(ci.upperBound, metric: m))]"
        }
        return cell
    }

    /// Whether a paired interval excludes zero, i.e. the difference is significant at 95%.
    static func isSignificant(_ c: PairedComparison, _ m: Metric) -> Bool {
        guard let ci = c.ci[m], c.difference[m] != nil else { return false }
        return ci.lowerBound > 0 || ci.upperBound < 0
    }

    /// `10 minutes`, `1 minute`, `2.5 minutes`.
    static func minutesPhrase(_ m: Double) -> String {
        let n = m == m.rounded() ? String(Int(m)) : String(format: "%g", m)
        return n + (m == 1 ? " minute" : " minutes")
    }

    /// The dataset as label/value facts (plain text, escaped by each renderer).
    static func datasetFacts(_ report: EvaluationReport) -> [(label: String, value: String)] {
        let d = report.dataset
        var facts: [(String, String)] = [("Dataset", d.name)]
        if !d.sources.isEmpty { facts.append((d.sources.count == 1 ? "Source" : "Sources", d.sources.joined(separator: ", "))) }
        var events = "\(d.events)"
        if let merged = (encodedFields(d)["merged_repeats"] as? NSNumber)?.intValue, merged > 0 {
            events += " after merging \(merged) consecutive repeat launch\(merged == 1 ? "" : "es")"
        }
        facts.append(("Events", events))
        var users = "\(d.usersEvaluated) of \(d.users) evaluated"
        if !d.usersSkipped.isEmpty {
            let shown = d.usersSkipped.prefix(10).map { "\($0.user) (\($0.reason))" }.joined(separator: ", ")
            users += "; skipped: \(shown)" + (d.usersSkipped.count > 10 ? " and \(d.usersSkipped.count - 10) more" : "")
        }
        facts.append(("Users", users))
        if let first = d.first, let last = d.last { facts.append(("Period", "\(first) to \(last)")) }
        let rest = d.usersEvaluated - d.usersWithScreenOn
        let rule = d.usersWithScreenOn == 0 ? "before each engagement (no screen_on in the data)"
            : rest <= 0 ? "at each screen_on" : "at each screen_on for \(d.usersWithScreenOn) users, before each engagement for \(rest)"
        facts.append(("Decision points", "\(d.decisionPoints), \(rule)"))
        if let decisions = report.policies.first?.metrics[.decisions] {
            facts.append(("Decisions", "\(Int(decisions)) scored: a decision point decides the top of every stack configured then, so a person with two stacks makes two decisions at each; decision points in the warm-up are replayed but not scored"))
        }
        facts.append(("Scored user-days", "\(d.userDays)"))
        facts.append(("Measure", report.measureLine.replacingOccurrences(of: "Measure: ", with: "")))
        if let t = report.truth {
            var v = "\(t.file) (\(t.lines) lines, digest \(t.digest)): \(t.matchedAtInstant) decisions matched at their instant"
            if t.matchedEarlier > 0 { v += ", \(t.matchedEarlier) to the line of their session" }
            if t.leftOutWithoutLine + t.leftOutUnknownWidget > 0 {
                v += ", \(t.leftOutWithoutLine + t.leftOutUnknownWidget) left out"
            }
            if let lift = t.displayLift { v += "; display lift \(String(format: "%.3f", lift))" }
            facts.append(("Truth", v))
        }
        if !report.loggingPolicies.isEmpty {
            facts.append(("Logged by", report.loggingPolicies.map { "\($0.name) (\($0.impressions) impressions)" }.joined(separator: ", ")))
        }
        return facts
    }

    /// The report's provenance as label/value facts, empty when it has none.
    static func provenanceFacts(_ report: EvaluationReport) -> [(label: String, value: String)] {
        guard let p = report.provenance else { return [] }
        var facts: [(String, String)] = [("SmartStack", p.version), ("Command", p.command), ("Generated", p.generated)]
        if let t = report.truth { facts.append(("Truth file", "\(t.file) (\(t.digest))")) }
        return facts
    }

    /// The options as label/value facts (plain text, escaped by each renderer).
    static func optionFacts(_ report: EvaluationReport) -> [(label: String, value: String)] {
        let o = report.options
        return [
            ("Attribution window", minutesPhrase(o.windowMinutes)),
            ("Warm-up", o.warmupDays == 1 ? "1 day excluded from scoring" : "\(o.warmupDays) days excluded from scoring"),
            ("Merge repeats", o.mergeRepeats ? "on (consecutive launches of the same app count once)" : "off"),
            ("Seed", "\(o.seed)"),
            ("Intervals", o.bootstrapResamples > 0
                ? String(format: "%g%% bootstrap intervals over user-days, %d resamples", o.confidenceLevel * 100, o.bootstrapResamples)
                : "none (bootstrap off)"),
            ("Flicker window", minutesPhrase(o.flickerWindowMinutes)),
            ("Reference policy", o.reference ?? "none"),
            ("Decision rule", o.decisionPointRule),
            ("Rotation", o.rotation),
        ]
    }

    /// The one-line options summary at the top of both reports.
    static func optionsLine(_ report: EvaluationReport) -> String {
        let o = report.options
        var s = "window \(minutesPhrase(o.windowMinutes)), warm-up \(o.warmupDays) day\(o.warmupDays == 1 ? "" : "s"), "
        s += "merge repeats \(o.mergeRepeats ? "on" : "off"), seed \(o.seed)"
        if let r = o.reference { s += ", reference \(r)" }
        return s
    }

    /// The one-line dataset summary at the top of both reports.
    static func datasetLine(_ report: EvaluationReport) -> String {
        let d = report.dataset
        var s = "\(d.events) events, \(d.usersEvaluated) of \(d.users) users"
        s += ", \(d.decisionPoints) decision points, \(d.userDays) scored user-days"
        return s
    }

    /// The top-level fields of `value`'s JSON encoding, i.e. its `report.json` keys (empty if
    /// it does not encode to an object). Optional figures that not every report carries are
    /// read this way, by their documented key.
    ///
    /// - Complexity: O(size of the encoding).
    static func encodedFields(_ value: some Encodable) -> [String: Any] {
        guard let data = try? JSONEncoder().encode(value),
              let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return [:] }
        return object
    }

    /// What the columns mean, in one paragraph.
    static func metricLegend(_ report: EvaluationReport) -> String {
        var s = ""
        switch report.measure {
        case .counterfactual:
            s += "Counterfactual engagement is the probability, read from the truth file, that the policy's own top is what the person came for; ÷ ceiling divides it by the same for the best eligible widget of each decision. "
        case .offPolicy:
            s += "Off-policy (DR) estimates the engagements per decision the policy would have had, from the logged impressions' propensities. "
        case .logged:
            break
        }
        s += "hit@1, hit@3, MRR and nDCG@3 score the stack order against the widget engaged within the attribution window (higher is better)"
        s += report.measure == .logged ? ". " : "; they are read against what the logging policy showed, so they favour it. "
        s += "Rotations per active hour, flicker (A → B → A within the flicker window) and unnecessary rotations (the new top is not engaged before the next rotation) measure restlessness (lower is calmer). "
        s += "Dwell is the median minutes a widget stays on top; coverage is the share of widgets ever on top. Every figure is defined in \(glossary) of the SmartStack repository."
        return s
    }
}
