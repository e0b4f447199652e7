import Foundation

extension ReportRenderer {
    /// `report.md`: a summary a person reads in a minute: the dataset and options, the measure
    /// the verdict rests on, the findings (the verdict, the ceiling, the trade-off between the
    /// headline and stability, the off-policy reading), the table of policies best first with
    /// intervals, the paired differences against the reference, the off-policy estimates when
    /// present, and the report's provenance.
    ///
    /// - Complexity: O(policies² + policies × metrics).
    public static func markdown(_ report: EvaluationReport) -> String {
        let findings = ReportFindings(report)
        var out = "# SmartStack evaluation: \(escapeMarkdown(report.dataset.name))\n\n"
        out += escapeMarkdown(datasetLine(report)) + ". Options: " + escapeMarkdown(optionsLine(report)) + ".\n\n"
        out += "**Measure: \(escapeMarkdown(report.measure.figure)).** " + escapeMarkdown(report.verdictLine ?? "") + "\n\n"

        out += "## Findings\n\n"
        for sentence in findings.sentences { out += "- " + markdown(sentence) + "\n" }
        out += "\n"
        if !report.warnings.isEmpty {
            out += "## Warnings\n\n"
            for w in report.warnings { out += "- " + escapeMarkdown(w) + "\n" }
            out += "\n"
        }

        out += "## Policies\n\n"
        out += markdownPoliciesTable(report)
        if report.options.bootstrapResamples > 0 {
            out += "\nIntervals in brackets: \(String(format: "%g", report.options.confidenceLevel * 100))% bootstrap over user-days (\(report.options.bootstrapResamples) resamples, seed \(report.options.seed)).\n"
        }
        out += "\n" + escapeMarkdownProse(metricLegend(report)) + "\n"

        let paired = report.policiesInHeadlineOrder.filter { $0.paired != nil }
        if let reference = report.options.reference, !paired.isEmpty {
            let metrics = pairedMetrics(report)
            out += "\n## Paired differences against \(escapeMarkdown(reference))\n\n"
            out += "Policy minus \(escapeMarkdown(reference)) on the same decisions, with the paired 95% interval; **bold** where the interval excludes zero.\n\n"
            out += "| policy | " + metrics.map { escapeMarkdown(title($0, in: report)) }.joined(separator: " | ") + " |\n"
            out += "|:---|" + metrics.map { _ in "---:" }.joined(separator: "|") + "|\n"
            for p in paired {
                guard let c = p.paired else { continue }
                let cells = metrics.map { m -> String in
                    let cell = pairedCell(c, m)
                    return isSignificant(c, m) ? "**\(cell)**" : cell
                }
                out += "| \(escapeMarkdown(p.name)) | " + cells.joined(separator: " | ") + " |\n"
            }
        }

        if let curve = report.byDay {
            out += "\n## Learning curve by day since the stacks were configured\n\n"
            out += markdownLearningCurve(curve)
        }

        if let ope = OffPolicyTable(report) {
            let truthColumn = report.measure == .counterfactual && report.truth?.displayLift != nil
            out += "\n## Off-policy estimates from logged impressions\n\n"
            out += "Engagement rate each policy would have had, estimated from the logged `widget_impression` propensities (95% bootstrap intervals over user-days, as every interval of the report)."
            if truthColumn { out += " The truth column is the same quantity read from the truth file: counterfactual engagement plus the display lift." }
            out += "\n\n"
            out += "| policy | impressions | logged rate | " + (truthColumn ? "truth | " : "")
                + ope.estimators.map { escapeMarkdown(OffPolicyTable.title(estimator: $0)) }.joined(separator: " | ") + " |\n"
            out += "|:---|---:|---:|" + (truthColumn ? "---:|" : "") + ope.estimators.map { _ in "---:" }.joined(separator: "|") + "|\n"
            for row in ope.rows {
                var cells = [escapeMarkdown(row.policy), "\(row.impressions)", OffPolicyTable.cell(row.loggedRate, nil)]
                if truthColumn { cells.append(OffPolicyTable.cell(truthValue(report, row.policy), nil)) }
                cells += ope.estimators.map { OffPolicyTable.cell(row.values[$0]?.value, row.values[$0]?.ci) }
                out += "| " + cells.joined(separator: " | ") + " |\n"
            }
            if !ope.diagnosticNames.isEmpty {
                out += "\n| policy | " + ope.diagnosticNames.map { escapeMarkdown(OffPolicyTable.title(diagnostic: $0)) }.joined(separator: " | ") + " |\n"
                out += "|:---|" + ope.diagnosticNames.map { _ in "---:" }.joined(separator: "|") + "|\n"
                for row in ope.rows {
                    out += "| \(escapeMarkdown(row.policy)) | " + ope.diagnosticNames.map { OffPolicyTable.diagnostic(row.diagnostics[$0]) }.joined(separator: " | ") + " |\n"
                }
            }
            let notes = ope.rows.compactMap { r in r.note.map { "- \(escapeMarkdown(r.policy)): \(escapeMarkdown($0))" } }
            if !notes.isEmpty { out += "\n" + notes.joined(separator: "\n") + "\n" }
        }

        out += "\n## Dataset and options\n\n"
        for (label, value) in datasetFacts(report) + optionFacts(report) {
            out += "- \(label): \(escapeMarkdown(value))\n"
        }
        let provenance = provenanceFacts(report)
        if !provenance.isEmpty {
            out += "\n## Provenance\n\n"
            for (label, value) in provenance { out += "- \(label): \(escapeMarkdown(value))\n" }
        }
        out += "\nCharts (intervals, \(escapeMarkdownProse(report.hourMetric == .counterfactualEngagement ? "counterfactual engagement" : "hit@1")) by hour, the headline against rotations, one day's rotation timeline): open `report.html` in a browser. What each figure means: `\(glossary)` in the SmartStack repository.\n"
        return out
    }

    /// The learning curve's legend and table: a row per day (then per week), the reach row last.
    static func markdownLearningCurve(_ curve: LearningCurve) -> String {
        let table = LearningCurveTable(curve)
        var out = escapeMarkdownProse(table.legend) + "\n\n"
        out += "| day | " + table.titles.map(escapeMarkdown).joined(separator: " | ") + " |\n"
        out += "|---:|" + table.titles.map { _ in "---:" }.joined(separator: "|") + "|\n"
        for row in table.rows {
            out += "| \(row.label)\(row.isThin ? "†" : "") | " + row.cells.joined(separator: " | ") + " |\n"
        }
        if let reach = table.reach {
            out += "| \(escapeMarkdownProse(reach.label)) | " + reach.cells.map { $0.isEmpty ? "" : "**\($0)**" }.joined(separator: " | ") + " |\n"
        }
        return out
    }

    /// What the truth file says an off-policy estimate should find for `policy`: its
    /// counterfactual engagement plus the display lift (`nil` without both).
    static func truthValue(_ report: EvaluationReport, _ policy: String) -> Double? {
        guard let p = report.policies.first(where: { $0.name == policy }), let v = p.metrics[.counterfactualEngagement],
              let lift = report.truth?.displayLift else { return nil }
        return v + lift
    }

    /// The policies table, best first by the headline: the winner (or the tied group) marked
    /// and the oracle marked as the ceiling.
    static func markdownPoliciesTable(_ report: EvaluationReport) -> String {
        let metrics = tableMetrics(report)
        let intervals = intervalMetrics(report)
        let withIntervals = report.options.bootstrapResamples > 0
        var out = "| policy | "
        if report.measure == .offPolicy { out += "off-policy (DR)\(withIntervals ? " [95% CI]" : "") | " }
        out += metrics.map { m in
            escapeMarkdown(title(m, in: report)) + (m == report.headlineMetric && report.measure != .offPolicy && withIntervals ? " [95% CI]" : "")
        }.joined(separator: " | ") + " | decisions |\n"
        out += "|:---|" + (report.measure == .offPolicy ? "---:|" : "") + metrics.map { _ in "---:" }.joined(separator: "|") + "|---:|\n"
        for p in report.policiesInHeadlineOrder {
            var name = escapeMarkdown(p.name)
            if let standing = standing(report, p) { name = "**\(name)** (\(standing))" }
            if ReportFindings.isOracle(p.name) { name += " (ceiling)" }
            var cells: [String] = []
            if report.measure == .offPolicy { cells.append(offPolicyCell(report, p)) }
            cells += metrics.map { m in
                intervals.contains(m) && m == report.headlineMetric ? valueWithInterval(p, m) : EvaluationReport.format(p.metrics[m], metric: m)
            }
            out += "| \(name) | " + cells.joined(separator: " | ") + " | \(decisionsCell(p)) |\n"
        }
        return out
    }

    /// A finding as Markdown: names in bold, everything escaped.
    static func markdown(_ runs: [ReportRun]) -> String {
        runs.map { run in
            switch run {
            case .plain(let s): escapeMarkdownProse(s)
            case .strong(let s): "**\(escapeMarkdown(s))**"
            case .code(let s): codeSpan(s)
            }
        }.joined()
    }

    /// Escapes the renderer's own prose and figures, which contain no names: only characters
    /// that would start emphasis, HTML or an entity, or end a table cell; brackets of intervals
    /// stay readable.
    ///
    /// - Complexity: O(length of `s`).
    static func escapeMarkdownProse(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\", "`", "*", "_", "<", "&", "|": out += "\\"; out.unicodeScalars.append(c)
            case "\n", "\r": out += " "
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A code span whose fence is longer than any run of backticks inside.
    static func codeSpan(_ s: String) -> String {
        let flat = s.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "|", with: "\\|")
        var longest = 0, run = 0
        for c in flat { if c == "`" { run += 1; longest = max(longest, run) } else { run = 0 } }
        let fence = String(repeating: "`", count: longest + 1)
        let pad = flat.hasPrefix("`") || flat.hasSuffix("`") ? " " : ""
        return fence + pad + flat + pad + fence
    }

    /// Escapes text for Markdown (CommonMark and GitHub tables): backslash before punctuation
    /// that could start markup or end a table cell, newlines folded into spaces.
    ///
    /// - Complexity: O(length of `s`).
    static func escapeMarkdown(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "\\", "`", "*", "_", "[", "]", "<", ">", "|", "#", "!", "&", "~", "{", "}":
                out += "\\"
                out.unicodeScalars.append(c)
            case "\n", "\r", "\t": out += " "
            default:
                if c.value < 0x20 || c.value == 0x7F { out += "\u{FFFD}" } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }
}
