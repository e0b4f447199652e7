import Foundation

extension ReportRenderer {
    /// `report.html`: one self-contained page (inline CSS and SVG, no script, nothing fetched)
    /// with the measure and the verdict, the findings, the tables (best first by the headline)
    /// and four charts: policies with intervals, the headline by hour of day, the headline
    /// against rotations per active hour, and one day's rotation timeline against what was
    /// actually used; then the report's provenance. Charts scale with the window and carry
    /// titles and descriptions for screen readers; every name is escaped.
    ///
    /// - Complexity: O(policies² + policies × (metrics + 24) + timeline intervals × engagements).
    public static func html(_ report: EvaluationReport) -> String {
        let findings = ReportFindings(report)
        let name = escapeHTML(report.dataset.name)
        let headline = report.headlineTitle
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>SmartStack evaluation: \(name)</title>\n<style>\n\(css)</style>\n</head>\n<body>\n<main>\n"
        out += "<h1>SmartStack evaluation: \(name)</h1>\n"
        out += "<p class=\"lead\">\(escapeHTML(datasetLine(report))). Options: \(escapeHTML(optionsLine(report))).</p>\n"
        out += "<p class=\"measure\"><strong>Measure: \(escapeHTML(report.measure.figure)).</strong> \(escapeHTML(report.verdictLine ?? ""))</p>\n"

        out += "<section aria-labelledby=\"findings\">\n<h2 id=\"findings\">Findings</h2>\n<ul class=\"findings\">\n"
        for sentence in findings.sentences { out += "<li>\(html(sentence))</li>\n" }
        out += "</ul>\n</section>\n"
        if !report.warnings.isEmpty {
            out += "<section aria-labelledby=\"warnings\">\n<h2 id=\"warnings\">Warnings</h2>\n<ul class=\"warnings\">\n"
            for w in report.warnings { out += "<li>\(escapeHTML(w))</li>\n" }
            out += "</ul>\n</section>\n"
        }

        out += "<section aria-labelledby=\"policies\">\n<h2 id=\"policies\">Policies</h2>\n"
        out += htmlPoliciesTable(report)
        out += "<p class=\"note\">\(escapeHTML(metricLegend(report)))"
        if report.options.bootstrapResamples > 0 {
            out += " Brackets: \(String(format: "%g", report.options.confidenceLevel * 100))% bootstrap intervals over user-days (\(report.options.bootstrapResamples) resamples, seed \(report.options.seed))."
        }
        out += "</p>\n</section>\n"

        out += "<section aria-labelledby=\"charts\">\n<h2 id=\"charts\">Charts</h2>\n"
        out += figure(SVGCharts.intervals(report), caption: "Each policy's \(headline) and rotations per active hour: the bar and dot mark the estimate, the whisker its 95% interval (hover for figures). The oracle, if present, is hollow.")
        let hourTitle = report.hourMetric == .counterfactualEngagement ? "counterfactual engagement" : report.hitAt1Title
        out += figure(SVGCharts.byHour(report), caption: "\(hourTitle.prefix(1).uppercased() + hourTitle.dropFirst()) of the decisions made in each local hour of day, one line per policy; grey bars count the decisions it is measured over (right axis). Hours with fewer than \(SVGCharts.minimumHourDecisions) such decisions are shaded and not plotted: a value from a handful of decisions says little.")
        out += figure(SVGCharts.accuracyVersusRotations(report), caption: "\(headline.prefix(1).uppercased() + headline.dropFirst()) against restlessness, one point per policy with both 95% intervals. Up and to the left is better; the dashed line joins the policies no other beats on both.")
        if let timeline = SVGCharts.timeline(report) {
            out += figure(timeline, caption: "The day with the most decisions with a target. For each stack, diamonds mark the widgets actually used; each policy's lane shows which widget it kept on top (colour), and the count after its name is how many of the uses found that widget on top.")
        } else {
            out += "<p class=\"note\">No rotation timeline: no scored user-day had a decision with a target.</p>\n"
        }
        out += "</section>\n"

        let paired = report.policiesInHeadlineOrder.filter { $0.paired != nil }
        if let reference = report.options.reference, !paired.isEmpty {
            let metrics = pairedMetrics(report)
            out += "<section aria-labelledby=\"paired\">\n<h2 id=\"paired\">Paired differences against \(escapeHTML(reference))</h2>\n"
            out += "<p>Policy minus \(escapeHTML(reference)) on the same decisions with the paired 95% interval; <strong>bold</strong> where the interval excludes zero.</p>\n"
            out += "<div class=\"table-wrap\"><table>\n<thead><tr><th scope=\"col\">policy</th>"
            out += metrics.map { "<th scope=\"col\">\(escapeHTML(title($0, in: report)))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
            for p in paired {
                guard let c = p.paired else { continue }
                out += "<tr><th scope=\"row\">\(escapeHTML(p.name))</th>"
                for m in metrics {
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

        if let curve = report.byDay {
            out += "<section aria-labelledby=\"by-day\">\n<h2 id=\"by-day\">Learning curve by day since the stacks were configured</h2>\n"
            let table = LearningCurveTable(curve)
            out += "<p>\(escapeHTML(table.legend))</p>\n"
            if let chart = SVGCharts.learningCurve(report) {
                let measured = curve.isCounterfactual ? "Counterfactual engagement" : report.hitAt1Title.prefix(1).uppercased() + report.hitAt1Title.dropFirst()
                var caption = "\(measured) of each day's decisions, one line per policy"
                if curve.isCounterfactual, let threshold = curve.threshold {
                    caption += "; the ceiling dashed black, \(String(format: "%g", threshold)) × the ceiling dashed grey, a ring where a policy reaches it for good"
                }
                caption += ". Days with fewer than \(curve.minimumDecisions) decisions are shaded and not plotted."
                out += figure(chart, caption: caption)
            }
            out += "<div class=\"table-wrap\"><table class=\"compact\">\n<thead><tr><th scope=\"col\">day</th>"
            out += table.titles.map { "<th scope=\"col\">\(escapeHTML($0))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
            for row in table.rows {
                out += row.isThin ? "<tr class=\"thin\">" : "<tr>"
                out += "<th scope=\"row\">\(escapeHTML(row.label))\(row.isThin ? "†" : "")</th>"
                out += row.cells.map { "<td>\(escapeHTML($0))</td>" }.joined() + "</tr>\n"
            }
            if let reach = table.reach {
                out += "<tr class=\"reach\"><th scope=\"row\">\(escapeHTML(reach.label))</th>"
                out += reach.cells.map { "<td>\(escapeHTML($0))</td>" }.joined() + "</tr>\n"
            }
            out += "</tbody>\n</table></div>\n</section>\n"
        }

        if let ope = OffPolicyTable(report) {
            let truthColumn = report.measure == .counterfactual && report.truth?.displayLift != nil
            out += "<section aria-labelledby=\"ope\">\n<h2 id=\"ope\">Off-policy estimates from logged impressions</h2>\n"
            out += "<p>Engagement rate each policy would have had, estimated from the logged <code>widget_impression</code> propensities (95% bootstrap intervals over user-days, as every interval of the report)."
            if truthColumn { out += " The truth column is the same quantity read from the truth file: counterfactual engagement plus the display lift." }
            out += "</p>\n"
            out += "<div class=\"table-wrap\"><table class=\"compact\">\n<thead><tr><th scope=\"col\">policy</th><th scope=\"col\">impressions</th><th scope=\"col\">logged rate</th>"
            if truthColumn { out += "<th scope=\"col\">truth</th>" }
            out += ope.estimators.map { "<th scope=\"col\">\(escapeHTML(OffPolicyTable.title(estimator: $0)))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
            for row in ope.rows {
                out += "<tr><th scope=\"row\">\(escapeHTML(row.policy))</th><td>\(row.impressions)</td><td>\(OffPolicyTable.cell(row.loggedRate, nil))</td>"
                if truthColumn { out += "<td>\(OffPolicyTable.cell(truthValue(report, row.policy), nil))</td>" }
                out += ope.estimators.map { key -> String in
                    let v = row.values[key]
                    guard let value = v?.value else { return "<td>-</td>" }
                    var cell = escapeHTML(OffPolicyTable.cell(value, nil))
                    if let ci = v?.ci { cell += "<br><small>[\(escapeHTML(OffPolicyTable.cell(ci.lowerBound, nil))), \(escapeHTML(OffPolicyTable.cell(ci.upperBound, nil)))]</small>" }
                    return "<td>\(cell)</td>"
                }.joined()
                out += "</tr>\n"
            }
            out += "</tbody>\n</table></div>\n"
            if !ope.diagnosticNames.isEmpty {
                out += "<div class=\"table-wrap\"><table class=\"compact\">\n<caption>Weight diagnostics</caption>\n<thead><tr><th scope=\"col\">policy</th>"
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
        out += "</dl>\n</section>\n"
        let provenance = provenanceFacts(report)
        if !provenance.isEmpty {
            out += "<section aria-labelledby=\"provenance\">\n<h2 id=\"provenance\">Provenance</h2>\n<dl class=\"facts\">\n"
            for (label, value) in provenance { out += "<dt>\(escapeHTML(label))</dt><dd>\(escapeHTML(value))</dd>\n" }
            out += "</dl>\n</section>\n"
        }
        out += "<p class=\"note\">What each figure means: <code>\(glossary)</code> in the SmartStack repository.</p>\n"
        out += "</main>\n</body>\n</html>\n"
        return out
    }

    /// The policies table, best first by the headline: winner (or tied group) highlighted,
    /// oracle marked as the ceiling, intervals in small print.
    static func htmlPoliciesTable(_ report: EvaluationReport) -> String {
        let series = SVGSeries.of(report)
        let metrics = tableMetrics(report)
        let intervals = intervalMetrics(report)
        var out = "<div class=\"table-wrap\"><table>\n<thead><tr><th scope=\"col\">policy</th>"
        if report.measure == .offPolicy { out += "<th scope=\"col\">off-policy (DR)</th>" }
        out += metrics.map { "<th scope=\"col\">\(escapeHTML(title($0, in: report)))</th>" }.joined()
        out += "<th scope=\"col\">decisions</th></tr></thead>\n<tbody>\n"
        for p in report.policiesInHeadlineOrder {
            let i = report.policies.firstIndex { $0.name == p.name } ?? 0
            let standing = standing(report, p)
            let isOracle = ReportFindings.isOracle(p.name)
            var cls: [String] = []
            if standing == "winner" { cls.append("winner") }
            if standing == "tied for best" { cls.append("tied") }
            if isOracle { cls.append("oracle") }
            out += cls.isEmpty ? "<tr>" : "<tr class=\"\(cls.joined(separator: " "))\">"
            out += "<th scope=\"row\"><span class=\"swatch\" style=\"background:\(series[i].colour)\"></span>\(escapeHTML(p.name))"
            if let standing { out += " <span class=\"badge\">\(standing)</span>" }
            if isOracle { out += " <span class=\"badge\">ceiling</span>" }
            out += "</th>"
            if report.measure == .offPolicy {
                let cell = offPolicyCell(report, p).replacingOccurrences(of: " [", with: "\n[")
                let parts = cell.split(separator: "\n").map { escapeHTML(String($0)) }
                out += "<td>\(parts[0])" + (parts.count > 1 ? "<br><small>\(parts[1])</small>" : "") + "</td>"
            }
            for m in metrics {
                let value = escapeHTML(EvaluationReport.format(p.metrics[m], metric: m))
                guard let ci = p.ci[m], p.metrics[m] != nil else { out += "<td>\(value)</td>"; continue }
                let lo = escapeHTML(EvaluationReport.format(ci.lowerBound, metric: m)), hi = escapeHTML(EvaluationReport.format(ci.upperBound, metric: m))
                // The headline metrics print their interval; the others keep it in a tooltip so the table fits.
                if intervals.contains(m) {
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
    tr.tied{background:#f4f7ee}
    .measure{background:#f4f6f9;border-left:4px solid #5a7bb5;padding:.5em .8em}
    .warnings li{color:#8a4b00}
    table.compact{font-size:.85em}
    table.compact th,table.compact td{padding:3px 5px}
    tr.oracle{font-style:italic;color:#4a5260}
    tr.thin{color:#8a919b}
    tr.reach{font-weight:600;border-top:2px solid #aab1bb}
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
