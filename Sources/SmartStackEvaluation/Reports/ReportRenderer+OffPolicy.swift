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
    /// The results are read through their `report.json` encoding (estimator keys such as `ips`
    /// or `switch_dr_tau_5` with `value` and `ci`, weight diagnostics by name), so the table
    /// follows the documented format rather than the Swift types behind it. Both encodings of
    /// the estimates are understood: an object keyed by estimator with a shared `diagnostics`
    /// object and `rounds`, or a list of `{estimator, value, ci, diagnostics}`.
    ///
    /// - Complexity: O(policies × estimators).
    init?(_ report: EvaluationReport) {
        let encoded = report.policies.compactMap { p -> (String, [String: Any])? in
            guard let ope = p.ope else { return nil }
            let object = ReportRenderer.encodedFields(ope)
            return object.isEmpty ? nil : (p.name, object)
        }
        self.init(encoded: encoded)
    }

    /// The table of policies' off-policy results in their JSON form (`impressions`,
    /// `logged_rate`, `estimates`, `note`), or `nil` when there are none.
    ///
    /// - Complexity: O(policies × estimators).
    init?(encoded: [(policy: String, object: [String: Any])]) {
        var estimators: Set<String> = []
        var diagnosticNames: Set<String> = []
        var rows: [Row] = []
        for (policy, object) in encoded {
            var row = Row(policy: policy, impressions: Self.int(object["impressions"]) ?? 0, loggedRate: Self.double(object["logged_rate"]),
                          values: [:], diagnostics: [:], note: object["note"] as? String)
            func addDiagnostics(_ any: Any?) {
                guard let d = any as? [String: Any] else { return }
                for (name, value) in d where row.diagnostics[name] == nil {
                    guard let v = Self.double(value) else { continue }
                    diagnosticNames.insert(name)
                    row.diagnostics[name] = v
                }
            }
            if let byKey = object["estimates"] as? [String: Any] {
                for (key, value) in byKey {
                    switch key {
                    case "diagnostics": addDiagnostics(value)
                    case "rounds":
                        if let n = Self.double(value) { row.diagnostics["rounds"] = n; diagnosticNames.insert("rounds") }
                    case "bootstrap": continue
                    default:
                        guard let entry = value as? [String: Any] else { continue }
                        estimators.insert(key)
                        row.values[key] = (Self.double(entry["value"]), Self.interval(entry["ci"]))
                    }
                }
            } else if let list = object["estimates"] as? [[String: Any]] {
                for entry in list {
                    guard let key = entry["estimator"] as? String else { continue }
                    estimators.insert(key)
                    row.values[key] = (Self.double(entry["value"]), Self.interval(entry["ci"]))
                    addDiagnostics(entry["diagnostics"])
                }
            }
            rows.append(row)
        }
        guard !rows.isEmpty else { return nil }
        self.estimators = estimators.sorted { Self.rank(estimator: $0) < Self.rank(estimator: $1) }
        self.diagnosticNames = diagnosticNames.sorted { Self.rank(diagnostic: $0) < Self.rank(diagnostic: $1) }
        self.rows = rows
    }

    private static func double(_ any: Any?) -> Double? {
        guard let n = any as? NSNumber else { return nil }
        let v = n.doubleValue
        return v.isFinite ? v : nil
    }

    private static func int(_ any: Any?) -> Int? { (any as? NSNumber)?.intValue }

    private static func interval(_ any: Any?) -> ClosedRange<Double>? {
        guard let pair = any as? [Any], pair.count == 2, let lo = double(pair[0]), let hi = double(pair[1]), lo <= hi else { return nil }
        return lo...hi
    }

    /// The reading order of estimators: Replay, IPS (plain, then clipped), SNIPS, DM, DR,
    /// Switch-DR, DR with shrinkage; unknown keys last, alphabetically.
    static func rank(estimator key: String) -> (Int, String) {
        let order = ["replay", "ips", "ips_", "snips", "dm", "dr", "dr_lambda_", "switch_dr", "dr_os"]
        var best = order.count
        for (i, prefix) in order.enumerated() where key == prefix || (prefix.hasSuffix("_") ? key.hasPrefix(prefix) : key.hasPrefix(prefix + "_")) {
            best = i
        }
        return (best, key)
    }

    /// The reading order of diagnostics: rounds, effective sample size, weights, support.
    static func rank(diagnostic name: String) -> (Int, String) {
        let order = ["rounds", "ess", "max_weight", "mean_weight", "zero_weight_share", "zero_support_share", "support_known_rounds", "replay_accepted"]
        return (order.firstIndex(of: name) ?? order.count, name)
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
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(format: abs(value) >= 100 ? "%.1f" : "%.3f", value)
    }
}
