import Foundation

extension ReportRenderer {
    /// `report.md`: a summary a person reads in a minute: the dataset and options, the findings
    /// (winner by hit@1 and the significance of its lead, the trade-off between accuracy and
    /// stability, the oracle's ceiling), the table of policies with intervals, the paired
    /// differences against the reference and the off-policy estimates when present.
    ///
    /// - Complexity: O(policies² + policies × metrics).
    public static func markdown(_ report: EvaluationReport) -> String {
        let findings = ReportFindings(report)
        var out = "# SmartStack evaluation: \(escapeMarkdown(report.dataset.name))\n\n"
        out += escapeMarkdown(datasetLine(report)) + ". Options: " + escapeMarkdown(optionsLine(report)) + ".\n\n"

        out += "## Findings\n\n"
        for sentence in findings.sentences { out += "- " + markdown(sentence) + "\n" }
        out += "\n"

        out += "## Policies\n\n"
        out += markdownPoliciesTable(report, findings: findings)
        if report.options.bootstrapResamples > 0 {
            out += "\nIntervals in brackets: \(String(format: "%g", report.options.confidenceLevel * 100))% bootstrap over user-days (\(report.options.bootstrapResamples) resamples, seed \(report.options.seed)).\n"
        }
        out += "\n" + escapeMarkdownProse(metricLegend) + "\n"

        let paired = report.policies.filter { $0.paired != nil }
        if let reference = report.options.reference, !paired.isEmpty {
            out += "\n## Paired differences against \(escapeMarkdown(reference))\n\n"
            out += "Policy minus \(escapeMarkdown(reference)) on the same decisions, with the paired 95% interval; **bold** where the interval excludes zero.\n\n"
            out += "| policy | " + pairedMetrics.map { escapeMarkdown(EvaluationReport.title($0)) }.joined(separator: " | ") + " |\n"
            out += "|:---|" + pairedMetrics.map { _ in "---:" }.joined(separator: "|") + "|\n"
            for p in paired {
                guard let c = p.paired else { continue }
                let cells = pairedMetrics.map { m -> String in
                    let cell = pairedCell(c, m)
                    return isSignificant(c, m) ? "**\(cell)**" : cell
                }
                out += "| \(escapeMarkdown(p.name)) | " + cells.joined(separator: " | ") + " |\n"
            }
        }

        if let ope = OffPolicyTable(report) {
            out += "\n## Off-policy estimates from logged impressions\n\n"
            out += "Engagement rate each policy would have had, estimated from the logged `widget_impression` propensities (95% bootstrap intervals).\n\n"
            out += "| policy | impressions | logged rate | " + ope.estimators.map { escapeMarkdown(OffPolicyTable.title(estimator: $0)) }.joined(separator: " | ") + " |\n"
            out += "|:---|---:|---:|" + ope.estimators.map { _ in "---:" }.joined(separator: "|") + "|\n"
            for row in ope.rows {
                var cells = [escapeMarkdown(row.policy), "\(row.impressions)", OffPolicyTable.cell(row.loggedRate, nil)]
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
        out += "\nCharts (intervals, accuracy by hour, accuracy against rotations, one day's rotation timeline): open `report.html` in a browser.\n"
        return out
    }

    /// The policies table, the winner in bold and the oracle marked as the ceiling.
    static func markdownPoliciesTable(_ report: EvaluationReport, findings: ReportFindings) -> String {
        var out = "| policy | " + tableMetrics.map { m in
            escapeMarkdown(EvaluationReport.title(m)) + (m == .hitAt1 && report.options.bootstrapResamples > 0 ? " [95% CI]" : "")
        }.joined(separator: " | ") + " | decisions |\n"
        out += "|:---|" + tableMetrics.map { _ in "---:" }.joined(separator: "|") + "|---:|\n"
        for p in report.policies {
            var name = escapeMarkdown(p.name)
            if p.name == findings.winner?.name, findings.runnerUp == nil || !isTie(findings) { name = "**\(name)** (winner)" }
            if ReportFindings.isOracle(p.name) { name += " (ceiling)" }
            let cells = tableMetrics.map { m in
                m == .hitAt1 ? valueWithInterval(p, m) : EvaluationReport.format(p.metrics[m], metric: m)
            }
            out += "| \(name) | " + cells.joined(separator: " | ") + " | \(decisionsCell(p)) |\n"
        }
        return out
    }

    /// Whether the best two policies tie on hit@1.
    static func isTie(_ findings: ReportFindings) -> Bool {
        guard let w = findings.winner?.metrics[.hitAt1], let r = findings.runnerUp?.metrics[.hitAt1] else { return false }
        return abs(w - r) < ReportFindings.tieTolerance
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
