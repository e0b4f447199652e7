import Foundation
import Testing
import SmartStack
@testable import SmartStackEvaluation

@Suite struct ReplayTests {
    @Test func screenOnInstantsAreTheDecisionPointsWhenTheUserHasThem() throws {
        let events = [Fixture.config(0, ["a", "b"]),
                      Fixture.launch(2, "a"),                       // no decision: the user has screen_on
                      Fixture.screen(5), Fixture.screen(5),         // one instant, one decision point
                      Fixture.screen(9), Fixture.launch(9.5, "b")]
        let r = try Fixture.replay(events, policies: [StaticPolicy()])
        #expect(r.rule == .screenOn)
        #expect(r.decisionPoints == 2)
        let m = Fixture.metrics(r)
        #expect(m[.decisions] == 2)
        #expect(m[.decisionsWithTarget] == 1)
    }

    @Test func withoutScreenOnEachEngagementOfAStackedWidgetIsADecisionPoint() throws {
        let events = [Fixture.config(0, ["a", "b", "c"]),
                      Fixture.launch(5, "b"),
                      Fixture.launch(7, "x"),                       // not a stacked widget's app
                      Fixture.event(9, .widgetTap(widget: "c", stack: "s")),
                      Fixture.event(12, .widgetTap(widget: "zz", stack: nil)),
                      Fixture.launch(30, "a")]
        let r = try Fixture.replay(events, policies: [StaticPolicy()])
        #expect(r.rule == .engagement)
        #expect(r.decisionPoints == 3)
        let m = Fixture.metrics(r)
        // Each decision's target is the engagement it precedes: b (rank 2), c (rank 3), a (rank 1).
        #expect(m[.decisionsWithTarget] == 3)
        #expect(m[.hitAt1] == 1.0 / 3)
        #expect(abs(m[.mrr]! - (0.5 + 1.0 / 3 + 1) / 3) < 1e-12)
    }

    @Test func decisionsNeedAStackConfiguredStrictlyBefore() throws {
        let events = [Fixture.screen(0), Fixture.config(0, ["a", "b"]), Fixture.launch(1, "a"), Fixture.screen(3)]
        let r = try Fixture.replay(events, policies: [StaticPolicy()])
        #expect(r.decisionPoints == 1)
    }

    @Test(arguments: [(600.0, false), (720.0, true)])
    func targetMustFallWithinTheWindow(window: Double, hasTarget: Bool) throws {
        let events = [Fixture.config(0, ["a", "b"]), Fixture.screen(1), Fixture.launch(12, "b")]
        let r = try Fixture.replay(events, policies: [StaticPolicy()], options: Fixture.options(window: window))
        #expect(Fixture.metrics(r)[.decisionsWithTarget] == (hasTarget ? 1 : 0))
    }

    @Test func anEngagementBelongsToTheLatestDecisionOnly() throws {
        let events = [Fixture.config(0, ["a", "b"]), Fixture.screen(1), Fixture.screen(2), Fixture.launch(3, "b")]
        let r = try Fixture.replay(events, policies: [ScriptedPolicy(["b", "a"])])
        let m = Fixture.metrics(r)
        #expect(m[.decisions] == 2)
        #expect(m[.decisionsWithTarget] == 1)
        #expect(m[.hitAt1] == 0)       // the target went to the second decision, whose top is a
    }

    @Test func theFirstEngagementOfTheStackIsTheTargetAndTapsCountOnlyForTheirStack() throws {
        let events = [Fixture.config(0, stack: "s", ["a", "b"]), Fixture.config(0, stack: "t", ["c", "b"]),
                      Fixture.screen(1),
                      Fixture.event(2, .widgetTap(widget: "b", stack: "t")),
                      Fixture.launch(3, "a")]
        let r = try Fixture.replay(events, policies: [StaticPolicy()])
        // Stack s: target a (the tap on b was in t) -> hit. Stack t: target b (rank 2).
        let m = Fixture.metrics(r)
        #expect(m[.decisions] == 2)
        #expect(m[.decisionsWithTarget] == 2)
        #expect(m[.hitAt1] == 0.5)
    }

    @Test func warmUpDaysAreReplayedButNotScored() throws {
        var events = [Fixture.config(0, ["a", "b"])]
        for day in 0..<3 { events += [Fixture.screen(Double(day) * 1440 + 60), Fixture.launch(Double(day) * 1440 + 61, "b")] }
        let r = try Fixture.replay(events, policies: [StaticPolicy()], options: Fixture.options(warmupDays: 1))
        #expect(r.decisionPoints == 3)
        #expect(Fixture.metrics(r)[.decisions] == 2)
        #expect(r.dayNumbers.count == 2)
    }

    @Test func mergingRepeatsDropsOnlyConsecutiveLaunchesOfTheSameApp() {
        let events = [Fixture.launch(1, "a"), Fixture.launch(2, "a"), Fixture.event(2.5, .place("home")),
                      Fixture.launch(3, "a"), Fixture.screen(4), Fixture.launch(5, "a"), Fixture.launch(6, "b"),
                      Fixture.launch(7, "a")]
        let merged = UserReplay.mergingRepeats(events)
        #expect(merged.map(\.time) == [1, 2.5, 4, 5, 6, 7].map { Fixture.at(minutes: $0) })
    }

    @Test func policiesOnlySeeEventsStrictlyBeforeTheyDecide() throws {
        let events = syntheticDataset(users: 1, days: 3, seed: 1)
            + [Fixture.launch(200, "mail", user: "user0"), Fixture.screen(200, user: "user0")]
        let p = RecentPolicy(seed: 1)
        _ = try Fixture.replay(Evaluator.timeOrdered(events), policies: [p])
        #expect(p.log.count > 10)
        #expect(p.violations == 0)
    }

    /// Alters and shuffles every event after a decision point: the decisions up to it stay the same.
    @Test func decisionsDoNotDependOnTheFuture() throws {
        let events = Evaluator.timeOrdered(syntheticDataset(users: 3, days: 4, seed: 21))
        let cut = Fixture.at(minutes: 2 * 1440).nanosecondsSinceEpoch
        var g = SeededGenerator(seed: 77)
        let later = events.filter { $0.time.nanosecondsSinceEpoch > cut }
        var times = later.map(\.time)
        times.shuffle(using: &g)
        let apps = ["mail", "maps", "notes", "weather", "music", "news"]
        var altered = events.filter { $0.time.nanosecondsSinceEpoch <= cut }
        for (i, e) in later.enumerated() {
            var x = e
            x.time = times[i]
            if case .appLaunch = e.payload { x.payload = .appLaunch(app: "app." + apps[g.index(below: apps.count)]) }
            altered.append(x)
        }
        let logA = DecisionLog(), logB = DecisionLog()
        let o = Fixture.options(bootstrap: 0)
        _ = try Evaluator(options: o).evaluate(.events(events, name: "a"), policies: [recentFactory(log: logA)])
        _ = try Evaluator(options: o).evaluate(.events(altered, name: "b"), policies: [recentFactory(log: logB)])
        func upToCut(_ log: DecisionLog) -> [String: [String]] {
            log.snapshot.mapValues { $0.filter { Int64($0.split(separator: " ")[0])! <= cut } }
        }
        let a = upToCut(logA), b = upToCut(logB)
        #expect(a.values.map(\.count).reduce(0, +) > 30)
        #expect(a == b)
        #expect(logA.snapshot != logB.snapshot)   // the future did change later decisions
        #expect(a.values.joined().allSatisfy { $0.hasSuffix("seen<true") })
    }

    @Test func resultsAreIdenticalForAnyThreadCount() throws {
        let events = syntheticDataset(users: 9, days: 3, seed: 8)
        var reports: [Data] = []
        for threads in [1, 2, 4] {
            var o = Fixture.options(bootstrap: 100, threads: threads)
            o.seed = 5
            let r = try Evaluator(options: o).evaluate(.events(events, name: "syn"), policies: [staticFactory, recentFactory()], reference: "static")
            reports.append(try r.jsonData())
        }
        #expect(reports[0] == reports[1])
        #expect(reports[0] == reports[2])
    }

    @Test func theSeedChangesRandomisedPoliciesButNotDeterministicOnes() throws {
        let events = syntheticDataset(users: 4, days: 3, seed: 8)
        var o = Fixture.options(bootstrap: 0)
        let a = try Evaluator(options: o).evaluate(.events(events, name: "syn"), policies: [staticFactory, recentFactory()])
        o.seed = 1234
        let b = try Evaluator(options: o).evaluate(.events(events, name: "syn"), policies: [staticFactory, recentFactory()])
        #expect(a.policies[0].metrics == b.policies[0].metrics)
        #expect(a.policies[1].metrics != b.policies[1].metrics)
    }

    @Test func aUserWithoutStacksIsSkippedAndReported() throws {
        var events = syntheticDataset(users: 2, days: 2, seed: 4)
        events += [Fixture.screen(5, user: "nostack"), Fixture.launch(6, "mail", user: "nostack")]
        let report = try Evaluator(options: Fixture.options(bootstrap: 0)).evaluate(.events(events, name: "syn"), policies: [staticFactory])
        #expect(report.dataset.users == 3)
        #expect(report.dataset.usersEvaluated == 2)
        #expect(report.dataset.usersSkipped == [SkippedUser(user: "nostack", reason: "no stack_config event")])
        #expect(report.policies[0].byUser.map(\.user) == ["user0", "user1"])
    }

    @Test func aDatasetWithoutDecisionPointsIsAClearError() throws {
        let events = [Fixture.config(0, ["a", "b"]), Fixture.event(3, .place("home")), Fixture.launch(4, "x")]
        #expect {
            try Evaluator(options: Fixture.options()).evaluate(.events(events, name: "x"), policies: [staticFactory])
        } throws: { ($0 as? EvaluationError)?.message.contains("no decision points") == true }
    }

    @Test func aDatasetWithoutStacksIsAClearError() throws {
        let events = [Fixture.screen(1), Fixture.launch(2, "a")]
        #expect {
            try Evaluator(options: Fixture.options()).evaluate(.events(events, name: "x"), policies: [staticFactory])
        } throws: { ($0 as? EvaluationError)?.message.contains("no stacks") == true }
    }

    @Test func allDecisionsInWarmUpIsAClearError() throws {
        let events = [Fixture.config(0, ["a", "b"]), Fixture.screen(1), Fixture.launch(2, "a")]
        #expect {
            try Evaluator(options: Fixture.options(warmupDays: 7)).evaluate(.events(events, name: "x"), policies: [staticFactory])
        } throws: { ($0 as? EvaluationError)?.message.contains("--warmup-days") == true }
    }

    @Test func anUnknownReferenceIsAClearError() throws {
        let events = syntheticDataset(users: 1, days: 1, seed: 4)
        #expect(throws: EvaluationError.self) {
            try Evaluator(options: Fixture.options()).evaluate(.events(events, name: "x"), policies: [staticFactory], reference: "mru")
        }
    }

    @Test func timelineShowsTheBusiestDayWithEachPolicysTopIntervals() throws {
        let report = try Evaluator(options: Fixture.options(bootstrap: 0))
            .evaluate(.events(MetricsTests.scenario, name: "x"), policies: [staticFactory, PolicyFactory(name: "scripted") { _, _ in ScriptedPolicy(["a", "b", "a", "c"]) }])
        let t = try #require(report.timeline)
        #expect(t.user == "u1")
        #expect(t.date == "2024-01-01")
        #expect(t.engagements.map(\.widget) == ["b", "b", "c", "c"])
        #expect(t.engagements.first?.minute == 483)
        let scripted = report.policies[1].timeline
        #expect(scripted.map(\.widget) == ["a", "b", "a", "c"])
        #expect(scripted.map(\.startMinute) == [481, 500, 510, 530])
        #expect(scripted.map(\.endMinute) == [500, 510, 530, 532])
        #expect(report.policies[0].timeline.map(\.widget) == ["a"])
    }

    @Test func loggedImpressionsArePairedWithEachPolicysTop() throws {
        let events = [Fixture.config(0, ["a", "b"]),
                      Fixture.screen(1), Fixture.event(1, .widgetImpression(stack: "s", widget: "b", propensity: 0.5, policy: "log")),
                      Fixture.launch(4, "b"),
                      Fixture.screen(30), Fixture.event(30, .widgetImpression(stack: "s", widget: "a", propensity: 0.5, policy: "log"))]
        let r = try Fixture.replay(events, policies: [StaticPolicy()])
        let imps = r.impressions
        #expect(imps.count == 2)
        #expect(r.perPolicy[0].impressionActions == [0, 0])
        #expect(imps.map(\.loggedAction) == [1, 0])
        #expect(imps.map(\.isEngaged) == [true, false])
        #expect(imps.allSatisfy { $0.actionCount == 2 && $0.propensity == 0.5 && $0.hour == 8 && $0.stack == 0 })
    }

    /// Impressions logged by a uniform logger over [a, b]; b engaged after its impressions only.
    static func loggedDataset() -> [Event] {
        var events = [Fixture.config(0, ["a", "b"])]
        for k in 0..<40 {
            let t = Double(k) * 30 + 1
            let shown = k % 2 == 0 ? "a" : "b"
            events.append(Fixture.screen(t))
            events.append(Fixture.event(t, .widgetImpression(stack: "s", widget: shown, propensity: 0.5, policy: "uniform")))
            if shown == "b" { events.append(Fixture.launch(t + 2, "b")) }
        }
        return events
    }

    @Test func offPolicyEstimatesArePairedWithEachPolicy() throws {
        let report = try Evaluator(options: Fixture.options(bootstrap: 0))
            .evaluate(.events(Self.loggedDataset(), name: "x"), policies: [staticFactory, PolicyFactory(name: "always-b") { _, _ in ScriptedPolicy(["b"]) }])
        let showsA = try #require(report.policies[0].ope)
        let showsB = try #require(report.policies[1].ope)
        #expect(showsA.impressions == 40 && showsB.impressions == 40)
        #expect(showsA.loggedRate == 0.5)
        // Replay (Li et al.) keeps the rounds where the policy's pick is the logged widget:
        // a is never engaged, b always.
        let replayA = try #require(showsA.estimates?.estimates.first { $0.estimator == .replay })
        let replayB = try #require(showsB.estimates?.estimates.first { $0.estimator == .replay })
        #expect(replayA.value == 0)
        #expect(replayB.value == 1)
        #expect(showsA.note == nil)
    }

    @Test func offPolicyRoundsAreSampledBeyondTheLimitAlikeForEveryPolicy() throws {
        var o = Fixture.options(bootstrap: 0)
        o.offPolicyRoundLimit = 10
        let report = try Evaluator(options: o)
            .evaluate(.events(Self.loggedDataset(), name: "x"), policies: [staticFactory, PolicyFactory(name: "always-b") { _, _ in ScriptedPolicy(["b"]) }])
        let a = try #require(report.policies[0].ope), b = try #require(report.policies[1].ope)
        #expect(a.impressions == 10 && b.impressions == 10)
        #expect(a.note?.contains("sample of 10 of the 40") == true)
        #expect(a.loggedRate == b.loggedRate)   // the same sample
    }
}
