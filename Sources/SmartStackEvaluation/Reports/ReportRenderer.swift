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
    /// inside the decisions column).
    static let tableMetrics: [Metric] = [.hitAt1, .hitAt3, .mrr, .ndcgAt3, .rotationsPerActiveHour, .flickerRate,
                                         .medianDwellMinutes, .unnecessaryRotationRate, .coverage]

    /// The metrics compared in the paired table.
    static let pairedMetrics: [Metric] = [.hitAt1, .hitAt3, .mrr, .ndcgAt3, .rotationsPerActiveHour, .flickerRate,
                                          .unnecessaryRotationRate, .coverage]

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
        facts.append(("Scored user-days", "\(d.userDays)"))
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
    static let metricLegend = "hit@1, hit@3, MRR and nDCG@3 score the stack order against the widget engaged within the attribution window (higher is better). "
        + "Rotations per active hour, flicker (A → B → A within the flicker window) and unnecessary rotations (the new top is not engaged before the next rotation) measure restlessness (lower is calmer). "
        + "Dwell is the median minutes a widget stays on top; coverage is the share of widgets ever on top."
}
