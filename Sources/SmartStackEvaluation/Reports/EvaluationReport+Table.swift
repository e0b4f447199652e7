import Foundation

extension EvaluationReport {
    /// A fixed-precision rendering of a metric value (`-` when undefined).
    public static func format(_ value: Double?, metric: Metric) -> String {
        guard let value, value.isFinite else { return "-" }
        switch metric {
        case .decisions, .decisionsWithTarget: return String(Int(value))
        case .rotationsPerActiveHour, .medianDwellMinutes: return String(format: "%.2f", value)
        default: return String(format: "%.3f", value)
        }
    }

    /// A short column title for each metric.
    public static func title(_ metric: Metric) -> String {
        switch metric {
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
    static let tableIntervalMetrics: Set<Metric> = [.hitAt1, .mrr, .rotationsPerActiveHour]

    /// The text table printed by `smartstack evaluate` without `--report`: a header naming the
    /// dataset and options, one aligned row per policy, and the paired differences when a
    /// reference was given.
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
        out += "\n"
        let metrics = Metric.allCases
        var rows: [[String]] = [["policy"] + metrics.map(Self.title)]
        for p in policies {
            var row = [p.name]
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
        let pairedPolicies = policies.filter { $0.paired != nil }
        if let reference = options.reference, !pairedPolicies.isEmpty {
            out += "\nPaired difference against \(reference) (same decisions; 95% interval):\n"
            let shown: [Metric] = [.hitAt1, .hitAt3, .mrr, .ndcgAt3, .rotationsPerActiveHour, .flickerRate, .unnecessaryRotationRate]
            var prow: [[String]] = [["policy"] + shown.map(Self.title)]
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
