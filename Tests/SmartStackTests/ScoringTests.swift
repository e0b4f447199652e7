import Foundation
import Testing
import SmartStack

/// Policies, hint semantics and explanations.
@Suite struct ScoringTests {
    func usage() -> Script {
        var s = Script()
        s.configure("home", ["a", "b", "c"])
        // a: many launches long ago in the morning; b: a few, recently, in the evening.
        for day in 0..<5 { for k in 0..<4 { s.launch("a", Script.time(day: day, 8, k)) } }
        for day in 9..<12 { s.launch("b", Script.time(day: day, 18, 0)) }
        s.launch("c", Script.time(day: 12, 7, 0))
        return s
    }

    @Test func staticKeepsTheConfiguredOrder() throws {
        #expect(try usage().engine("static").ranking(stack: "home", at: Script.time(day: 12, 8)).order == ["a", "b", "c"])
    }

    @Test func mruMfuFrecencyAndTimeOfDay() throws {
        let s = usage()
        let at = Script.time(day: 12, 18, 5)
        #expect(try s.engine("mru").ranking(stack: "home", at: at).order == ["c", "b", "a"])
        #expect(try s.engine("mfu").ranking(stack: "home", at: at).order == ["a", "b", "c"])
        // 20 launches 8-12 days old vs 3 launches 1-3 days old: a short half-life favours b.
        #expect(try s.engine("frecency:half_life=1d").ranking(stack: "home", at: at).top == "b")
        #expect(try s.engine("frecency:half_life=30d").ranking(stack: "home", at: at).top == "a")
        #expect(try s.engine("time-of-day").ranking(stack: "home", at: at).top == "b")
        #expect(try s.engine("time-of-day").ranking(stack: "home", at: Script.time(day: 12, 8, 30)).top == "a")
        let mru = try s.engine("mru").ranking(stack: "home", at: at)
        #expect(mru.widgets[0].reasons.map(\.text) == ["used 11 h ago"])
    }

    /// The exported feature vector keeps its documented columns, each holding its own signal.
    @Test func featureVectorsHoldTheirNamedSignals() throws {
        #expect(FeatureVector.names == [
            "base", "time", "place", "sequence", "context", "recent", "hint", "feedback", "awake", "hour", "log_frequency",
            "log_recent_frequency", "log_time_kernel", "log_place_count", "log_after_app_count", "log_hours_since_use",
        ])
        var s = Script()
        s.configure("home", ["a", "b"])
        s.add(Script.time(day: 2, 8, 55), .place("work"))
        s.launch("a", Script.time(day: 2, 9))   // a Wednesday
        s.add(Script.time(day: 2, 10), .relevance(widget: "b", score: 3, duration: 7200))
        let e = try s.engine()
        func value(_ widget: String, _ name: String, at time: EventTime = Script.time(day: 2, 11)) throws -> Double {
            let vector = try #require(try e.featureVectors(stack: "home", at: time).first { $0.widget == widget })
            return vector.values[try #require(FeatureVector.names.firstIndex(of: name))]
        }
        // a, used once 2 h ago at work: 2 h of the 14-day half-life, two 1-hour half-lives.
        #expect(abs(try value("a", "log_frequency") - log1p(pow(0.5, 2.0 / (14 * 24)))) < 1e-12)
        #expect(abs(try value("a", "log_recent_frequency") - log1p(0.25)) < 1e-12)
        #expect(abs(try value("a", "log_hours_since_use") - log1p(2)) < 1e-12)
        #expect(try value("a", "log_place_count") > 0 && value("a", "log_after_app_count") == 0)
        // Its time-of-day count is this kind of day's: some on a Thursday morning, none on Saturday.
        #expect(try value("a", "log_time_kernel", at: Script.time(day: 3, 9)) > 0)
        #expect(try value("a", "log_time_kernel", at: Script.time(day: 5, 9)) == 0)
        // b, never used, with its own (largest) hint active: half a point.
        for name in ["log_frequency", "log_recent_frequency", "log_time_kernel", "log_place_count"] {
            #expect(try value("b", name) == 0)
        }
        #expect(try value("b", "log_hours_since_use") == -1)
        #expect(try value("b", "hint") == 0.5 && value("a", "hint") == 0)
        // a's only use was in this clock hour two hours ago (09:00): the hour signal is for a at
        // 09:30 the next day, and says nothing at 11:00.
        #expect(try value("a", "hour", at: Script.time(day: 3, 9, 30)) > 0)
        #expect(abs(try value("a", "hour")) < 1e-12)
    }

    @Test func roundRobinRotatesEachInterval() throws {
        let e = try usage().engine("round-robin:interval=30m")
        var tops: [String] = []
        for k in 0..<4 { tops.append(try e.ranking(stack: "home", at: Script.time(day: 13, 9, 30 * k + 1)).top!) }
        #expect(Set(tops).count == 3)
        #expect(tops[0] == tops[3])
        #expect(tops[0] != tops[1] && tops[1] != tops[2])
    }

    @Test func hintsAreComparedWithTheWidgetsOwnHints() throws {
        var s = Script()
        s.configure("home", ["big", "small"])
        // "big" always donates large numbers, "small" small ones: only each one's own scale matters.
        for k in 0..<5 {
            s.add(Script.time(day: 0, 8, k), .relevance(widget: "big", score: 100, duration: nil))
            s.add(Script.time(day: 0, 8, k), .relevance(widget: "small", score: 0.5, duration: nil))
        }
        s.add(Script.time(day: 0, 9), .relevance(widget: "big", score: 20, duration: nil))
        s.add(Script.time(day: 0, 9), .relevance(widget: "small", score: 0.5, duration: nil))
        let r = try s.engine().ranking(stack: "home", at: Script.time(day: 0, 9, 5))
        #expect(r.top == "small")
        #expect(r.widget("small")!.reasons.contains { $0.text == "relevance hint 0.5" && $0.contribution > 0 })
    }

    @Test func nonPositiveHintMakesIneligibleUntilItsDurationEnds() throws {
        var s = Script()
        s.configure("home", ["a", "b"])
        for k in 0..<5 { s.launch("a", Script.time(day: 0, 7, k)) }
        s.add(Script.time(day: 0, 9), .relevance(widget: "a", score: 0, duration: 9 * 3600))
        let e = try s.engine()
        let during = try e.ranking(stack: "home", at: Script.time(day: 0, 10))
        #expect(during.order == ["b", "a"])
        #expect(during.widget("a")!.isEligible == false)
        #expect(during.widget("a")!.reasons.map(\.text).contains("relevance hint 0 until 18:00: not relevant now"))
        #expect(try e.decide(stack: "home", at: Script.time(day: 0, 10)).top == "b")
        let after = try e.ranking(stack: "home", at: Script.time(day: 0, 18, 1))
        #expect(after.widget("a")!.isEligible)
        #expect(after.top == "a")
    }

    @Test func hintWithoutDurationLastsUntilTheNextHint() throws {
        var s = Script()
        s.configure("home", ["a", "b"])
        s.add(Script.time(day: 0, 9), .relevance(widget: "a", score: -1, duration: nil))
        let e = try s.engine()
        #expect(try e.ranking(stack: "home", at: Script.time(day: 3, 9)).widget("a")!.isEligible == false)
        e.record(Event(time: Script.time(day: 3, 10), user: "u", payload: .relevance(widget: "a", score: 0.7, duration: 3600)))
        let r = try e.ranking(stack: "home", at: Script.time(day: 3, 10, 5))
        #expect(r.widget("a")!.isEligible)
        #expect(r.widget("a")!.reasons.map(\.text).contains("relevance hint 0.7 until 11:00"))
    }

    @Test func pinnedWidgetIsOnTopUntilUnpinned() throws {
        var s = usage()
        s.add(Script.time(day: 12, 9), .widgetPin(stack: "home", widget: "c"))
        let e = try s.engine()
        let r = try e.ranking(stack: "home", at: Script.time(day: 12, 10))
        #expect(r.top == "c")
        #expect(r.widgets[0].reasons.first?.text == "pinned")
        #expect(try e.decide(stack: "home", at: Script.time(day: 12, 10)).top == "c")
        e.record(Event(time: Script.time(day: 12, 11), user: "u", payload: .widgetUnpin(stack: "home", widget: "c")))
        #expect(try e.ranking(stack: "home", at: Script.time(day: 12, 11, 1)).widgets[0].reasons.first?.text != "pinned")
    }

    @Test func banditReportsItsPropensityAndLearns() throws {
        let s = usage()
        let e = try s.engine("bandit:epsilon=0.3", rotation: .immediate, seed: 7)
        var seen = Set<String>()
        for k in 0..<200 {
            let d = try e.decide(stack: "home", at: Script.time(day: 13, 8).adding(seconds: Double(k)))
            seen.insert(d.top!)
            let greedy = d.ranking.top!
            #expect(abs(d.propensity - (d.top == greedy ? 0.7 + 0.1 : 0.1)) < 1e-9)
        }
        #expect(seen.count == 3)
    }

    /// Twenty days of a launch of com.mail or com.news every two hours (8:00–18:00), then widget
    /// a (after mail) or b (after news) used `widgetAfter` minutes later, with a screen-on one
    /// minute after the launch if `screenOns`; ends with a launch of com.mail on day 20 at 9:00.
    static func mailOrNews(widgetAfter minutes: Int, screenOns: Bool) -> Script {
        var s = Script()
        s.configure("home", ["a", "b"])
        for day in 0..<20 {
            for hour in stride(from: 8, to: 20, by: 2) {
                let mail = (day + hour / 2) % 2 == 0
                s.add(Script.time(day: day, hour), .appLaunch(app: mail ? "com.mail" : "com.news"))
                if screenOns { s.add(Script.time(day: day, hour, 1), .screenOn) }
                s.launch(mail ? "a" : "b", Script.time(day: day, hour, minutes))
            }
        }
        s.add(Script.time(day: 20, 9), .appLaunch(app: "com.mail"))
        return s
    }

    @Test func learningUpweightsAPerfectlyPredictiveSignal() throws {
        // After com.mail comes a, after com.news comes b, ten minutes later, at every hour alike.
        let s = Self.mailOrNews(widgetAfter: 10, screenOns: false)
        let at = Script.time(day: 20, 9, 9)
        let gap = { (r: Ranking) in r.widget("a")!.score - r.widget("b")!.score }
        let fixed = try s.engine("contextual:learning_rate=0").ranking(stack: "home", at: at)
        let learned = try s.engine("contextual:learning_rate=0.2").ranking(stack: "home", at: at)
        #expect(fixed.top == "a" && learned.top == "a")
        #expect(gap(learned) > gap(fixed) + 0.2)
    }

    @Test func screenOnsFollowedByAnEngagementTrainTheWeights() throws {
        // After com.mail comes a, after com.news comes b, two minutes later: never a session
        // start, so only a screen-on just before the engagement can train the weights.
        func routine(screenOns: Bool) -> Script { Self.mailOrNews(widgetAfter: 2, screenOns: screenOns) }
        let at = Script.time(day: 20, 9, 1)
        let gap = { (r: Ranking) in r.widget("a")!.score - r.widget("b")!.score }
        let fixed = try routine(screenOns: true).engine("contextual:learning_rate=0").ranking(stack: "home", at: at)
        let learned = try routine(screenOns: true).engine("contextual:learning_rate=0.2").ranking(stack: "home", at: at)
        #expect(fixed.top == "a" && learned.top == "a")
        #expect(gap(learned) > gap(fixed) + 0.2)
        // The same engagements without screen-ons train nothing.
        let fixedWithout = try routine(screenOns: false).engine("contextual:learning_rate=0").ranking(stack: "home", at: at)
        let without = try routine(screenOns: false).engine("contextual:learning_rate=0.2").ranking(stack: "home", at: at)
        #expect(gap(without) == gap(fixedWithout))
    }

    @Test func softmaxPropensitiesMatchTheScores() throws {
        let e = try usage().engine("bandit:exploration=softmax,temperature=1", rotation: .immediate, seed: 3)
        let d = try e.decide(stack: "home", at: Script.time(day: 13, 8))
        let scores = d.ranking.widgets.map(\.score)
        let m = scores.max()!
        let z = scores.map { (($0 - m)).expApprox }.reduce(0, +)
        let expected = (d.ranking.widget(d.top!)!.score - m).expApprox / z
        #expect(abs(d.propensity - expected) < 1e-9)
    }

    @Test func outsideScorerPlugsIn() throws {
        final class Oracle: WidgetScorer {
            var seen = 0
            func observe(_ event: Event) { seen += 1 }
            func scores(stack: String, widgets: [WidgetConfig], at time: EventTime) -> [Double] {
                widgets.map { $0.id == "c" ? 1 : 0 }
            }
        }
        let oracle = Oracle()
        let e = UserEngine(user: "u", scorer: oracle, name: "oracle")
        for ev in usage().events { e.record(ev) }
        #expect(oracle.seen == usage().events.count)
        let d = try e.decide(stack: "home", at: Script.time(day: 13, 8))
        #expect(d.top == "c")
        #expect(d.ranking.policy == "oracle")
    }
}

extension Double {
    var expApprox: Double {
        // e^x via the standard library's pow on Double, avoiding Foundation in tests.
        var r = 1.0, term = 1.0
        for k in 1..<60 { term *= self / Double(k); r += term }
        return r
    }
}
