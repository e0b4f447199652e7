import Foundation

/// How one policy is drawn in every chart: its colour, and a dashed style for the oracle.
struct SVGSeries {
    /// The policy's name.
    var name: String
    /// Its colour.
    var colour: String
    /// Whether it is drawn dashed (the oracle, a ceiling rather than a policy).
    var isDashed: Bool

    /// The series of `report`'s policies, in report order.
    static func of(_ report: EvaluationReport) -> [SVGSeries] {
        var next = 0
        return report.policies.map { p in
            if ReportFindings.isOracle(p.name) { return SVGSeries(name: p.name, colour: SVGPalette.oracle, isDashed: true) }
            defer { next += 1 }
            return SVGSeries(name: p.name, colour: SVGPalette.policy(next), isDashed: false)
        }
    }
}
