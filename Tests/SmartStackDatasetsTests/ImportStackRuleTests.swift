import SmartStack
import SmartStackDatasets
import Testing

@Suite struct ImportStackRuleTests {
    private let day = 86_400.0
    private let start = try! EventTime(rfc3339: "2013-03-25T09:00:00-04:00")

    private func launch(_ app: String, afterDays d: Double) -> Event {
        Event(time: start.adding(seconds: d * day), user: "u", payload: .appLaunch(app: app))
    }

    @Test func mostUsedAppsOfTheWarmUpConfiguredAtItsEnd() throws {
        let events = [
            launch("com.a.mail", afterDays: 0), launch("com.b.maps", afterDays: 1), launch("com.a.mail", afterDays: 2),
            launch("com.c.chat", afterDays: 3), launch("com.b.maps", afterDays: 6.9), launch("com.a.mail", afterDays: 6.99),
            launch("com.d.game", afterDays: 8), launch("com.d.game", afterDays: 9),
        ]
        let (out, config) = ImportStackRule.mostUsed(count: 2, warmUpDays: 7).applied(to: events, user: "u", stack: "home")
        let c = try #require(config)
        #expect(c.configuredWidgets == [WidgetConfig(id: "mail", app: "com.a.mail"), WidgetConfig(id: "maps", app: "com.b.maps")])
        #expect(c.time.nanosecondsSinceEpoch == start.adding(seconds: 7 * day).nanosecondsSinceEpoch)
        // Dated after every event it used and before every later one.
        #expect(out.firstIndex(of: c) == 6)
        #expect(out.count == events.count + 1)
    }

    @Test func theConfigDoesNotDependOnTheFuture() {
        let warmUp = [launch("com.a.mail", afterDays: 0), launch("com.b.maps", afterDays: 1), launch("com.b.maps", afterDays: 2)]
        let futureA = warmUp + [launch("com.z.other", afterDays: 7)]
        let futureB = warmUp + (0..<50).map { launch("com.y.heavy", afterDays: 7 + Double($0) / 10) }
        let rule = ImportStackRule.mostUsed(count: 6, warmUpDays: 7)
        let a = rule.applied(to: futureA, user: "u", stack: "home").config
        let b = rule.applied(to: futureB, user: "u", stack: "home").config
        #expect(a != nil)
        #expect(a == b)
        #expect(a?.configuredWidgets?.map(\.app) == ["com.b.maps", "com.a.mail"])
    }

    @Test func tiesGoToTheAppLaunchedFirst() {
        let events = [launch("com.z.zeta", afterDays: 0), launch("com.a.alpha", afterDays: 1)]
        let config = ImportStackRule.mostUsed(count: 6, warmUpDays: 7).applied(to: events, user: "u", stack: "home").config
        #expect(config?.configuredWidgets?.map(\.app) == ["com.z.zeta", "com.a.alpha"])
    }

    @Test func warmUpStartsAtTheFirstEventOfAnyType() {
        let fix = Event(time: start, user: "u", payload: .location(lat: 1, lon: 2, accuracy: nil))
        let events = [fix, launch("com.a.mail", afterDays: 6.5), launch("com.b.late", afterDays: 7.5)]
        let (out, config) = ImportStackRule.mostUsed(count: 6, warmUpDays: 7).applied(to: events, user: "u", stack: "s")
        #expect(config?.configuredWidgets?.map(\.app) == ["com.a.mail"])
        #expect(out.map(\.type) == [.location, .appLaunch, .stackConfig, .appLaunch])
    }

    @Test func noLaunchInTheWarmUpMeansNoStack() {
        let events = [launch("com.a.mail", afterDays: 0)].map { e -> Event in
            var e = e; e.payload = .screenOn; return e
        } + [launch("com.a.mail", afterDays: 8)]
        let (out, config) = ImportStackRule.standard.applied(to: events, user: "u", stack: "home")
        #expect(config == nil)
        #expect(out == events)
    }

    @Test func fixedListIsConfiguredAtTheFirstEvent() {
        let events = [launch("com.a.mail", afterDays: 1), launch("com.b.maps", afterDays: 2)]
        let (out, config) = ImportStackRule.fixed(apps: ["com.b.maps", "com.x.weather"]).applied(to: events, user: "u", stack: "home")
        #expect(out.first == config)
        #expect(config?.time == events[0].time)
        #expect(config?.configuredWidgets?.map(\.id) == ["maps", "weather"])
    }

    @Test func widgetIDsAreShortAndUnique() {
        let ids = WidgetNaming.widgets(forApps: [
            "com.google.android.gm", "flipboard.app", "com.pandora.android", "Google Chrome",
            "com.google.android.apps.maps", "com.other.maps", "org.x.maps", "edu.dartmouth.cs.myruns",
        ]).map(\.id)
        #expect(ids == ["gm", "flipboard", "pandora", "google-chrome", "maps", "other-maps", "x-maps", "myruns"])
        #expect(Set(WidgetNaming.widgets(forApps: ["a.maps", "a.maps.app", "maps"]).map(\.id)).count == 3)
    }
}
