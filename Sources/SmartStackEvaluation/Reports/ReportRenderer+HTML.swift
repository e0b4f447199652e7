import Foundation

extension ReportRenderer {
    /// `report.html`: one self-contained page (inline CSS and SVG, no script, nothing fetched)
    /// with the findings, the tables and four charts: policies with intervals, hit@1 by hour of
    /// day, hit@1 against rotations per active hour, and one day's rotation timeline against what
    /// was actually used. Charts scale with the window and carry titles and descriptions for
    /// screen readers; every name is escaped.
    ///
    /// - Complexity: O(policies² + policies × (metrics + 24) + timeline intervals × engagements).
    public static func html(_ report: EvaluationReport) -> String {
        let findings = ReportFindings(report)
        let name = escapeHTML(report.dataset.name)
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>SmartStack evaluation: \(name)</title>\n<style>\n\(css)</style>\n</head>\n<body>\n<main>\n"
        out += "<h1>SmartStack evaluation: \(name)</h1>\n"
        out += "<p class=\"lead\">\(escapeHTML(datasetLine(report))). Options: \(escapeHTML(optionsLine(report))).</p>\n"

        out += "<section aria-labelledby=\"findings\">\n<h2 id=\"findings\">Findings</h2>\n<ul class=\"findings\">\n"
        for sentence in findings.sentences { out += "<li>\(html(sentence))</li>\n" }
        out += "</ul>\n</section>\n"

        out += "<section aria-labelledby=\"policies\">\n<h2 id=\"policies\">Policies</h2>\n"
        out += htmlPoliciesTable(report, findings: findings)
        out += "<p class=\"note\">\(escapeHTML(metricLegend))"
        if report.options.bootstrapResamples > 0 {
            out += " Brackets: \(String(format: "%g", report.options.confidenceLevel * 100))% bootstrap intervals over user-days (\(report.options.bootstrapResamples) resamples, seed \(report.options.seed))."
        }
        out += "</p>\n</section>\n"

        out += "<section aria-labelledby=\"charts\">\n<h2 id=\"charts\">Charts</h2>\n"
        out += figure(SVGCharts.intervals(report), caption: "Each policy's hit@1 and rotations per active hour: the bar and dot mark the estimate, the whisker its 95% interval (hover for figures). The oracle, if present, is hollow.")
        out += figure(SVGCharts.byHour(report), caption: "hit@1 of the decisions made in each local hour of day, one line per policy; grey bars count decisions with a target that hour (right axis), so thin hours can be told from solid ones.")
        out += figure(SVGCharts.accuracyVersusRotations(report), caption: "Accuracy against restlessness, one point per policy with both 95% intervals. Up and to the left is better; the dashed line joins the policies no other beats on both.")
        if let timeline = SVGCharts.timeline(report) {
            out += figure(timeline, caption: "The day with the most decisions with a target. For each stack, diamonds mark the widgets actually used; each policy's lane shows which widget it kept on top (colour), and the count after its name is how many of the uses found that widget on top.")
        } else {
            out += "<p class=\"note\">No rotation timeline: no scored user-day had a decision with a target.</p>\n"
        }
        out += "</section>\n"

        let paired = report.policies.filter { $0.paired != nil }
        if let reference = report.options.reference, !paired.isEmpty {
            out += "<section aria-labelledby=\"paired\">\n<h2 id=\"paired\">Paired differences against \(escapeHTML(reference))</h2>\n"
            out += "<p>Policy minus \(escapeHTML(reference)) on the same decisions with the paired 95% interval; <strong>bold</strong> where the interval excludes zero.</p>\n"
            out += "<div class=\"table-wrap\"><table>\n<thead><tr><th scope=\"col\">policy</th>"
            out += pairedMetrics.map { "<th scope=\"col\">\(escapeHTML(EvaluationReport.title($0)))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
            for p in paired {
                guard let c = p.paired else { continue }
                out += "<tr><th scope=\"row\">\(escapeHTML(p.name))</th>"
                for m in pairedMetrics {
                    var cell = escapeHTML(EvaluationReport.signed(c.difference[m], metric: m))
                    if let ci = c.ci[m], c.difference[m] != nil {
                        cell += "<br><small>[\(escapeHTML(EvaluationReport.signed(ci.lowerBound, metric: m))), \(escapeHTML(EvaluationReport.signed(ci.upperBound, metric: m)))]</small>"
                    }
                    out += isSignificant(c, m) ? "<td class=\"significant\">\(cell)</td>" : "<td>\(cell)</td>"
                }
                out += "</tr>\n"
            }
            out += "</tbody>\n</table></div>\n</section>\n"
        }

        if let ope = OffPolicyTable(report) {
            out += "<section aria-labelledby=\"ope\">\n<h2 id=\"ope\">Off-policy estimates from logged impressions</h2>\n"
            out += "<p>Engagement rate each policy would have had, estimated from the logged <code>widget_impression</code> propensities (95% bootstrap intervals).</p>\n"
            out += "<div class=\"table-wrap\"><table>\n<thead><tr><th scope=\"col\">policy</th><th scope=\"col\">impressions</th><th scope=\"col\">logged rate</th>"
            out += ope.estimators.map { "<th scope=\"col\">\(escapeHTML(OffPolicyTable.title(estimator: $0)))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
            for row in ope.rows {
                out += "<tr><th scope=\"row\">\(escapeHTML(row.policy))</th><td>\(row.impressions)</td><td>\(OffPolicyTable.cell(row.loggedRate, nil))</td>"
                out += ope.estimators.map { "<td>\(escapeHTML(OffPolicyTable.cell(row.values[$0]?.value, row.values[$0]?.ci)))</td>" }.joined()
                out += "</tr>\n"
            }
            out += "</tbody>\n</table></div>\n"
            if !ope.diagnosticNames.isEmpty {
                out += "<div class=\"table-wrap\"><table>\n<caption>Weight diagnostics</caption>\n<thead><tr><th scope=\"col\">policy</th>"
                out += ope.diagnosticNames.map { "<th scope=\"col\">\(escapeHTML(OffPolicyTable.title(diagnostic: $0)))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
                for row in ope.rows {
                    out += "<tr><th scope=\"row\">\(escapeHTML(row.policy))</th>"
                    out += ope.diagnosticNames.map { "<td>\(OffPolicyTable.diagnostic(row.diagnostics[$0]))</td>" }.joined() + "</tr>\n"
                }
                out += "</tbody>\n</table></div>\n"
            }
            let notes = ope.rows.compactMap { r in r.note.map { "<li>\(escapeHTML(r.policy)): \(escapeHTML($0))</li>" } }
            if !notes.isEmpty { out += "<ul class=\"note\">\n" + notes.joined(separator: "\n") + "\n</ul>\n" }
            out += "</section>\n"
        }

        out += "<section aria-labelledby=\"setup\">\n<h2 id=\"setup\">Dataset and options</h2>\n<dl class=\"facts\">\n"
        for (label, value) in datasetFacts(report) + optionFacts(report) {
            out += "<dt>\(escapeHTML(label))</dt><dd>\(escapeHTML(value))</dd>\n"
        }
        out += "</dl>\n</section>\n</main>\n</body>\n</html>\n"
        return out
    }

    /// The policies table: winner highlighted, oracle marked as the ceiling, intervals in small print.
    static func htmlPoliciesTable(_ report: EvaluationReport, findings: ReportFindings) -> String {
        let series = SVGSeries.of(report)
        var out = "<div class=\"table-wrap\"><table>\n<thead><tr><th scope=\"col\">policy</th>"
        out += tableMetrics.map { "<th scope=\"col\">\(escapeHTML(EvaluationReport.title($0)))</th>" }.joined()
        out += "<th scope=\"col\">decisions</th></tr></thead>\n<tbody>\n"
        for (i, p) in report.policies.enumerated() {
            let isWinner = p.name == findings.winner?.name && !isTie(findings)
            let isOracle = ReportFindings.isOracle(p.name)
            var cls: [String] = []
            if isWinner { cls.append("winner") }
            if isOracle { cls.append("oracle") }
            out += cls.isEmpty ? "<tr>" : "<tr class=\"\(cls.joined(separator: " "))\">"
            out += "<th scope=\"row\"><span class=\"swatch\" style=\"background:\(series[i].colour)\"></span>\(escapeHTML(p.name))"
            if isWinner { out += " <span class=\"badge\">winner</span>" }
            if isOracle { out += " <span class=\"badge\">ceiling</span>" }
            out += "</th>"
            for m in tableMetrics {
                let value = escapeHTML(EvaluationReport.format(p.metrics[m], metric: m))
                guard let ci = p.ci[m], p.metrics[m] != nil else { out += "<td>\(value)</td>"; continue }
                let lo = escapeHTML(EvaluationReport.format(ci.lowerBound, metric: m)), hi = escapeHTML(EvaluationReport.format(ci.upperBound, metric: m))
                // The headline metrics print their interval; the others keep it in a tooltip so the table fits.
                if htmlIntervalMetrics.contains(m) {
                    out += "<td>\(value)<br><small>[\(lo), \(hi)]</small></td>"
                } else {
                    out += "<td title=\"95% CI \(lo) to \(hi)\">\(value)</td>"
                }
            }
            out += "<td>\(escapeHTML(EvaluationReport.format(p.metrics[.decisions], metric: .decisions)))"
            out += "<br><small>\(escapeHTML(EvaluationReport.format(p.metrics[.decisionsWithTarget], metric: .decisionsWithTarget))) with target</small></td></tr>\n"
        }
        out += "</tbody>\n</table></div>\n"
        return out
    }

    /// The metrics whose interval the HTML policies table prints under the value.
    static let htmlIntervalMetrics: Set<Metric> = [.hitAt1, .mrr, .rotationsPerActiveHour]

    /// A chart in a figure with its caption.
    static func figure(_ svg: String, caption: String) -> String {
        "<figure>\n<div class=\"chart-wrap\">\n\(svg)</div>\n<figcaption>\(escapeHTML(caption))</figcaption>\n</figure>\n"
    }

    /// A finding as HTML: names in `<strong>`, commands in `<code>`, everything escaped.
    static func html(_ runs: [ReportRun]) -> String {
        runs.map { run in
            switch run {
            case .plain(let s): escapeHTML(s)
            case .strong(let s): "<strong>\(escapeHTML(s))</strong>"
            case .code(let s): "<code>\(escapeHTML(s))</code>"
            }
        }.joined()
    }

    /// Escapes text for HTML content and attribute values (`<`, `>`, `&`, both quotes).
    ///
    /// - Complexity: O(length of `s`).
    static func escapeHTML(_ s: String) -> String { SVGDocument.escape(s) }

    /// The page's style sheet: readable type, tables that scroll sideways on narrow screens,
    /// charts that scale to the width.
    static let css = """
    :root{color-scheme:light}
    body{margin:0;background:#fff;color:#1d2127;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
    main{max-width:1240px;margin:0 auto;padding:24px 20px 48px}
    h1{font-size:1.6em;margin:0 0 .3em}
    h2{font-size:1.25em;margin:1.6em 0 .5em;border-bottom:1px solid #e3e6ea;padding-bottom:.2em}
    .lead{color:#4a5260;margin-top:0}
    .findings li{margin:.35em 0}
    .note{color:#5a6270;font-size:.9em}
    .table-wrap{overflow-x:auto;max-width:100%}
    table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:.5em 0;font-size:.93em}
    caption{text-align:left;font-weight:600;padding:.3em 0}
    th,td{padding:4px 7px;border-bottom:1px solid #e3e6ea;text-align:right;vertical-align:top;white-space:nowrap}
    thead th{border-bottom:2px solid #aab1bb;font-weight:600}
    tbody th{text-align:left;font-weight:500;white-space:normal;overflow-wrap:anywhere;min-width:9em;max-width:22em}
    thead th:first-child{text-align:left}
    td small{color:#5a6270}
    td.significant{font-weight:700}
    td.significant small{font-weight:600}
    tr.winner{background:#eef6ec}
    tr.oracle{font-style:italic;color:#4a5260}
    .badge{display:inline-block;font-size:.75em;font-style:normal;padding:0 .5em;border-radius:.8em;background:#dde3ea;color:#2b3038;margin-left:.3em}
    tr.winner .badge{background:#2e7d32;color:#fff}
    .swatch{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.45em;vertical-align:-.05em}
    code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em;background:#f1f3f5;padding:0 .25em;border-radius:3px}
    figure{margin:1.5em 0 2em}
    figcaption{color:#4a5260;font-size:.9em;margin-top:.4em}
    .chart-wrap{overflow-x:auto}
    svg.chart{display:block;width:100%;height:auto;max-width:100%}
    svg.chart text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;font-size:12px;fill:#2b3038}
    svg.chart .tick{fill:#5a6270;font-size:11px}
    svg.chart .axis-title,svg.chart .panel-title{font-size:13px;font-weight:600}
    svg.chart .note{fill:#5a6270;font-style:italic}
    svg.chart .point-label{font-size:12.5px;font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px}
    svg.chart .guide{opacity:.45}
    dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25em 1.2em;margin:0}
    dl.facts dt{font-weight:600}
    dl.facts dd{margin:0;overflow-wrap:anywhere}
    @media (max-width:640px){body{font-size:14px}main{padding:16px 10px}dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.4em}svg.chart{min-width:600px;max-width:none}}

    """
}
