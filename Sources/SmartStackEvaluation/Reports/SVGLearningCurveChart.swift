import Foundation

extension SVGCharts {
    /// The learning curve: one line per policy of its figure (counterfactual engagement, or hit@1
    /// without a truth file) per day since the stacks were configured, the ceiling dashed, a dot
    /// where each policy reaches the threshold × the ceiling for good. Days with fewer decisions
    /// than the curve's minimum are shaded and not plotted (they break the lines).
    ///
    /// - Complexity: O(policies × days).
    static func learningCurve(_ report: EvaluationReport) -> String? {
        guard let curve = report.byDay, !curve.days.isEmpty else { return nil }
        let series = SVGSeries.of(report)
        let cf = curve.isCounterfactual
        let name = cf ? "counterfactual engagement" : report.hitAt1Title
        let left = 64.0, right = 30.0
        var legendSVG = SVGDocument(width: width, height: 0)
        var entries = series
        if cf { entries.append(SVGSeries(name: "ceiling", colour: "#222222", isDashed: true)) }
        if let threshold = curve.threshold {
            entries.append(SVGSeries(name: "\(String(format: "%g", threshold)) × ceiling", colour: "#9AA1AB", isDashed: true))
        }
        let legendHeight = legend(&legendSVG, series: entries, x: left, y: 22, maxWidth: width - left - right)
        let top = 22 + legendHeight + 10, plotHeight = 300.0, bottom = 52.0
        let height = top + plotHeight + bottom
        var svg = SVGDocument(width: width, height: height)
        svg.beginGroup(cssClass: "legend")
        legend(&svg, series: entries, x: left, y: 22, maxWidth: width - left - right)
        svg.endGroup()

        let days = curve.days
        let band = (width - left - right) / Double(days.count)
        func dx(_ i: Int) -> Double { left + (Double(i) + 0.5) * band }
        let solid = days.map(curve.isSolid)
        var hi = 0.0
        for (i, d) in days.enumerated() where solid[i] {
            if cf, let c = d.ceiling { hi = max(hi, c) }
            for p in curve.policies { if let v = p.days[i].value(counterfactual: cf), v.isFinite { hi = max(hi, v) } }
        }
        let yDomain = SVGScale.niceDomain(0, hi > 0.6 || hi == 0 ? 1 : hi, count: 5)
        let y = SVGScale(domain: (0, yDomain.1), range: (top + plotHeight, top))
        let over = cf ? "decisions with a truth line" : "decisions with a target"
        for (i, d) in days.enumerated() where !solid[i] {
            svg.rect(x: dx(i) - band / 2, y: top, width: band, height: plotHeight, fill: "#EEF0F3",
                     tooltip: "day \(d.day): \(curve.decisionsMeasured(d)) \(over), too few to plot (fewer than \(curve.minimumDecisions))")
        }
        for t in y.ticks(count: 5) {
            svg.line(x1: left, y1: y(t), x2: width - right, y2: y(t), stroke: SVGPalette.grid)
            svg.text(y.label(t, count: 5), x: left - 8, y: y(t) + 4, anchor: "end", cssClass: "tick")
        }
        svg.line(x1: left, y1: top + plotHeight, x2: width - right, y2: top + plotHeight, stroke: SVGPalette.axis)
        svg.line(x1: left, y1: top, x2: left, y2: top + plotHeight, stroke: SVGPalette.axis)
        let step = max(1, Int((Double(days.count) / 14).rounded(.up)))
        for (i, d) in days.enumerated() {
            svg.line(x1: dx(i), y1: top + plotHeight, x2: dx(i), y2: top + plotHeight + 4, stroke: SVGPalette.axis)
            if d.day == 1 || d.day % step == 0 {
                svg.text(String(d.day), x: dx(i), y: top + plotHeight + 18, anchor: "middle", cssClass: "tick")
            }
        }
        svg.text("day since the stacks were configured (shaded: fewer than \(curve.minimumDecisions) \(over))",
                 x: (left + width - right) / 2, y: height - 10, anchor: "middle", cssClass: "axis-title")
        svg.text(name, x: 16, y: top + plotHeight / 2, anchor: "middle", cssClass: "axis-title", rotate: -90)

        /// Draws one line through the solid days, broken at the others.
        func line(_ values: [Double?], colour: String, dashed: Bool, width strokeWidth: Double) {
            var segment: [(Double, Double)] = []
            for (i, v) in values.enumerated() {
                guard solid[i], let v, v.isFinite else {
                    svg.polyline(segment, stroke: colour, strokeWidth: strokeWidth, dash: dashed ? "6 4" : nil)
                    segment = []
                    continue
                }
                segment.append((dx(i), y.clamped(v)))
            }
            svg.polyline(segment, stroke: colour, strokeWidth: strokeWidth, dash: dashed ? "6 4" : nil)
        }
        var described: [String] = []
        if cf {
            line(days.map(\.ceiling), colour: "#222222", dashed: true, width: 2)
            if let threshold = curve.threshold {
                line(days.map { $0.ceiling.map { $0 * threshold } }, colour: "#9AA1AB", dashed: true, width: 1)
            }
        }
        for (k, p) in curve.policies.enumerated() {
            let s = k < series.count ? series[k] : SVGSeries(name: p.name, colour: SVGPalette.policy(k), isDashed: false)
            let values = p.days.map { $0.value(counterfactual: cf) }
            line(values, colour: s.colour, dashed: s.isDashed, width: 2.5)
            for (i, v) in values.enumerated() where solid[i] {
                guard let v, v.isFinite else { continue }
                var tip = "\(p.name), day \(days[i].day): \(name) \(f3(v)) over \(curve.decisionsMeasured(days[i])) \(over)"
                if let r = p.days[i].ceilingRatio, cf { tip += " (\(f2(r)) × the ceiling \(f3(days[i].ceiling)))" }
                svg.circle(cx: dx(i), cy: y.clamped(v), r: 3, fill: s.isDashed ? "#FFFFFF" : s.colour, stroke: s.colour,
                           strokeWidth: 1.5, tooltip: tip)
            }
            if let reach = p.reachesDay, let i = days.firstIndex(where: { $0.day == reach }), let v = values[i] {
                svg.circle(cx: dx(i), cy: y.clamped(v), r: 6.5, fill: "none", stroke: s.colour, strokeWidth: 2,
                           tooltip: "\(p.name) reaches \(String(format: "%g", curve.threshold ?? 0)) × the ceiling on day \(reach) and stays there")
            }
            if cf {
                described.append("\(p.name) " + (p.reachesDay.map { "reaches \(String(format: "%g", curve.threshold ?? 0)) × the ceiling on day \($0)" } ?? "never stays at \(String(format: "%g", curve.threshold ?? 0)) × the ceiling"))
            } else if let first = values.first(where: { $0 != nil }) ?? nil, let last = values.last(where: { $0 != nil }) ?? nil {
                described.append("\(p.name) from \(f3(first)) to \(f3(last))")
            }
        }
        let description = described.isEmpty ? "No day has \(curve.minimumDecisions) or more \(over)." : described.joined(separator: "; ") + "."
        return svg.render(id: "chart-by-day", title: "\(name) by day since the stacks were configured", description: description)
    }
}
