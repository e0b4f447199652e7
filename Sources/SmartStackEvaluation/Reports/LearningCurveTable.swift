import Foundation

/// The learning curve as the text table, `report.md` and `report.html` print it: one row per day
/// for the first four weeks, then one per week (pooled from the days' sums, as the days are
/// pooled over people), the ceiling beside the policies' figures, and a last row with the day
/// each policy reaches the threshold × the ceiling and stays there.
struct LearningCurveTable {
    /// Days shown one by one; later days are pooled by week.
    static let dailyRows = 28

    /// One row: its label (`3` or `29–35`), whether it is too thin to read (fewer decisions than
    /// the curve's minimum), and its cells after the label.
    struct Row {
        var label: String
        var isThin: Bool
        var cells: [String]
    }

    let curve: LearningCurve
    /// Column titles after `day`.
    let titles: [String]
    let rows: [Row]
    /// The reach row's label and cells (aligned with `titles`), `nil` without a threshold.
    let reach: (label: String, cells: [String])?

    init(_ curve: LearningCurve) {
        self.curve = curve
        let cf = curve.isCounterfactual
        var titles = ["people", cf ? "decisions with truth" : "decisions with target"]
        if cf { titles.append("ceiling") }
        titles += curve.policies.map(\.name)
        self.titles = titles
        var stretches: [ClosedRange<Int>] = []
        let last = curve.days.count
        if last <= Self.dailyRows + 7 {
            stretches = (0..<last).map { $0...$0 }
        } else {
            stretches = (0..<Self.dailyRows).map { $0...$0 }
            var start = Self.dailyRows
            while start < last {
                stretches.append(start...min(last - 1, start + 6))
                start += 7
            }
        }
        rows = stretches.map { Self.row(curve, $0) }
        if let threshold = curve.threshold {
            let label = "reaches \(String(format: "%g", threshold)) × ceiling on day"
            reach = (label, ["", "", ""] + curve.policies.map { p in p.reachesDay.map(String.init) ?? "never" })
        } else {
            reach = nil
        }
    }

    /// The pooled row of day indices `r`.
    private static func row(_ curve: LearningCurve, _ r: ClosedRange<Int>) -> Row {
        let cf = curve.isCounterfactual
        let days = curve.days[r]
        let measured = days.reduce(0) { $0 + curve.decisionsMeasured($1) }
        let users = days.map(\.users).max() ?? 0
        let ceilingSum = days.reduce(0.0) { $0 + $1.ceilingSum }
        var cells = ["\(users)", "\(measured)"]
        if cf { cells.append(measured > 0 ? f3(ceilingSum / Double(measured)) : "-") }
        for p in curve.policies {
            let points = p.days[r]
            if cf {
                let sum = points.reduce(0.0) { $0 + $1.counterfactualSum }
                cells.append(measured > 0 ? f3(sum / Double(measured)) : "-")
            } else {
                let hits = points.reduce(0) { $0 + $1.hitsAt1 }
                cells.append(measured > 0 ? f3(Double(hits) / Double(measured)) : "-")
            }
        }
        let label = r.count == 1 ? "\(r.lowerBound + 1)" : "\(r.lowerBound + 1)–\(r.upperBound + 1)"
        return Row(label: label, isThin: measured < curve.minimumDecisions, cells: cells)
    }

    static func f3(_ v: Double) -> String { String(format: "%.3f", v) }

    /// What the table shows, in one paragraph.
    var legend: String {
        let figure = curve.isCounterfactual ? "counterfactual engagement" : "hit@1"
        var s = "Each policy's \(figure) on the decisions of each day since the person's stacks were first configured (day 1: the 24 hours from that instant; every decision counts, the warm-up too), pooled over people by decisions"
        s += curve.days.count > Self.dailyRows + 7 ? "; after day \(Self.dailyRows), pooled by week. " : ". "
        if let threshold = curve.threshold {
            s += "The ceiling is the best eligible widget's value. The last row names the first day from which the policy stays at or above \(String(format: "%g", threshold)) × the ceiling on every later day with at least \(curve.minimumDecisions) decisions with a truth line (days with fewer are marked † and not counted)."
        } else {
            s += "Without a truth file there is no ceiling, so no day of reaching it is named; days with fewer than \(curve.minimumDecisions) decisions with a target are marked †."
        }
        return s
    }
}
