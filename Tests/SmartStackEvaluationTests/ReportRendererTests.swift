import Foundation
import Testing
import SmartStack
@testable import SmartStackEvaluation

/// Checks that `html` nests its tags properly: every opened element is closed in order
/// (void elements and `/>` excepted). Returns the first problem, or nil.
func tagNestingProblem(_ html: String) -> String? {
    let void: Set<String> = ["meta", "br", "hr", "img", "input", "link", "!doctype"]
    var stack: [String] = []
    var rest = Substring(html)
    while let open = rest.firstIndex(of: "<") {
        guard let close = rest[open...].firstIndex(of: ">") else { return "unterminated tag" }
        let tag = rest[rest.index(after: open)..<close]
        rest = rest[rest.index(after: close)...]
        if tag.hasPrefix("/") {
            let name = tag.dropFirst().lowercased()
            guard stack.last == name else { return "</\(name)> closes <\(stack.last ?? "nothing")>" }
            stack.removeLast()
        } else {
            let name = String(tag.prefix { !$0.isWhitespace && $0 != "/" }).lowercased()
            if tag.hasSuffix("/") || void.contains(name) { continue }
            stack.append(name)
            // The style sheet's text may contain '>' (selectors); skip to its end.
            if name == "style", let end = rest.range(of: "</style>") {
                rest = rest[end.lowerBound...]
            }
        }
    }
    return stack.isEmpty ? nil : "unclosed: \(stack.joined(separator: ", "))"
}

func occurrences(of needle: String, in haystack: String) -> Int {
    haystack.components(separatedBy: needle).count - 1
}

@Suite struct ReportRendererTests {
    // MARK: Markdown

    @Test func markdownHasDatasetOptionsTableAndWinner() {
        let md = ReportRenderer.markdown(ReportFixture.report())
        #expect(md.hasPrefix("# SmartStack evaluation: commuters\n"))
        #expect(md.contains("window 10 minutes, warm-up 2 days, merge repeats on, seed 7, reference recency"))
        #expect(md.contains("| policy | hit@1 [95% CI] | hit@3 | MRR | nDCG@3 | rot/active h | flicker | dwell min | unnecessary | coverage | decisions |"))
        #expect(md.contains("| **frecency** (winner) | 0.412 [0.380, 0.444] | 0.762 | 0.532 | 0.562 | 3.10 | 0.120 | 19.35 | 0.410 | 0.800 | 4321 (1234 with target) |"))
        #expect(md.contains("| recency | 0.366 [0.331, 0.401] |"))
        #expect(md.contains("| oracle (ceiling) | 0.720 [0.690, 0.750] |"))
        #expect(md.contains("Winner by logged hit@1: **frecency** at 0.412 (95% CI 0.380–0.444), ahead of **recency** at 0.366 by +0.046 (paired 95% interval on the same decisions [+0.021, +0.071], which excludes zero), and ahead of every other policy beyond chance."))
        // Without propensities or truth the report says what logged hit@1 cannot tell.
        #expect(md.contains("**Measure: logged hit@1.**"))
        #expect(md.contains("so hit@1 favours policies that imitate it"))
        #expect(md.contains("- Users: 11 of 12 evaluated; skipped: u99 (no stack\\_config event)"))
        #expect(md.contains("- Warm-up: 2 days excluded from scoring"))
        #expect(md.contains("- Seed: 7"))
        // Every table row has as many cells as the header.
        let rows = md.split(separator: "\n").filter { $0.hasPrefix("| ") && $0.contains("with target") }
        #expect(rows.count == 4)
    }

    @Test func mergedRepeatsAreStatedWhenTheReportCarriesThem() {
        let report = ReportFixture.report()
        let md = ReportRenderer.markdown(report)
        if ReportRenderer.encodedFields(report.dataset)["merged_repeats"] != nil {
            #expect(md.contains("- Events: 123456 after merging 789 consecutive repeat launches\n"))
            #expect(ReportRenderer.html(report).contains("<dd>123456 after merging 789 consecutive repeat launches</dd>"))
        } else {
            #expect(md.contains("- Events: 123456\n"))
        }
    }

    @Test func oracleIsTheCeilingNotTheWinner() {
        let md = ReportRenderer.markdown(ReportFixture.report())
        #expect(!md.contains("Winner by hit@1: **oracle**"))
        #expect(md.contains("Ceiling: the oracle (ground truth of the simulation) reaches hit@1 0.720 with 4.50 rotations per active hour; **frecency** reaches 57% of it."))
    }

    @Test func aLeadWhosePairedIntervalIncludesZeroNamesTheTiedGroupNotAWinner() {
        let md = ReportRenderer.markdown(ReportFixture.report([ReportFixture.frecency, ReportFixture.recency, ReportFixture.contextual],
                                                              leads: ["recency": -0.004...0.096]))
        #expect(md.contains("No winner by logged hit@1: **frecency** leads at 0.412 (95% CI 0.380–0.444), but **recency** is not behind it beyond chance (the lead over recency, +0.046, has the paired 95% interval [-0.004, +0.096], which includes zero): the tied group is **frecency** and **recency**."))
        #expect(!md.contains("(winner)"))
        #expect(md.contains("| **frecency** (tied for best) |") && md.contains("| **recency** (tied for best) |"))
        #expect(md.contains("| contextual:half\\_life=14d |"))
        let page = ReportRenderer.html(ReportFixture.report([ReportFixture.frecency, ReportFixture.recency], leads: ["recency": -0.004...0.096]))
        #expect(!page.contains("class=\"winner\"") && page.contains("<tr class=\"tied\">"))
    }

    @Test func withoutBootstrapNoLeadIsTestedAndNoWinnerNamed() {
        let noBootstrap = ReportRenderer.markdown(ReportFixture.report(reference: nil, bootstrap: 0))
        #expect(noBootstrap.contains("No winner by logged hit@1: **frecency** leads at 0.412, but without bootstrap intervals its lead of +0.046 over **recency** cannot be tested (run with `--bootstrap 1000`)."))
        #expect(noBootstrap.contains("| frecency | 0.412 | "))
        #expect(noBootstrap.contains("without bootstrap intervals no lead can be tested"))
        #expect(!noBootstrap.contains("## Paired differences"))
    }

    @Test func tradeOffSentenceFollowsTheFigures() {
        let md = ReportRenderer.markdown(ReportFixture.report())
        #expect(md.contains("Hit@1 costs stability: **frecency** gains +0.046 over the calmest policy **recency** (0.412 vs 0.366) but rotates 3.10 times per active hour instead of 1.20, 2.6× as many, with flicker 0.120 vs 0.030 and unnecessary rotations 0.410 vs 0.250."))
        #expect(md.contains("**contextual:half\\_life=14d** is dominated by **recency** (at least as good, rotating no more). On the frontier: **frecency** and **recency**."))
        // Make the most accurate policy also the calmest: the sentence must change with the numbers.
        var calm = ReportFixture.frecency
        calm.rotations = 0.9
        calm.rotationsCI = 0.8...1.0
        let other = ReportRenderer.markdown(ReportFixture.report([calm, ReportFixture.recency, ReportFixture.contextual]))
        #expect(other.contains("**frecency** is also the calmest policy (0.90 rotations per active hour), so its hit@1 costs no stability here."))
        #expect(!other.contains("costs stability:"))
        #expect(other.contains("On the frontier: **frecency**."))
    }

    @Test func everyPolicyOnTheFrontier() {
        var c = ReportFixture.contextual
        c.hitAt1 = 0.380
        c.rotations = 2.0
        let md = ReportRenderer.markdown(ReportFixture.report([ReportFixture.frecency, ReportFixture.recency, c], reference: nil))
        #expect(md.contains("Every policy is on the hit@1–stability frontier"))
    }

    @Test func tieAndNoTarget() {
        var b = ReportFixture.recency
        b.hitAt1 = 0.4122
        let tie = ReportRenderer.markdown(ReportFixture.report([ReportFixture.frecency, b], reference: nil))
        #expect(tie.contains("No winner by logged hit@1: **recency** leads at 0.412 (95% CI 0.331–0.401), but **frecency** is not behind it beyond chance"))
        #expect(!tie.contains("(winner)"))

        var report = ReportFixture.report([ReportFixture.frecency, ReportFixture.recency], reference: nil)
        for i in report.policies.indices { report.policies[i].metrics[.hitAt1] = nil }
        report.verdict = nil   // as the evaluator leaves it with no hit@1 to rank by
        let none = ReportRenderer.markdown(report)
        #expect(none.contains("No scored decision had a target"))
        #expect(none.contains("| frecency | - |"))
        let page = ReportRenderer.html(report)
        #expect(tagNestingProblem(page) == nil)
    }

    @Test func calmerPolicyWithTheSameAccuracyIsCalledOut() {
        var b = ReportFixture.recency
        b.hitAt1 = 0.4118
        let md = ReportRenderer.markdown(ReportFixture.report([ReportFixture.frecency, b], reference: nil))
        #expect(md.contains("**recency** matches the best hit@1 (0.412) while rotating least (1.20 rotations per active hour against 3.10 for **frecency**), so the extra rotations buy nothing."))
    }

    @Test func manyPoliciesGetDistinctColoursAndAllCharts() throws {
        let names = ["static", "round-robin", "mru", "mfu", "frecency", "time-of-day", "contextual", "bandit:epsilon=0.1"]
        var figures = names.enumerated().map { i, n in
            ReportFixture.Figures(name: n, hitAt1: 0.30 + 0.013 * Double(i), hitAt1CI: (0.27 + 0.013 * Double(i))...(0.33 + 0.013 * Double(i)),
                                  rotations: 0.5 + 0.37 * Double((i * 5) % 8), rotationsCI: (0.4 + 0.37 * Double((i * 5) % 8))...(0.6 + 0.37 * Double((i * 5) % 8)))
        }
        figures.append(ReportFixture.oracle)
        let report = ReportFixture.report(figures, reference: nil, withOPE: false)
        let page = ReportRenderer.html(report)
        if let keep = ProcessInfo.processInfo.environment["SMARTSTACK_REPORT_ARTIFACTS"] {
            try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            try Data(page.utf8).write(to: URL(fileURLWithPath: keep).appendingPathComponent("many.html"))
        }
        #expect(tagNestingProblem(page) == nil)
        let colours = SVGSeries.of(report).map(\.colour)
        #expect(Set(colours.dropLast()).count == names.count)
        #expect(colours.last == SVGPalette.oracle)
        for n in names { #expect(page.contains(">\(n)</text>") || page.contains(">\(n)  "), "\(n) is labelled in the charts") }
    }

    @Test func singlePolicy() {
        let md = ReportRenderer.markdown(ReportFixture.report([ReportFixture.frecency, ReportFixture.oracle], reference: nil))
        #expect(md.contains("**frecency** is the only policy ranked besides the oracle; its logged hit@1 is 0.412 (95% CI 0.380–0.444)."))
    }

    @Test func offPolicySectionOnlyWithEstimates() {
        let md = ReportRenderer.markdown(ReportFixture.report())
        #expect(md.contains("## Off-policy estimates from logged impressions"))
        #expect(md.contains("| policy | impressions | logged rate | IPS | SNIPS | DR |"))
        #expect(md.contains("| frecency | 5000 | 0.0038 | 0.0040 [0.0030, 0.0050] | 0.0039 [0.0028, 0.0049] | 0.0040 |"))
        #expect(md.contains("effective sample size | largest weight |"))
        #expect(md.contains("| 812 | 14.500 |"))
        let without = ReportRenderer.markdown(ReportFixture.report(withOPE: false))
        #expect(!without.contains("Off-policy"))
        #expect(!ReportRenderer.html(ReportFixture.report(withOPE: false)).contains("Off-policy"))
    }

    @Test func offPolicyTableReadsBothEncodings() throws {
        let keyed: [String: Any] = [
            "impressions": 10_000, "logged_rate": 0.0038, "note": NSNull(),
            "estimates": [
                "switch_dr_tau_5": ["value": 0.0041, "ci": [0.0030, 0.0052]],
                "ips": ["value": 0.0040, "ci": [0.0031, 0.0049]],
                "replay": ["value": NSNull(), "ci": NSNull()],
                "dr_os_lambda_1": ["value": 0.0039, "ci": NSNull()],
                "diagnostics": ["ess": 1234.5, "max_weight": 80, "zero_support_share": NSNull()],
                "rounds": 10_000, "bootstrap": ["samples": 100, "alpha": 0.05, "seed": 1],
            ] as [String: Any],
        ]
        let listed: [String: Any] = [
            "impressions": 20, "logged_rate": NSNull(), "note": "too few impressions",
            "estimates": [["estimator": "snips", "value": 0.5, "ci": [0.4, 0.6], "diagnostics": ["ess": 3]]],
        ]
        let table = try #require(OffPolicyTable(encoded: [("a", keyed), ("b", listed)]))
        #expect(table.estimators == ["replay", "ips", "snips", "switch_dr_tau_5", "dr_os_lambda_1"])
        #expect(table.estimators.map(OffPolicyTable.title(estimator:)) == ["Replay", "IPS", "SNIPS", "Switch-DR (τ=5)", "DRos (λ=1)"])
        #expect(table.diagnosticNames == ["rounds", "ess", "max_weight"])
        #expect(table.rows[0].impressions == 10_000)
        #expect(OffPolicyTable.cell(table.rows[0].values["ips"]?.value, table.rows[0].values["ips"]?.ci) == "0.0040 [0.0031, 0.0049]")
        #expect(table.rows[0].values["replay"]?.value == nil)
        #expect(OffPolicyTable.diagnostic(table.rows[0].diagnostics["ess"]) == "1234.5")
        #expect(table.rows[1].loggedRate == nil)
        #expect(table.rows[1].note == "too few impressions")
        #expect(table.rows[1].diagnostics == ["ess": 3])
        #expect(OffPolicyTable(encoded: []) == nil)
    }

    @Test func markdownEscapesNames() {
        var weird = ReportFixture.recency
        weird.name = "a|b *c* <i>"
        let md = ReportRenderer.markdown(ReportFixture.report([ReportFixture.frecency, weird], reference: nil, datasetName: "x_[y](z)"))
        #expect(md.contains("# SmartStack evaluation: x\\_\\[y\\](z)\n"))
        #expect(md.contains("| a\\|b \\*c\\* \\<i\\> | 0.366"))
        #expect(md.contains("**a\\|b \\*c\\* \\<i\\>**"))
        #expect(occurrences(of: "<i>", in: md) == 0)
        // Inside a code span a name is literal; only the table-breaking pipe is escaped.
        #expect(ReportRenderer.codeSpan("--reference a|b *c* <i>") == "`--reference a\\|b *c* <i>`")
    }

    // MARK: HTML

    @Test func htmlIsSelfContainedAndBalanced() {
        let page = ReportRenderer.html(ReportFixture.report())
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(tagNestingProblem(page) == nil, "\(tagNestingProblem(page) ?? "")")
        #expect(occurrences(of: "<svg", in: page) == 4)
        #expect(occurrences(of: "</svg>", in: page) == 4)
        // Nothing fetched: the only URL is the SVG namespace, no script, no external style or image.
        #expect(occurrences(of: "http", in: page) == occurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", in: page))
        for forbidden in ["<script", "src=", "href=", "url(", "@import"] { #expect(!page.contains(forbidden), "\(forbidden)") }
        // Accessible charts: each has a role, a title and a description.
        #expect(occurrences(of: "role=\"img\"", in: page) == 4)
        for id in ["chart-intervals", "chart-hours", "chart-tradeoff", "chart-timeline"] {
            #expect(page.contains("<title id=\"\(id)-title\">"), "\(id)")
            #expect(page.contains("<desc id=\"\(id)-desc\">"), "\(id)")
        }
        // Responsive: charts scale to the width.
        #expect(page.contains("svg.chart{display:block;width:100%;height:auto"))
        #expect(page.contains("<meta name=\"viewport\""))
    }

    @Test func htmlCarriesTheFindingsAndTables() {
        let page = ReportRenderer.html(ReportFixture.report())
        #expect(page.contains("Winner by logged hit@1: <strong>frecency</strong> at 0.412"))
        #expect(page.contains("<tr class=\"winner\">"))
        #expect(page.contains("<tr class=\"oracle\">"))
        #expect(page.contains("<h2 id=\"paired\">Paired differences against recency</h2>"))
        #expect(page.contains("<td class=\"significant\">+0.046<br><small>[+0.021, +0.071]</small></td>"))
        #expect(page.contains("<td>-0.015<br><small>[-0.040, +0.010]</small></td>"))
        // Headline intervals printed, the others in a tooltip.
        #expect(page.contains("<td>0.412<br><small>[0.380, 0.444]</small></td>"))
        #expect(page.contains("<td>3.10<br><small>[2.80, 3.40]</small></td>"))
        #expect(page.contains("<dt>Attribution window</dt><dd>10 minutes</dd>"))
        #expect(page.contains("<dt>Merge repeats</dt>"))
    }

    @Test func htmlEscapesEveryName() {
        var weird = ReportFixture.recency
        weird.name = "<script>alert('x')</script>"
        let report = ReportFixture.report([ReportFixture.frecency, weird], reference: nil, datasetName: "\"><img src=x>")
        let page = ReportRenderer.html(report)
        #expect(!page.contains("<script"))
        #expect(!page.contains("<img"))
        #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(page.contains("&quot;&gt;&lt;img src=x&gt;"))
        // The widget name with markup is escaped in the timeline's tooltips and legend.
        #expect(!page.contains(ReportFixture.nastyWidget))
        #expect(page.contains("&lt;b&gt;Mail &amp; &quot;News&quot;&lt;/b&gt;"))
        #expect(page.contains("stack work &amp; &lt;play&gt;"))
        #expect(tagNestingProblem(page) == nil)
    }

    @Test func htmlWithoutTimelineOrIntervals() {
        let page = ReportRenderer.html(ReportFixture.report(reference: nil, withOPE: false, withTimeline: false, bootstrap: 0))
        #expect(tagNestingProblem(page) == nil)
        #expect(occurrences(of: "<svg", in: page) == 3)
        #expect(page.contains("No rotation timeline"))
        #expect(!page.contains("<small>["))
    }

    @Test func emptyReportStillRenders() {
        let empty = EvaluationReport(dataset: ReportFixture.report().dataset, options: ReportFixture.report().options, policies: [], timeline: nil)
        #expect(ReportRenderer.markdown(empty).contains("No policy was evaluated."))
        let page = ReportRenderer.html(empty)
        #expect(tagNestingProblem(page) == nil)
        #expect(!page.contains("nan"))
    }

    // MARK: Charts

    @Test func timelineCountsUsesWithTheirWidgetOnTop() throws {
        var report = ReportFixture.report([ReportFixture.frecency], reference: nil, withOPE: false)
        report.timeline = TimelineSample(user: "u1", date: "2024-01-02", start: "", end: "", stacks: ["s"], engagements: [
            TimelineEngagement(time: "", minute: 300, stack: "s", widget: "weather"),
            TimelineEngagement(time: "", minute: 700, stack: "s", widget: "weather"),
            TimelineEngagement(time: "", minute: 800, stack: "s", widget: "calendar"),
        ])
        report.policies[0].timeline = [
            TimelineInterval(stack: "s", widget: "weather", start: "", end: "", startMinute: 0, endMinute: 600),
            TimelineInterval(stack: "s", widget: "calendar", start: "", end: "", startMinute: 600, endMinute: 1440),
        ]
        let svg = try #require(SVGCharts.timeline(report))
        #expect(svg.contains("frecency had the used widget on top for 2 of 3"))
        #expect(svg.contains(">frecency  2/3</text>"))
        #expect(svg.contains("<title>frecency: weather on top 00:00–10:00</title>"))
        #expect(svg.contains("<title>13:20: calendar used</title>"))
    }

    @Test func byHourBreaksLinesAtHoursWithoutTargets() {
        let report = ReportFixture.report([ReportFixture.frecency], reference: nil, withOPE: false)
        let svg = SVGCharts.byHour(report)
        // Hours 6...23 have targets, 0...5 none: one line of 18 points for the one policy.
        let lines = svg.components(separatedBy: "<polyline").dropFirst()
        #expect(lines.count == 1)
        #expect(lines.first.map { $0.prefix { $0 != "\"" } == " points=" } ?? false)
        let points = lines.first?.split(separator: "\"")[1].split(separator: " ").count
        #expect(points == 18)
        #expect(svg.contains("frecency, 06:00–07:00: hit@1"))
        #expect(!svg.contains("frecency, 05:00–06:00"))
    }

    @Test(arguments: [
        (0.0, 0.444, 5, 0.0, 0.5),
        (0.0, 3.4, 5, 0.0, 4.0),
        (0.33, 0.41, 5, 0.32, 0.42),
        (0.0, 0.0, 5, -1.0, 1.0),
        (2.0, 2.0, 5, 1.8, 2.2),
    ])
    func niceDomains(lo: Double, hi: Double, count: Int, expectedLo: Double, expectedHi: Double) {
        let d = SVGScale.niceDomain(lo, hi, count: count)
        #expect(abs(d.0 - expectedLo) < 1e-9 && abs(d.1 - expectedHi) < 1e-9, "\(d)")
    }

    @Test func scaleTicksAndLabels() {
        let s = SVGScale(domain: (0, 0.5), range: (100, 600))
        #expect(s(0.25) == 350)
        #expect(s.ticks(count: 5).count == 6)
        #expect(s.ticks(count: 5).map { s.label($0) } == ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5"])
        let inverted = SVGScale(domain: (0, 1), range: (300, 20))
        #expect(inverted(1) == 20)
        #expect(inverted.clamped(2) == 20)
        let r = SVGScale(domain: (0, 25), range: (0, 100))
        #expect(r.ticks(count: 5).map { r.label($0) } == ["0", "5", "10", "15", "20", "25"])
    }

    @Test func svgEscapingAndNumbers() {
        #expect(SVGDocument.escape("a<b>&\"c'\u{1}") == "a&lt;b&gt;&amp;&quot;c&#39;\u{FFFD}")
        #expect(SVGDocument.number(.nan) == "0")
        #expect(SVGDocument.number(12.04) == "12")
        #expect(SVGDocument.number(12.26) == "12.3")
        #expect(SVGDocument.number(-3.5) == "-3.5")
    }
}

@Suite struct ReportRendererEvaluatorTests {
    /// Renders what the evaluator really produced for a seeded dataset, so the renderer is checked
    /// on real shapes (by-hour gaps, timeline intervals, paired comparisons), not just fixtures.
    @Test func rendersTheEvaluatorsReport() throws {
        var options = ReplayOptions()
        options.bootstrapResamples = 200
        options.threads = 1
        options.warmupDays = 1
        let report = try Evaluator(options: options).evaluate(.events(ReportReplayFixture.events(), name: "synthetic"),
                                                              policies: ReportReplayFixture.policies, reference: "configured")
        let md = ReportRenderer.markdown(report)
        let page = ReportRenderer.html(report)
        if let keep = ProcessInfo.processInfo.environment["SMARTSTACK_REPORT_ARTIFACTS"] {
            try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            try Data(md.utf8).write(to: URL(fileURLWithPath: keep).appendingPathComponent("evaluated.md"))
            try Data(page.utf8).write(to: URL(fileURLWithPath: keep).appendingPathComponent("evaluated.html"))
        }
        #expect(tagNestingProblem(page) == nil, "\(tagNestingProblem(page) ?? "")")
        #expect(occurrences(of: "<svg", in: page) == 4)
        #expect(!page.contains("nan") && !md.contains("nan"))
        #expect(!page.contains("<launched>"))
        #expect(md.contains("last \\<launched\\> \\& co"))
        // The verdict names whichever policy has the better hit@1 in the report, a winner only
        // when its paired interval against the other excludes zero.
        let hits = report.policies.map { $0.metrics[.hitAt1] ?? -1 }
        let best = hits[0] >= hits[1] ? "configured" : "last \\<launched\\> \\& co"
        let verdict = try #require(report.verdict)
        let lead = try #require(verdict.leadInterval)
        if lead[0] > 0 {
            #expect(md.contains("Winner by \(report.headlineTitle): **\(best)**"))
        } else {
            #expect(md.contains("No winner by \(report.headlineTitle): **\(best)** leads"))
        }
        // The timeline shows both policies' lanes for the day the evaluator picked.
        let timeline = try #require(report.timeline)
        #expect(page.contains("\(timeline.date), user \(timeline.user)"))
        #expect(page.contains("<title>configured: weather on top 00:00–"))
        #expect(occurrences(of: " used</title></polygon>", in: page) == timeline.engagements.count)
    }
}
