/// Renders an `EvaluationReport` for people: `report.md` and `report.html`.
///
/// ```swift
/// let markdown = ReportRenderer.markdown(report)
/// let html = ReportRenderer.html(report)
/// ```
public enum ReportRenderer {
    /// A Markdown summary: dataset and options, then one table row per policy.
    ///
    /// - Complexity: O(policies × metrics).
    public static func markdown(_ report: EvaluationReport) -> String {
        var out = "# SmartStack evaluation: \(report.dataset.name)\n\n"
        out += "\(report.dataset.events) events, \(report.dataset.usersEvaluated) users, "
        out += "\(report.dataset.decisionPoints) decision points, \(report.dataset.userDays) scored user-days. "
        out += "Window \(EvaluationReport.minutes(report.options.windowMinutes)), merge repeats "
        out += "\(report.options.mergeRepeats ? "on" : "off"), warm-up \(report.options.warmupDays) days, seed \(report.options.seed).\n\n"
        let metrics = Metric.allCases
        out += "| policy | " + metrics.map(EvaluationReport.title).joined(separator: " | ") + " |\n"
        out += "|---|" + metrics.map { _ in "---:" }.joined(separator: "|") + "|\n"
        for p in report.policies {
            let cells = metrics.map { m -> String in
                var cell = EvaluationReport.format(p.metrics[m], metric: m)
                if let ci = p.ci[m] {
                    cell += " [\(EvaluationReport.format(ci.lowerBound, metric: m)), \(EvaluationReport.format(ci.upperBound, metric: m))]"
                }
                return cell
            }
            out += "| \(escapeMarkdown(p.name)) | " + cells.joined(separator: " | ") + " |\n"
        }
        return out
    }

    /// A self-contained HTML page (no network) with the policies table.
    ///
    /// - Complexity: O(policies × metrics).
    public static func html(_ report: EvaluationReport) -> String {
        let metrics = Metric.allCases
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<title>SmartStack evaluation: \(escapeHTML(report.dataset.name))</title>\n"
        out += "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        out += "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,th:first-child{text-align:left}</style>\n"
        out += "</head>\n<body>\n<h1>SmartStack evaluation: \(escapeHTML(report.dataset.name))</h1>\n"
        out += "<p>\(report.dataset.events) events, \(report.dataset.usersEvaluated) users, \(report.dataset.decisionPoints) decision points.</p>\n"
        out += "<table>\n<tr><th>policy</th>" + metrics.map { "<th>\(escapeHTML(EvaluationReport.title($0)))</th>" }.joined() + "</tr>\n"
        for p in report.policies {
            out += "<tr><td>\(escapeHTML(p.name))</td>"
            for m in metrics { out += "<td>\(escapeHTML(EvaluationReport.format(p.metrics[m], metric: m)))</td>" }
            out += "</tr>\n"
        }
        out += "</table>\n</body>\n</html>\n"
        return out
    }

    static func escapeHTML(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    static func escapeMarkdown(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }
}

import Foundation
