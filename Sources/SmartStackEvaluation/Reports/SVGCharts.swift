import Foundation

/// The charts of `report.html`, each an accessible inline SVG built from the report's figures.
enum SVGCharts {
    /// The width of every chart's view box (charts scale down with the page).
    static let width = 960.0

    /// `name` cut to `limit` characters with an ellipsis (the full name stays in the tooltip).
    static func truncated(_ name: String, _ limit: Int) -> String {
        name.count <= limit ? name : String(name.prefix(max(1, limit - 1))) + "…"
    }

    /// An approximate width of `text` at the 12px chart font (for layout only).
    static func textWidth(_ text: String, fontSize: Double = 12) -> Double { Double(text.count) * fontSize * 0.6 }

    static func f3(_ v: Double?) -> String { v.map { String(format: "%.3f", $0) } ?? "-" }
    static func f2(_ v: Double?) -> String { v.map { String(format: "%.2f", $0) } ?? "-" }

    /// A legend row of coloured line samples with names, wrapped to `maxWidth`; returns the height used.
    @discardableResult
    static func legend(_ svg: inout SVGDocument, series: [SVGSeries], x: Double, y: Double, maxWidth: Double) -> Double {
        var cx = x, cy = y
        for s in series {
            let label = truncated(s.name, 28)
            let w = 26 + textWidth(label) + 18
            if cx + w > x + maxWidth, cx > x { cx = x; cy += 20 }
            svg.line(x1: cx, y1: cy - 4, x2: cx + 20, y2: cy - 4, stroke: s.colour, strokeWidth: 3, dash: s.isDashed ? "6 4" : nil)
            svg.text(label, x: cx + 26, y: cy)
            cx += w
        }
        return cy - y + 20
    }

    // MARK: - Policies with intervals

    /// Hours with fewer decisions than this are shaded in the hour-of-day chart, not plotted.
    static let minimumHourDecisions = 20

    /// Two panels side by side, one row per policy (best first by the headline): the headline
    /// (counterfactual engagement, the off-policy estimate or hit@1) and rotations per active
    /// hour, each a bar to the point estimate with a dot and a whisker for the 95% interval.
    ///
    /// - Complexity: O(policies).
    static func intervals(_ report: EvaluationReport) -> String {
        let all = SVGSeries.of(report)
        let ordered = report.policiesInHeadlineOrder
        let series = ordered.map { p in all[report.policies.firstIndex { $0.name == p.name } ?? 0] }
        let rowHeight = 30.0, top = 46.0, bottom = 44.0, labelWidth = 190.0, gap = 44.0
        let panelWidth = (width - labelWidth - gap - 20) / 2
        let height = top + Double(max(ordered.count, 1)) * rowHeight + bottom
        var svg = SVGDocument(width: width, height: height)
        let panels: [(Metric?, String, Double)] = [
            (nil, "\(report.headlineTitle) (higher is better)", labelWidth),
            (.rotationsPerActiveHour, "rotations per active hour (lower is calmer)", labelWidth + panelWidth + gap),
        ]
        /// The value and interval a panel shows for a policy: the headline when `metric` is nil.
        func figure(_ p: PolicyReport, _ metric: Metric?) -> (Double?, ClosedRange<Double>?) {
            guard let metric else { return report.headline(of: p) }
            return (p.metrics[metric], p.ci[metric])
        }
        for (i, p) in ordered.enumerated() {
            let cy = top + (Double(i) + 0.5) * rowHeight
            if i % 2 == 0 { svg.rect(x: 0, y: cy - rowHeight / 2, width: width, height: rowHeight, fill: "#F6F7F9") }
            svg.text(truncated(p.name, 26), x: labelWidth - 12, y: cy + 4, anchor: "end", cssClass: "label")
        }
        var described: [String] = []
        for (metric, title, x0) in panels {
            var hi = 0.0
            for p in ordered {
                let (v, c) = figure(p, metric)
                if let v, v.isFinite { hi = max(hi, v) }
                if let c, c.upperBound.isFinite { hi = max(hi, c.upperBound) }
            }
            if metric == nil, hi > 0.6 { hi = 1 }
            let domain = SVGScale.niceDomain(0, hi > 0 ? hi : 1, count: 5)
            let x = SVGScale(domain: (0, domain.1), range: (x0, x0 + panelWidth))
            let plotBottom = top + Double(ordered.count) * rowHeight
            for t in x.ticks(count: 5) {
                svg.line(x1: x(t), y1: top - 4, x2: x(t), y2: plotBottom, stroke: SVGPalette.grid)
                svg.text(x.label(t, count: 5), x: x(t), y: plotBottom + 16, anchor: "middle", cssClass: "tick")
            }
            svg.line(x1: x0, y1: top - 4, x2: x0, y2: plotBottom, stroke: SVGPalette.axis)
            svg.text(title, x: x0 + panelWidth / 2, y: plotBottom + 36, anchor: "middle", cssClass: "axis-title")
            let panelTitle = metric.map(EvaluationReport.title) ?? report.headlineTitle
            svg.text(panelTitle, x: x0, y: top - 14, cssClass: "panel-title")
            let shown = metric ?? .hitAt1
            for (i, p) in ordered.enumerated() {
                let cy = top + (Double(i) + 0.5) * rowHeight
                let s = series[i]
                let (value, ci) = figure(p, metric)
                guard let v = value, v.isFinite else {
                    svg.text("no value", x: x0 + 6, y: cy + 4, cssClass: "note")
                    continue
                }
                var tip = "\(p.name): \(panelTitle) \(EvaluationReport.format(v, metric: shown))"
                if let ci { tip += ", 95% CI \(EvaluationReport.format(ci.lowerBound, metric: shown)) to \(EvaluationReport.format(ci.upperBound, metric: shown))" }
                svg.beginGroup(tooltip: tip)
                svg.rect(x: x0, y: cy - 7, width: x.clamped(v) - x0, height: 14, fill: s.colour, opacity: 0.28)
                if let ci {
                    let a = x.clamped(ci.lowerBound), b = x.clamped(ci.upperBound)
                    svg.line(x1: a, y1: cy, x2: b, y2: cy, stroke: "#222222", strokeWidth: 1.5)
                    svg.line(x1: a, y1: cy - 6, x2: a, y2: cy + 6, stroke: "#222222", strokeWidth: 1.5)
                    svg.line(x1: b, y1: cy - 6, x2: b, y2: cy + 6, stroke: "#222222", strokeWidth: 1.5)
                }
                svg.circle(cx: x.clamped(v), cy: cy, r: 5.5, fill: s.isDashed ? "#FFFFFF" : s.colour, stroke: s.colour, strokeWidth: 2.5)
                svg.endGroup()
                if metric == nil { described.append(tip) }
            }
        }
        let description = described.isEmpty ? "No policy has a defined \(report.headlineTitle)." : described.joined(separator: "; ") + "."
        return svg.render(id: "chart-intervals", title: "Policies with 95% intervals: \(report.headlineTitle) and rotations per active hour", description: description)
    }

    // MARK: - Accuracy by hour of day

    /// One line per policy: the hour metric (counterfactual engagement with a truth file, else
    /// hit@1) of the decisions made in each local hour of day; grey bars behind count the
    /// decisions it is measured over (right axis). Hours with fewer than
    /// ``minimumHourDecisions`` of them are shaded and not plotted, so one decision never draws
    /// a 1.0; they break the lines.
    ///
    /// - Complexity: O(policies × 24).
    static func byHour(_ report: EvaluationReport) -> String {
        let series = SVGSeries.of(report)
        let metric = report.hourMetric
        let name = metric == .counterfactualEngagement ? "counterfactual engagement" : report.hitAt1Title
        let over = metric == .counterfactualEngagement ? "decisions with a truth line" : "decisions with a target"
        let left = 64.0, right = 70.0
        var svg = SVGDocument(width: width, height: 0)
        // Legend first to know its height.
        var legendSVG = SVGDocument(width: width, height: 0)
        let legendHeight = legend(&legendSVG, series: series, x: left, y: 22, maxWidth: width - left - right)
        let top = 22 + legendHeight + 10, plotHeight = 300.0, bottom = 52.0
        let height = top + plotHeight + bottom
        svg = SVGDocument(width: width, height: height)
        svg.beginGroup(cssClass: "legend")
        legend(&svg, series: series, x: left, y: 22, maxWidth: width - left - right)
        svg.endGroup()

        let band = (width - left - right) / 24
        func hx(_ h: Int) -> Double { left + (Double(h) + 0.5) * band }
        func hours(_ h: Int) -> String { "\(String(format: "%02d", h)):00–\(String(format: "%02d", (h + 1) % 24)):00" }
        var counts = Array(repeating: 0, count: 24)
        for p in report.policies {
            for h in p.byHour where (0..<24).contains(h.hour) { counts[h.hour] = max(counts[h.hour], h.value(metric).over) }
        }
        let solid = counts.map { $0 >= minimumHourDecisions }
        var hi = 0.0
        for p in report.policies {
            for h in p.byHour where (0..<24).contains(h.hour) && solid[h.hour] {
                if let v = h.value(metric).value, v.isFinite { hi = max(hi, v) }
            }
        }
        let yDomain = SVGScale.niceDomain(0, hi > 0.6 || hi == 0 ? 1 : hi, count: 5)
        let y = SVGScale(domain: (0, yDomain.1), range: (top + plotHeight, top))
        let countDomain = SVGScale.niceDomain(0, Double(max(counts.max() ?? 0, 1)), count: 4)
        let yc = SVGScale(domain: (0, countDomain.1), range: (top + plotHeight, top))

        for (h, c) in counts.enumerated() where c > 0 && !solid[h] {
            svg.rect(x: hx(h) - band / 2, y: top, width: band, height: plotHeight, fill: "#EEF0F3",
                     tooltip: "\(hours(h)): \(c) \(over), too few to plot (fewer than \(minimumHourDecisions))")
        }
        for (h, c) in counts.enumerated() where c > 0 {
            svg.rect(x: hx(h) - band * 0.38, y: yc(Double(c)), width: band * 0.76, height: top + plotHeight - yc(Double(c)),
                     fill: "#D9DDE3", tooltip: "\(hours(h)): \(c) \(over)")
        }
        for t in y.ticks(count: 5) {
            svg.line(x1: left, y1: y(t), x2: width - right, y2: y(t), stroke: SVGPalette.grid)
            svg.text(y.label(t, count: 5), x: left - 8, y: y(t) + 4, anchor: "end", cssClass: "tick")
        }
        for t in yc.ticks(count: 4) where t == t.rounded() {
            svg.text(String(Int(t)), x: width - right + 8, y: yc(t) + 4, cssClass: "tick count")
        }
        svg.line(x1: left, y1: top + plotHeight, x2: width - right, y2: top + plotHeight, stroke: SVGPalette.axis)
        svg.line(x1: left, y1: top, x2: left, y2: top + plotHeight, stroke: SVGPalette.axis)
        for h in stride(from: 0, to: 24, by: 1) {
            svg.line(x1: hx(h), y1: top + plotHeight, x2: hx(h), y2: top + plotHeight + 4, stroke: SVGPalette.axis)
            if h % 2 == 0 { svg.text(String(format: "%02d", h), x: hx(h), y: top + plotHeight + 18, anchor: "middle", cssClass: "tick") }
        }
        svg.text("local hour of day (shaded: fewer than \(minimumHourDecisions) \(over))", x: (left + width - right) / 2, y: height - 10,
                 anchor: "middle", cssClass: "axis-title")
        svg.text(name, x: 16, y: top + plotHeight / 2, anchor: "middle", cssClass: "axis-title", rotate: -90)
        svg.text("\(over) (bars)", x: width - 14, y: top + plotHeight / 2, anchor: "middle", cssClass: "axis-title count", rotate: 90)

        var described: [String] = []
        for (i, p) in report.policies.enumerated() {
            let s = series[i]
            let byHour = Dictionary(p.byHour.map { ($0.hour, $0) }, uniquingKeysWith: { a, _ in a })
            func plotted(_ h: Int) -> (value: Double, over: Int)? {
                guard solid[h], let e = byHour[h] else { return nil }
                let (v, n) = e.value(metric)
                guard n > 0, let v, v.isFinite else { return nil }
                return (v, n)
            }
            var segment: [(Double, Double)] = []
            var best: (Int, Double)?, worst: (Int, Double)?
            func flush() {
                svg.polyline(segment, stroke: s.colour, strokeWidth: 2.5, dash: s.isDashed ? "6 4" : nil)
                segment = []
            }
            for h in 0..<24 {
                guard let (v, _) = plotted(h) else { flush(); continue }
                segment.append((hx(h), y.clamped(v)))
                if best == nil || v > best!.1 { best = (h, v) }
                if worst == nil || v < worst!.1 { worst = (h, v) }
            }
            flush()
            for h in 0..<24 {
                guard let (v, n) = plotted(h) else { continue }
                svg.circle(cx: hx(h), cy: y.clamped(v), r: 3.5, fill: s.isDashed ? "#FFFFFF" : s.colour, stroke: s.colour, strokeWidth: 1.5,
                           tooltip: "\(p.name), \(hours(h)): \(name) \(f3(v)) over \(n) \(over)")
            }
            if let best, let worst {
                described.append("\(p.name) best at \(String(format: "%02d", best.0)):00 (\(f3(best.1))), worst at \(String(format: "%02d", worst.0)):00 (\(f3(worst.1)))")
            }
        }
        let description = described.isEmpty ? "No hour has \(minimumHourDecisions) or more \(over)." : described.joined(separator: "; ") + "."
        return svg.render(id: "chart-hours", title: "\(name) by local hour of day", description: description)
    }

    // MARK: - Accuracy against rotations

    /// One point per policy at (rotations per active hour, headline) with both 95% intervals as
    /// whiskers, names beside the points (placed after every point, so no name covers a point
    /// or another name; a name with no free spot nearby goes further out with a leader line),
    /// and the headline–stability frontier dashed.
    ///
    /// - Complexity: O(policies²).
    static func accuracyVersusRotations(_ report: EvaluationReport) -> String {
        let series = SVGSeries.of(report)
        let left = 70.0, right = 30.0, top = 30.0, plotHeight = 380.0, bottom = 56.0
        let height = top + plotHeight + bottom
        let title = report.headlineTitle
        var svg = SVGDocument(width: width, height: height)
        let points = report.policies.enumerated().compactMap { i, p -> (Int, PolicyReport, Double, Double)? in
            guard let r = p.metrics[.rotationsPerActiveHour], let h = report.headline(of: p).value, r.isFinite, h.isFinite else { return nil }
            return (i, p, r, h)
        }
        var xs: [Double] = [0], ys: [Double] = []
        for (_, p, r, h) in points {
            xs.append(r); ys.append(h)
            if let c = p.ci[.rotationsPerActiveHour] { xs += [c.lowerBound, c.upperBound] }
            if let c = report.headline(of: p).interval { ys += [c.lowerBound, c.upperBound] }
        }
        let xd = SVGScale.niceDomain(0, xs.filter(\.isFinite).max() ?? 1, count: 6)
        var yLo = ys.filter(\.isFinite).min() ?? 0, yHi = ys.filter(\.isFinite).max() ?? 1
        let pad = max((yHi - yLo) * 0.08, 0.01)
        yLo = max(0, yLo - pad); yHi = min(1, yHi + pad)
        let yd = SVGScale.niceDomain(yLo, yHi, count: 5)
        let yLower = max(0, yd.0), yUpper = min(1, yd.1) > yLower ? min(1, yd.1) : yLower + 0.1
        let x = SVGScale(domain: (0, xd.1), range: (left, width - right))
        let y = SVGScale(domain: (yLower, yUpper), range: (top + plotHeight, top))

        for t in x.ticks(count: 6) {
            svg.line(x1: x(t), y1: top, x2: x(t), y2: top + plotHeight, stroke: SVGPalette.grid)
            svg.text(x.label(t, count: 6), x: x(t), y: top + plotHeight + 18, anchor: "middle", cssClass: "tick")
        }
        for t in y.ticks(count: 5) {
            svg.line(x1: left, y1: y(t), x2: width - right, y2: y(t), stroke: SVGPalette.grid)
            svg.text(y.label(t, count: 5), x: left - 8, y: y(t) + 4, anchor: "end", cssClass: "tick")
        }
        svg.line(x1: left, y1: top + plotHeight, x2: width - right, y2: top + plotHeight, stroke: SVGPalette.axis)
        svg.line(x1: left, y1: top, x2: left, y2: top + plotHeight, stroke: SVGPalette.axis)
        svg.text("rotations per active hour (lower is calmer)", x: (left + width - right) / 2, y: height - 12, anchor: "middle", cssClass: "axis-title")
        svg.text("\(title) (higher is better)", x: 18, y: top + plotHeight / 2, anchor: "middle", cssClass: "axis-title", rotate: -90)
        svg.text("↖ more accurate and calmer", x: left + 10, y: top + 16, cssClass: "note")

        // The frontier: candidates no other candidate dominates, joined by rotations.
        let candidates = points.filter { !ReportFindings.isOracle($0.1.name) }
        func dominates(_ a: (Int, PolicyReport, Double, Double), _ b: (Int, PolicyReport, Double, Double)) -> Bool {
            a.3 >= b.3 && a.2 <= b.2 && (a.3 > b.3 || a.2 < b.2)
        }
        let frontier = candidates.filter { c in !candidates.contains { dominates($0, c) } }
            .sorted { $0.2 != $1.2 ? $0.2 < $1.2 : $0.3 < $1.3 }
        if frontier.count >= 2 {
            svg.polyline(frontier.map { (x($0.2), y.clamped($0.3)) }, stroke: "#8A8F98", strokeWidth: 1.5, dash: "5 5",
                         tooltip: "accuracy–stability frontier: " + frontier.map(\.1.name).joined(separator: ", "))
        }

        // Every point's box first, so no name is placed over a point drawn after it.
        var placed: [(Double, Double, Double, Double)] = points.map { (x($0.2) - 10, y.clamped($0.3) - 10, 20, 20) }
        var labels: [(String, Double, Double, String)] = []
        var described: [String] = []
        for (i, p, r, h) in points {
            let s = series[i], px = x(r), py = y.clamped(h)
            var tip = "\(p.name): \(f2(r)) rotations per active hour, \(title) \(f3(h))"
            if let c = report.headline(of: p).interval { tip += " (95% CI \(f3(c.lowerBound)) to \(f3(c.upperBound)))" }
            described.append(tip)
            svg.beginGroup(tooltip: tip)
            if let c = p.ci[.rotationsPerActiveHour] {
                svg.line(x1: x(c.lowerBound), y1: py, x2: x(c.upperBound), y2: py, stroke: s.colour, strokeWidth: 1.5)
            }
            if let c = report.headline(of: p).interval {
                svg.line(x1: px, y1: y.clamped(c.lowerBound), x2: px, y2: y.clamped(c.upperBound), stroke: s.colour, strokeWidth: 1.5)
            }
            svg.circle(cx: px, cy: py, r: 7, fill: s.isDashed ? "#FFFFFF" : s.colour, stroke: s.isDashed ? s.colour : "#FFFFFF", strokeWidth: 2)
            svg.endGroup()
        }
        for (_, p, r, h) in points {
            let px = x(r), py = y.clamped(h)
            let label = truncated(p.name, 30)
            // Bold 12.5px runs wider than the layout estimate of regular text.
            let w = textWidth(label, fontSize: 12.5) * 1.15, hgt = 15.0
            func box(_ c: (Double, Double, String)) -> (Double, Double, Double, Double) {
                let bx = c.2 == "start" ? c.0 : c.2 == "end" ? c.0 - w : c.0 - w / 2
                return (bx - 2, c.1 - 12, w + 4, hgt)
            }
            func fits(_ b: (Double, Double, Double, Double)) -> Bool {
                let inside = b.0 >= left && b.0 + b.2 <= width - right && b.1 >= top - 10 && b.1 + b.3 <= top + plotHeight
                return inside && !placed.contains { o in b.0 < o.0 + o.2 && o.0 < b.0 + b.2 && b.1 < o.1 + o.3 && o.1 < b.1 + b.3 }
            }
            // Right, left, above, below, the diagonals, then rings further out (with a leader line).
            var spots: [(Double, Double, String)] = [
                (px + 11, py + 4, "start"), (px - 11, py + 4, "end"), (px, py - 13, "middle"), (px, py + 22, "middle"),
                (px + 11, py + 20, "start"), (px + 11, py - 12, "start"), (px - 11, py + 20, "end"), (px - 11, py - 12, "end"),
            ]
            for ring in 1...6 {
                let d = Double(ring) * 18
                spots += [(px + 11 + d, py + 4, "start"), (px - 11 - d, py + 4, "end"), (px, py - 13 - d, "middle"),
                          (px, py + 22 + d, "middle"), (px + 11 + d, py - 12 - d, "start"), (px + 11 + d, py + 20 + d, "start"),
                          (px - 11 - d, py - 12 - d, "end"), (px - 11 - d, py + 20 + d, "end")]
            }
            let chosen = spots.first { fits(box($0)) } ?? spots[0]
            let b = box(chosen)
            placed.append(b)
            let isNear = spots.prefix(8).contains { $0 == chosen }
            labels.append((label, chosen.0, chosen.1, chosen.2))
            if !isNear {
                svg.line(x1: px, y1: py, x2: b.0 + b.2 / 2, y2: b.1 + b.3 / 2, stroke: "#8A8F98", strokeWidth: 1)
            }
        }
        for l in labels { svg.text(l.0, x: l.1, y: l.2, anchor: l.3, cssClass: "point-label") }
        if points.isEmpty { svg.text("No policy has both \(title) and rotations per active hour.", x: left + 20, y: top + 40, cssClass: "note") }
        let description = described.isEmpty ? "No policy has both figures." : described.joined(separator: "; ") + "."
        return svg.render(id: "chart-tradeoff", title: "\(title) against rotations per active hour, one point per policy", description: description)
    }
}
