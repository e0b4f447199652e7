import Foundation

/// The off-policy estimates of all policies as one table: a row per policy with logged
/// impressions, a column per estimator, and the weight diagnostics.
struct OffPolicyTable {
    /// One policy's estimates.
    struct Row {
        /// The policy.
        var policy: String
        /// Impressions used.
        var impressions: Int
        /// The engagement rate observed in the log.
        var loggedRate: Double?
        /// Estimates by estimator key: value and interval.
        var values: [String: (value: Double?, ci: ClosedRange<Double>?)]
        /// Diagnostics by name (`nil` when unknown).
        var diagnostics: [String: Double]
        /// Why there are no estimates, when there are none.
        var note: String?
    }

    /// Estimator keys (columns), in order of first appearance.
    var estimators: [String]
    /// Diagnostic names (columns), in order of first appearance.
    var diagnosticNames: [String]
    /// One row per policy that has off-policy results.
    var rows: [Row]

    /// The table of `report`, or `nil` when no policy has off-policy results.
    ///
    /// - Complexity: O(policies × estimators).
    init?(_ report: EvaluationReport) {
        var estimators: [String] = []
        var diagnosticNames: [String] = []
        var rows: [Row] = []
        for p in report.policies {
            guard let ope = p.ope else { continue }
            var row = Row(policy: p.name, impressions: ope.impressions, loggedRate: ope.loggedRate, values: [:], diagnostics: [:], note: ope.note)
            for e in ope.estimates {
                if !estimators.contains(e.estimator) { estimators.append(e.estimator) }
                var ci: ClosedRange<Double>?
                if let c = e.ci, c.count == 2, c[0].isFinite, c[1].isFinite, c[0] <= c[1] { ci = c[0]...c[1] }
                row.values[e.estimator] = (e.value, ci)
                for name in e.diagnostics.keys.sorted() where row.diagnostics[name] == nil {
                    if !diagnosticNames.contains(name) { diagnosticNames.append(name) }
                    row.diagnostics[name] = e.diagnostics[name]
                }
            }
            rows.append(row)
        }
        guard !rows.isEmpty else { return nil }
        self.estimators = estimators
        self.diagnosticNames = diagnosticNames
        self.rows = rows
    }

    /// A readable column title for an estimator key (`switch_dr_tau_5` → `Switch-DR (τ=5)`).
    static func title(estimator key: String) -> String {
        let names: [(String, String)] = [("switch_dr", "Switch-DR"), ("dr_os", "DRos"), ("replay", "Replay"), ("snips", "SNIPS"),
                                         ("ips", "IPS"), ("dm", "DM"), ("dr", "DR")]
        for (prefix, name) in names where key == prefix || key.hasPrefix(prefix + "_") {
            var rest = key.dropFirst(prefix.count)
            if rest.hasPrefix("_") { rest = rest.dropFirst() }
            if rest.isEmpty { return name }
            let parameter = rest.replacingOccurrences(of: "lambda_", with: "λ=").replacingOccurrences(of: "tau_", with: "τ=")
            return "\(name) (\(parameter))"
        }
        return key
    }

    /// A readable title for a diagnostic name.
    static func title(diagnostic name: String) -> String {
        switch name {
        case "ess", "effective_sample_size": "effective sample size"
        case "max_weight", "largest_weight": "largest weight"
        case "mean_weight": "mean weight"
        case "zero_weight_share": "zero-weight share"
        case "zero_support_share": "zero-support share"
        case "support_known_rounds": "rounds with known support"
        case "replay_accepted": "replay accepted"
        default: name.replacingOccurrences(of: "_", with: " ")
        }
    }

    /// `0.0041 [0.0032, 0.0050]`: rates are small, so four decimals.
    static func cell(_ value: Double?, _ ci: ClosedRange<Double>?) -> String {
        guard let value, value.isFinite else { return "-" }
        var s = String(format: "%.4f", value)
        if let ci { s += String(format: " [%.4f, %.4f]", ci.lowerBound, ci.upperBound) }
        return s
    }

    /// A diagnostic value: counts as integers, the rest with three significant decimals.
    static func diagnostic(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "-" }
        if value == value.rounded(), abs(value) >= 1 { return String(Int(value)) }
        return String(format: abs(value) >= 100 ? "%.1f" : "%.3f", value)
    }
}
