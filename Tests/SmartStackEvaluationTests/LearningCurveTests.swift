import Foundation
import Testing
import SmartStack
import SmartStackDatasets
@testable import SmartStackEvaluation

/// `evaluate --by-day`: each policy's figures per day since the stacks were configured, and what
/// a week of app-launch history before them is worth on day 1.
@Suite struct LearningCurveTests {
    /// `users` simulated people of `persona` over `days` days after `backfill` days of app
    /// launches, with their truth.
    static func simulated(_ persona: Persona, days: Int, users: Int, backfill: Int = 0, seed: UInt64 = 1) throws
        -> (events: [Event], truth: EvaluationTruth) {
        var variant = SimulationVariant()
        variant.backfillDays = backfill
        let options = try SimulationOptions(persona: persona, days: days, users: users, seed: seed, variant: variant)
        var events: [Event] = [], lines: [GroundTruthEntry] = []
        for u in 0..<users {
            var sim = UserSimulator(persona: persona, userIndex: u, userName: options.userName(u), seed: seed,
                                    startDay: options.startDay, days: days, variant: variant)
            while let day = sim.nextDay() {
                events += day.events
                lines += day.truth
            }
        }
        let truth = try GroundTruth(entries: lines, source: "\(persona.rawValue).truth.jsonl")
        return (events, EvaluationTruth(truth: truth, file: PolicyInputFile(path: "\(persona.rawValue).truth.jsonl", digest: "memory:\(backfill)")))
    }

    static func options(warmup: Int = 0, byDay: Bool = true) -> ReplayOptions {
        var o = ReplayOptions()
        o.warmupDays = warmup
        o.bootstrapResamples = 0
        o.threads = 2
        o.byDay = byDay
        return o
    }

    static let policies = [try! PolicyFactory.engine(PolicySpec(parsing: "contextual")), try! PolicyFactory.engine(PolicySpec(parsing: "mfu"))]

    static func evaluate(_ data: (events: [Event], truth: EvaluationTruth), options: ReplayOptions = options(),
                         truth: Bool = true) throws -> EvaluationReport {
        try Evaluator(options: options).evaluate(.events(data.events, name: "sim"), policies: policies,
                                                 truth: truth ? data.truth : nil)
    }

    @Test func theDaysAddUpToTheWholeAtWarmUpZero() throws {
        let report = try Self.evaluate(try Self.simulated(.commuter, days: 4, users: 2))
        let curve = try #require(report.byDay)
        #expect(curve.measure == "counterfactual_engagement" && curve.threshold == 0.85)
        #expect(curve.days.map(\.day) == [1, 2, 3, 4])
        #expect(curve.days.allSatisfy { $0.users == 2 && $0.decisions > 0 })
        for (k, p) in report.policies.enumerated() {
            let days = curve.policies[k].days
            #expect(curve.policies[k].name == p.name)
            #expect(curve.days.reduce(0) { $0 + $1.decisions } == Int(p.metrics[.decisions] ?? -1))
            #expect(curve.days.reduce(0) { $0 + $1.decisionsWithTarget } == Int(p.metrics[.decisionsWithTarget] ?? -1))
            let truths = curve.days.reduce(0) { $0 + $1.decisionsWithTruth }
            #expect(truths == Int(p.metrics[.decisionsWithTruth] ?? -1))
            let hits = days.reduce(0) { $0 + $1.hitsAt1 }
            #expect(abs(Double(hits) - (p.metrics[.hitAt1] ?? -1) * Double(p.metrics[.decisionsWithTarget] ?? 0)) < 1e-6)
            let engagement = days.reduce(0.0) { $0 + $1.counterfactualSum } / Double(truths)
            #expect(abs(engagement - (p.metrics[.counterfactualEngagement] ?? -1)) < 1e-9)
            let ceiling = curve.days.reduce(0.0) { $0 + $1.ceilingSum } / Double(truths)
            #expect(abs(ceiling - (p.metrics[.ceiling] ?? -1)) < 1e-9)
            for (i, point) in days.enumerated() {
                let day = curve.days[i]
                #expect(abs((point.counterfactualEngagement ?? -1) - point.counterfactualSum / Double(day.decisionsWithTruth)) < 1e-12)
                #expect(abs((point.ceilingRatio ?? -1) - point.counterfactualSum / day.ceilingSum) < 1e-12)
            }
        }
    }

    /// Every decision counts, warm-up or not: the curve is the same at any warm-up, while the
    /// scored totals are not.
    @Test func theCurveDoesNotDependOnTheWarmUp() throws {
        let data = try Self.simulated(.student, days: 4, users: 2)
        let zero = try Self.evaluate(data, options: Self.options(warmup: 0))
        let two = try Self.evaluate(data, options: Self.options(warmup: 2))
        #expect(zero.byDay != nil)
        #expect(zero.byDay == two.byDay)
        #expect(zero.policies[0].metrics[.decisions] != two.policies[0].metrics[.decisions])
        #expect(try Self.evaluate(data, options: Self.options(byDay: false)).byDay == nil)
    }

    /// Day 1 is the first day with stacks, not the first of the history before them.
    @Test func daysCountFromTheStacksConfigurationNotFromTheHistory() throws {
        let plain = try Self.evaluate(try Self.simulated(.drift, days: 3, users: 2))
        let backfilled = try Self.evaluate(try Self.simulated(.drift, days: 3, users: 2, backfill: 5))
        let a = try #require(plain.byDay), b = try #require(backfilled.byDay)
        #expect(b.days.count == 3)
        // The same decisions on the same days, only what the policies knew differs.
        #expect(a.days == b.days)
    }

    /// The end-to-end measure of the history a phone holds: a week of app launches before the
    /// stacks, and no engagement of any widget yet, makes the default policy's first day better.
    @Test func aWeekOfBackfilledLaunchesMakesTheFirstDayBetter() throws {
        for persona in [Persona.student, .sequence] {
            let without = try #require(try Self.evaluate(try Self.simulated(persona, days: 1, users: 3)).byDay)
            let with = try #require(try Self.evaluate(try Self.simulated(persona, days: 1, users: 3, backfill: 7)).byDay)
            #expect(without.days == with.days)
            let before = try #require(without.policies[0].days[0].ceilingRatio)
            let after = try #require(with.policies[0].days[0].ceilingRatio)
            #expect(after > before + 0.03, "\(persona): day 1 at \(before) × the ceiling without history, \(after) with a week of it")
        }
    }

    @Test func withoutTruthTheCurveReadsHitAt1AndNamesNoDay() throws {
        let report = try Self.evaluate(try Self.simulated(.commuter, days: 2, users: 2), truth: false)
        let curve = try #require(report.byDay)
        #expect(curve.measure == "hit_at_1" && curve.threshold == nil)
        #expect(curve.policies.allSatisfy { $0.reachesDay == nil && $0.days.allSatisfy { $0.counterfactualEngagement == nil } })
        #expect(curve.policies[0].days.contains { $0.hitAt1 != nil })
        let md = ReportRenderer.markdown(report)
        #expect(md.contains("## Learning curve by day since the stacks were configured"))
        #expect(!md.contains("reaches 0.85"))
    }

    @Test func theReachDayIsTheFirstFromWhichEveryLaterDayStaysAbove() {
        func reach(_ shares: [Double]) -> Int? {
            LearningCurve.reachDay(shares: shares.enumerated().map { ($0.offset + 1, $0.element) }, threshold: 0.85)
        }
        #expect(reach([0.9, 0.8, 0.86, 0.9]) == 3)
        #expect(reach([0.9, 0.9]) == 1)
        #expect(reach([0.9, 0.84]) == nil)
        #expect(reach([0.85]) == 1)
        #expect(reach([]) == nil)
        // Thin days are left out before: the day numbers are the solid days'.
        #expect(LearningCurve.reachDay(shares: [(2, 0.7), (5, 0.9), (9, 0.88)], threshold: 0.85) == 5)
    }

    @Test func thinDaysAreShadedAndNotCounted() throws {
        let tally = { (n: Int, share: Double) -> DecisionTally in
            var t = DecisionTally()
            for _ in 0..<n { t.addDecision(targetRank: 1); t.addCounterfactual(value: share * 0.5, ceiling: 0.5, lift: 0) }
            return t
        }
        // Day 3 is below the threshold but has too few decisions to count.
        let days = [tally(30, 0.5), tally(30, 0.9), tally(LearningCurve.minimumDecisions - 1, 0.1), tally(30, 0.95)]
        let curve = LearningCurve(policies: ["p"], tallies: [days], users: [1, 1, 1, 1], counterfactual: true)
        #expect(curve.policies[0].reachesDay == 2)
        #expect(curve.days.map(curve.isSolid) == [true, true, false, true])
        let report = EvaluationReport(dataset: DatasetSummary(name: "d", sources: [], events: 1, mergedRepeats: 0, users: 1, usersEvaluated: 1,
                                                              usersSkipped: [], decisionPoints: 1, usersWithScreenOn: 1, userDays: 1,
                                                              first: nil, last: nil),
                                      options: OptionsSummary(Self.options(), reference: nil), policies: [], timeline: nil,
                                      measure: .counterfactual, byDay: curve)
        let chart = try #require(SVGCharts.learningCurve(report))
        #expect(chart.contains("day 3: \(LearningCurve.minimumDecisions - 1) decisions with a truth line, too few to plot"))
        #expect(ReportRenderer.markdown(report).contains("| 3† |"))
    }

    @Test func theReportsShowTheCurve() throws {
        let report = try Self.evaluate(try Self.simulated(.commuter, days: 3, users: 2))
        let html = ReportRenderer.html(report)
        #expect(html.contains("id=\"chart-by-day-title\""))
        #expect(html.contains("reaches 0.85 × ceiling on day"))
        let md = ReportRenderer.markdown(report)
        #expect(md.contains("| day | people | decisions with truth | ceiling | contextual | mfu |"))
        #expect(report.textTable().contains("By day since the stacks were configured"))
        let json = try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any]
        let byDay = try #require(json?["by_day"] as? [String: Any])
        #expect((byDay["days"] as? [Any])?.count == 3)
        let decoded = try EvaluationReport(jsonData: report.jsonData())
        #expect(decoded.byDay == report.byDay)
        let plain = try Self.evaluate(try Self.simulated(.commuter, days: 3, users: 2), options: Self.options(byDay: false))
        #expect(!ReportRenderer.html(plain).contains("chart-by-day"))
        #expect(!ReportRenderer.markdown(plain).contains("Learning curve"))
    }
}
