import Foundation

extension SVGCharts {
    /// The most stacks drawn on the timeline (the rest are named in a note).
    static let timelineStackLimit = 8

    /// `08:05` for a minute of the day (minutes past 24:00 keep counting, `24:30`).
    static func clock(_ minute: Double) -> String {
        let m = Int(max(0, minute).rounded(.down))
        return String(format: "%02d:%02d", m / 60, m % 60)
    }

    /// One day of one user: per stack, a lane of what was actually engaged (diamonds in the
    /// widget's colour) and per policy a lane of top-widget intervals coloured by widget, with
    /// guide lines at each engagement so a reader sees whether the top matched. Each policy lane
    /// is labelled with how many engagements found their widget on top.
    ///
    /// - Complexity: O(policies × intervals × engagements) for the day.
    static func timeline(_ report: EvaluationReport) -> String? {
        guard let sample = report.timeline else { return nil }
        let series = SVGSeries.of(report)
        let left = 200.0, right = 24.0, laneHeight = 20.0, laneGap = 4.0, stackGap = 16.0, axisHeight = 48.0

        // Stacks in configuration order, then any stack only seen in intervals or engagements.
        var stacks = sample.stacks
        for p in report.policies { for i in p.timeline where !stacks.contains(i.stack) { stacks.append(i.stack) } }
        for e in sample.engagements where !stacks.contains(e.stack) { stacks.append(e.stack) }
        let hiddenStacks = stacks.count > timelineStackLimit ? Array(stacks.dropFirst(timelineStackLimit)) : []
        stacks = Array(stacks.prefix(timelineStackLimit))

        // Widget colours: order of first appearance (engagements first, then each policy's intervals).
        var widgets: [String] = []
        for e in sample.engagements where stacks.contains(e.stack) && !widgets.contains(e.widget) { widgets.append(e.widget) }
        for p in report.policies { for i in p.timeline where stacks.contains(i.stack) && !widgets.contains(i.widget) { widgets.append(i.widget) } }
        let colourOf = Dictionary(widgets.enumerated().map { ($0.element, SVGPalette.widget($0.offset)) }, uniquingKeysWith: { a, _ in a })

        var dayEnd = 1440.0
        for p in report.policies { for i in p.timeline where i.endMinute.isFinite { dayEnd = max(dayEnd, i.endMinute) } }
        for e in sample.engagements where e.minute.isFinite { dayEnd = max(dayEnd, e.minute) }

        let lanesPerStack = 1 + report.policies.count
        let stackHeight = 20 + Double(lanesPerStack) * (laneHeight + laneGap)
        let legendTop = axisHeight + 8 + Double(stacks.count) * (stackHeight + stackGap)
        // Legend layout, to know the height.
        var legendRows = 1
        var lx = left
        for w in widgets {
            let width = 22 + textWidth(truncated(w, 24)) + 16
            if lx + width > Self.width - right, lx > left { legendRows += 1; lx = left }
            lx += width
        }
        let noteHeight = hiddenStacks.isEmpty ? 0.0 : 20
        let height = legendTop + 38 + Double(widgets.isEmpty ? 0 : legendRows) * 20 + noteHeight + 28
        var svg = SVGDocument(width: width, height: height)
        let x = SVGScale(domain: (0, dayEnd), range: (left, width - right))
        let plotBottom = legendTop - stackGap

        // Hour grid and clock labels.
        for h in stride(from: 0.0, through: dayEnd, by: 60) {
            let major = Int(h) % 180 == 0
            svg.line(x1: x(h), y1: axisHeight, x2: x(h), y2: plotBottom, stroke: major ? "#D5D8DD" : "#EEF0F2")
            if major {
                svg.text(clock(h), x: x(h), y: axisHeight - 8, anchor: "middle", cssClass: "tick")
                svg.text(clock(h), x: x(h), y: plotBottom + 14, anchor: "middle", cssClass: "tick")
            }
        }
        svg.text("\(sample.date), user \(truncated(sample.user, 40)) (local time)", x: 8, y: 16, cssClass: "panel-title")

        var described: [String] = []
        var y = axisHeight + 8
        for stack in stacks {
            let engagements = sample.engagements.filter { $0.stack == stack && $0.minute.isFinite }
            svg.text("stack \(truncated(stack, 30))", x: 8, y: y + 13, cssClass: "panel-title")
            y += 20
            // Lane of actual engagements.
            let usedTop = y
            svg.rect(x: left, y: y, width: width - right - left, height: laneHeight, fill: "#F6F7F9")
            svg.text("actually used", x: left - 10, y: y + 14, anchor: "end", cssClass: "label")
            for e in engagements {
                let cx = x(e.minute), cy = y + laneHeight / 2
                svg.polygon([(cx, cy - 8), (cx + 6, cy), (cx, cy + 8), (cx - 6, cy)], fill: colourOf[e.widget] ?? "#999999", stroke: "#222222",
                            tooltip: "\(clock(e.minute)): \(e.widget) used")
            }
            y += laneHeight + laneGap
            var stackFacts: [String] = []
            for (i, p) in report.policies.enumerated() {
                let intervals = p.timeline.filter { $0.stack == stack && $0.startMinute.isFinite && $0.endMinute.isFinite }
                let hits = engagements.filter { e in
                    intervals.contains { $0.startMinute <= e.minute && e.minute < $0.endMinute && $0.widget == e.widget }
                }.count
                let label = truncated(p.name, 18) + (engagements.isEmpty ? "" : "  \(hits)/\(engagements.count)")
                svg.text(label, x: left - 10, y: y + 14, anchor: "end", cssClass: "label")
                svg.rect(x: left - 6, y: y + 3, width: 3, height: laneHeight - 6, fill: series[i].colour)
                svg.rect(x: left, y: y, width: width - right - left, height: laneHeight, fill: "#FFFFFF", stroke: "#E3E3E3")
                for iv in intervals {
                    let a = x(max(0, iv.startMinute)), b = x(min(dayEnd, iv.endMinute))
                    svg.rect(x: a, y: y + 1, width: max(b - a, 1), height: laneHeight - 2, fill: colourOf[iv.widget] ?? "#999999",
                             tooltip: "\(p.name): \(iv.widget) on top \(clock(iv.startMinute))–\(clock(iv.endMinute))")
                }
                if !engagements.isEmpty { stackFacts.append("\(p.name) had the used widget on top for \(hits) of \(engagements.count)") }
                y += laneHeight + laneGap
            }
            // Guide lines from each engagement down through the policy lanes.
            for e in engagements {
                svg.line(x1: x(e.minute), y1: usedTop + laneHeight, x2: x(e.minute), y2: y - laneGap, stroke: "#222222", strokeWidth: 1,
                         dash: "2 2", cssClass: "guide")
            }
            described.append("stack \(stack): \(engagements.count) engagements" + (stackFacts.isEmpty ? "" : "; " + stackFacts.joined(separator: ", ")))
            y += stackGap - laneGap
        }

        // Widget legend.
        var ly = legendTop + 30
        if !widgets.isEmpty {
            svg.text("widgets", x: left - 10, y: ly, anchor: "end", cssClass: "label")
            lx = left
            for w in widgets {
                let label = truncated(w, 24)
                let width = 22 + textWidth(label) + 16
                if lx + width > Self.width - right, lx > left { ly += 20; lx = left }
                svg.rect(x: lx, y: ly - 11, width: 16, height: 14, fill: colourOf[w] ?? "#999999", stroke: "#666666", rx: 2, tooltip: w)
                svg.text(label, x: lx + 22, y: ly)
                lx += width
            }
        }
        if !hiddenStacks.isEmpty {
            ly += 22
            svg.text("\(hiddenStacks.count) more stack\(hiddenStacks.count == 1 ? "" : "s") not drawn: \(hiddenStacks.map { truncated($0, 20) }.joined(separator: ", "))",
                     x: left, y: ly, cssClass: "note")
        }
        let description = "Rotation timeline of user \(sample.user) on \(sample.date): " + described.joined(separator: "; ") + "."
        return svg.render(id: "chart-timeline", title: "One day's rotation timeline against what was actually used", description: description)
    }
}
