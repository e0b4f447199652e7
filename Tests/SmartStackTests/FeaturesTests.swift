import Testing
import SmartStack

/// Each signal's effect on a small scripted routine, through the `contextual` policy.
@Suite struct FeaturesTests {
    @Test func weekdayRoutinePutsCalendarOnTopOnWeekdaysOnly() throws {
        var s = Script()
        s.configure("home", ["news", "calendar", "weather"])
        for day in 0..<21 {
            let weekend = day % 7 >= 5
            if weekend {
                s.launch("news", Script.time(day: day, 8, 0))
            } else {
                s.launch("calendar", Script.time(day: day, 8, 0))
                s.launch("news", Script.time(day: day, 20, 0))
            }
            s.launch("weather", Script.time(day: day, 13, 0))
        }
        let e = try s.engine()
        let monday = try e.ranking(stack: "home", at: Script.time(day: 21, 8, 5))
        #expect(monday.top == "calendar")
        let reason = monday.widgets[0].reasons.map(\.text)
        #expect(reason.contains("opened 10 of the last 10 weekdays between 07:30 and 08:30"))
        let saturday = try e.ranking(stack: "home", at: Script.time(day: 26, 8, 5))
        #expect(saturday.top == "news")
    }

    @Test func timeOfDayIsCircularAcrossMidnight() throws {
        var s = Script()
        s.configure("home", ["noon", "late"])
        for day in 0..<10 {
            s.launch("late", Script.time(day: day, 23, 50))
            s.launch("noon", Script.time(day: day, 12, 0))
            s.launch("noon", Script.time(day: day, 12, 30))
        }
        let e = try s.engine()
        let afterMidnight = try e.ranking(stack: "home", at: Script.time(day: 11, 0, 10))
        #expect(afterMidnight.top == "late")
        let noon = try e.ranking(stack: "home", at: Script.time(day: 11, 12, 10))
        #expect(noon.top == "noon")
    }

    @Test func placeEventsSteerTheTop() throws {
        var s = Script()
        s.configure("home", ["music", "docs"])
        for day in 0..<10 {
            s.add(Script.time(day: day, 8, 0), .place("work"))
            s.launch("docs", Script.time(day: day, 9, 30))
            s.launch("docs", Script.time(day: day, 16, 30))
            s.add(Script.time(day: day, 18, 0), .place("home"))
            s.launch("music", Script.time(day: day, 19, 0))
            s.launch("music", Script.time(day: day, 7, 0))
        }
        // At midday the hour says little; the place decides.
        var atWork = s, atHome = s
        atWork.add(Script.time(day: 10, 12, 50), .place("work"))
        atHome.add(Script.time(day: 10, 12, 50), .place("home"))
        let work = try atWork.engine().ranking(stack: "home", at: Script.time(day: 10, 13, 0))
        #expect(work.top == "docs")
        #expect(work.widgets[0].reasons.contains { $0.text == "at work" && $0.contribution > 0 })
        let home = try atHome.engine().ranking(stack: "home", at: Script.time(day: 10, 13, 0))
        #expect(home.top == "music")
        #expect(home.widgets[0].reasons.contains { $0.text == "at home" && $0.contribution > 0 })
    }

    @Test func locationFixesAreClusteredIntoPlaces() throws {
        var s = Script()
        s.configure("home", ["music", "docs"])
        let work = (43.7044, -72.2887), home = (43.6500, -72.3300)
        for day in 0..<10 {
            // Two noisy fixes at each place, ~30 m apart, plus one useless 2 km-accuracy fix.
            s.add(Script.time(day: day, 9, 0), .location(lat: work.0, lon: work.1, accuracy: 20))
            s.add(Script.time(day: day, 9, 20), .location(lat: work.0 + 0.0003, lon: work.1, accuracy: 40))
            s.add(Script.time(day: day, 9, 25), .location(lat: home.0, lon: home.1, accuracy: 2000))
            s.launch("docs", Script.time(day: day, 9, 30))
            s.add(Script.time(day: day, 17, 0), .location(lat: home.0, lon: home.1, accuracy: 15))
            s.launch("music", Script.time(day: day, 17, 10))
        }
        s.add(Script.time(day: 10, 13, 0), .location(lat: home.0 + 0.0002, lon: home.1, accuracy: 10))
        let e = try s.engine()
        let r = try e.ranking(stack: "home", at: Script.time(day: 10, 13, 15))
        #expect(r.top == "music")
        #expect(r.widgets[0].reasons.contains { $0.text == "at place 2" })
    }

    @Test func sequenceFollowsTheLastAppUsed() throws {
        var s = Script()
        s.add(Script.monday, .stackConfig(stack: "home", widgets: [WidgetConfig(id: "maps", app: "app.maps"), WidgetConfig(id: "notes", app: "app.notes")]))
        for day in 0..<10 {
            for (k, hour) in [9, 12, 15, 18].enumerated() {
                if k % 2 == 0 {
                    s.add(Script.time(day: day, hour, 0), .appLaunch(app: "com.mail"))
                    s.launch("notes", Script.time(day: day, hour, 2))
                } else {
                    s.add(Script.time(day: day, hour, 0), .appLaunch(app: "com.calendar"))
                    s.launch("maps", Script.time(day: day, hour, 2))
                }
            }
        }
        s.add(Script.time(day: 10, 10, 0), .appLaunch(app: "com.calendar"))
        let e = try s.engine()
        let r = try e.ranking(stack: "home", at: Script.time(day: 10, 10, 1))
        #expect(r.top == "maps")
        #expect(r.widgets[0].reasons.contains { $0.text == "after com.calendar" })
        let e2 = try s.engine()
        e2.record(Event(time: Script.time(day: 10, 10, 3), user: "u", payload: .appLaunch(app: "com.mail")))
        #expect(try e2.ranking(stack: "home", at: Script.time(day: 10, 10, 4)).top == "notes")
    }

    @Test func contextValuesSteerTheTop() throws {
        var s = Script()
        s.configure("home", ["podcasts", "battery"])
        for day in 0..<10 {
            s.add(Script.time(day: day, 7, 0), .context(key: "headphones", value: "on"))
            s.launch("podcasts", Script.time(day: day, 7, 10))
            s.add(Script.time(day: day, 7, 30), .context(key: "headphones", value: "off"))
            s.launch("battery", Script.time(day: day, 7, 40))
            s.launch("battery", Script.time(day: day, 22, 0))
        }
        var withHeadphones = s
        withHeadphones.add(Script.time(day: 10, 21, 55), .context(key: "headphones", value: "on"))
        let on = try withHeadphones.engine().ranking(stack: "home", at: Script.time(day: 10, 22, 0))
        let off = try s.engine().ranking(stack: "home", at: Script.time(day: 10, 22, 0))
        #expect(on.widget("podcasts")!.score - on.widget("battery")!.score
                > off.widget("podcasts")!.score - off.widget("battery")!.score + 0.5)
        #expect(on.widget("podcasts")!.reasons.contains { $0.text == "when headphones=on" })
    }

    @Test func swipingAwayCountsAgainstAWidgetAndSwipingToForIt() throws {
        var s = Script()
        s.configure("home", ["a", "b"])
        for day in 0..<7 { s.launch("a", Script.time(day: day, 9, 0)); s.launch("b", Script.time(day: day, 9, 0)) }
        // The model's own scores (the mixture with the baselines compresses their differences).
        let base = try s.engine("contextual:mixture=0").ranking(stack: "home", at: Script.time(day: 7, 9, 0))
        for day in 0..<7 { s.add(Script.time(day: day, 9, 5), .widgetSwipe(stack: "home", from: "a", to: "b")) }
        let after = try s.engine("contextual:mixture=0").ranking(stack: "home", at: Script.time(day: 7, 9, 0))
        let gap = { (r: Ranking) in r.widget("b")!.score - r.widget("a")!.score }
        #expect(gap(after) > gap(base) + 0.5)
        #expect(after.top == "b")
        #expect(after.widget("a")!.reasons.contains { $0.text.hasPrefix("swiped away") && $0.contribution < 0 })
        #expect(try s.engine().ranking(stack: "home", at: Script.time(day: 7, 9, 0)).top == "b")
    }

    @Test func ignoredImpressionsCountMildlyAgainst() throws {
        var s = Script()
        s.configure("home", ["a", "b"])
        for day in 0..<7 {
            s.launch("a", Script.time(day: day, 9, 0)); s.launch("b", Script.time(day: day, 9, 0))
            s.launch("b", Script.time(day: day, 9, 15))
        }
        let at = Script.time(day: 7, 9, 0)
        // The model's own scores (the mixture with the baselines compresses their differences).
        let base = try s.engine("contextual:mixture=0").ranking(stack: "home", at: at).widget("a")!.score
        func score(impressionsOfA minute: Int) throws -> Double {
            var t = s
            for day in 0..<7 {
                t.add(Script.time(day: day, 9, 0).adding(seconds: Double(minute * 60)),
                      .widgetImpression(stack: "home", widget: "a", propensity: nil, policy: nil))
            }
            return try t.engine("contextual:mixture=0").ranking(stack: "home", at: at).widget("a")!.score
        }
        // Shown at 9:10, then the person went to b at 9:15: seen and passed over.
        let passedOver = try score(impressionsOfA: 10)
        #expect(base - passedOver > 0.05)
        // Shown at 8:30 and nothing of the stack engaged within 10 minutes: a glance, no evidence.
        #expect(try score(impressionsOfA: -30) == base)
        // Shown at 8:58 and engaged at 9:00: for it, not against.
        #expect(try score(impressionsOfA: -2) == base)
        // Milder than seven swipes away.
        var swipes = s
        for day in 0..<7 { swipes.add(Script.time(day: day, 9, 10), .widgetSwipe(stack: "home", from: "a", to: "b")) }
        let swiped = try swipes.engine().ranking(stack: "home", at: at).widget("a")!.score
        #expect(base - swiped > base - passedOver)
    }

    @Test func recentUseRaisesAWidget() throws {
        var s = Script()
        s.configure("home", ["a", "b"])
        for day in 0..<7 { s.launch("a", Script.time(day: day, 9, 0)); s.launch("b", Script.time(day: day, 15, 0)) }
        s.launch("b", Script.time(day: 7, 11, 50))
        let r = try s.engine().ranking(stack: "home", at: Script.time(day: 7, 12, 0))
        #expect(r.top == "b")
        #expect(r.widgets[0].reasons.contains { $0.text == "used 10 min ago" })
    }

    @Test func coldStartKeepsConfiguredOrderThenHintsThenUsage() throws {
        var s = Script()
        s.configure("home", ["c", "a", "b"])
        #expect(try s.engine().ranking(stack: "home", at: Script.time(day: 0, 9)).order == ["c", "a", "b"])
        s.add(Script.time(day: 0, 8), .relevance(widget: "b", score: 0.8, duration: nil))
        #expect(try s.engine().ranking(stack: "home", at: Script.time(day: 0, 9)).top == "b")
        for k in 0..<4 { s.launch("a", Script.time(day: 0, 8, 10 + k)) }
        #expect(try s.engine().ranking(stack: "home", at: Script.time(day: 0, 9)).top == "a")
    }

    @Test func aWidgetAddedAfterItsAppWasUsedStartsWithTheAppsWeekdaysAndWeekends() throws {
        var s = Script()
        s.configure("home", ["placeholder"])
        for day in 0..<21 {
            if day % 7 >= 5 { s.launch("news", Script.time(day: day, 8, 0)) } else { s.launch("calendar", Script.time(day: day, 8, 0)) }
            s.launch("weather", Script.time(day: day, 13, 0))
        }
        // Added on day 21, a Monday, after three weeks of the apps' launches.
        s.configure("home", ["news", "calendar", "weather"], at: Script.time(day: 21, 0, 1))
        let e = try s.engine()
        #expect(try e.ranking(stack: "home", at: Script.time(day: 21, 8, 5)).top == "calendar")
        #expect(try e.ranking(stack: "home", at: Script.time(day: 21, 13, 5)).top == "weather")
        #expect(try e.ranking(stack: "home", at: Script.time(day: 26, 8, 5)).top == "news")
        // The profile is part of the saved state: restored, the same answers.
        let restored = try UserEngine(user: "u", policy: PolicySpec(parsing: "contextual"), restoring: e.snapshot())
        for at in [Script.time(day: 21, 8, 5), Script.time(day: 21, 13, 5), Script.time(day: 26, 8, 5)] {
            #expect(try restored.ranking(stack: "home", at: at).order == e.ranking(stack: "home", at: at).order)
        }
    }

    @Test func onlyTheFirstAppsUsedKeepAProfileSoStateStaysBounded() throws {
        var s = Script()
        s.configure("home", ["placeholder"])
        // "early" is the first app used; "late" comes after 4,096 others, beyond the profiled apps.
        s.launch("early", Script.time(day: 0, 1, 0))
        for k in 0..<4096 { s.add(Script.time(day: 0, 2, 0, second: k), .appLaunch(app: "filler.\(k)")) }
        for day in 1..<11 { s.launch("early", Script.time(day: day, 9, 0)) }
        for day in 1..<9 { s.launch("late", Script.time(day: day, 21, 0)) }
        s.configure("home", ["early", "late"], at: Script.time(day: 11, 0, 1))
        let e = try s.engine()
        #expect(try e.ranking(stack: "home", at: Script.time(day: 11, 9, 5)).top == "early")
        // "late" starts from its 8 launches only, not their hour: "early", used 11 times, stays on top.
        #expect(try e.ranking(stack: "home", at: Script.time(day: 11, 21, 5)).top == "early")
        // Profiled, the same 8 launches at 21:00 put it on top then.
        var profiled = Script()
        profiled.events = s.events.filter { if case .appLaunch(let app) = $0.payload { !app.hasPrefix("filler.") } else { true } }
        #expect(try profiled.engine().ranking(stack: "home", at: Script.time(day: 11, 21, 5)).top == "late")
    }
}
