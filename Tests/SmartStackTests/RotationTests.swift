import Testing
import SmartStack

/// The rotation policy on top of the scorer.
@Suite struct RotationTests {
    /// a is used in the mornings, b in the evenings.
    func routine() -> Script {
        var s = Script()
        s.configure("home", ["a", "b"])
        for day in 0..<7 { s.launch("a", Script.time(day: day, 8)); s.launch("b", Script.time(day: day, 20)) }
        return s
    }

    @Test func rotatesToTheBestWidgetWhenNothingHoldsItBack() throws {
        let e = try routine().engine()
        let morning = try e.decide(stack: "home", at: Script.time(day: 7, 8))
        #expect(morning.top == "a" && morning.didRotate && morning.propensity == 1)
        let evening = try e.decide(stack: "home", at: Script.time(day: 7, 20))
        #expect(evening.top == "b" && evening.didRotate)
        let again = try e.decide(stack: "home", at: Script.time(day: 7, 20, 1))
        #expect(again.top == "b" && !again.didRotate)
    }

    @Test func hysteresisKeepsTheTopAgainstANearTie() throws {
        var t = Script()
        t.configure("home", ["a", "b", "c"])
        for k in 0..<10 { t.launch("a", Script.time(day: 0, 8, k)); t.launch("b", Script.time(day: 0, 8, k)) }
        let h = try t.engine("mfu", rotation: RotationParameters(hysteresisMargin: 0.2, minimumDwell: 0, maximumRotationsPerDay: 100, swipeHold: 0))
        #expect(try h.decide(stack: "home", at: Script.time(day: 0, 9)).top == "a")
        h.record(Event(time: Script.time(day: 0, 9, 1), user: "u", payload: .appLaunch(app: "app.b")))
        let near = try h.decide(stack: "home", at: Script.time(day: 0, 9, 2))
        #expect(near.ranking.top == "b")
        #expect(near.top == "a" && !near.didRotate)  // 11 uses vs 10: 9% stronger < 20%
        for k in 0..<3 { h.record(Event(time: Script.time(day: 0, 9, 3 + k), user: "u", payload: .appLaunch(app: "app.b"))) }
        let clear = try h.decide(stack: "home", at: Script.time(day: 0, 9, 10))
        #expect(clear.top == "b" && clear.didRotate)  // 14 vs 10: 29% stronger
    }

    @Test func hysteresisIsScaleFreeForRecency() throws {
        // A widget never used must not freeze MRU rotation (its score is far below the others).
        var s = Script()
        s.configure("home", ["a", "b", "never"])
        s.launch("a", Script.time(day: 0, 8))
        let e = try s.engine("mru")
        #expect(try e.decide(stack: "home", at: Script.time(day: 0, 9)).top == "a")
        e.record(Event(time: Script.time(day: 0, 10), user: "u", payload: .appLaunch(app: "app.b")))
        #expect(try e.decide(stack: "home", at: Script.time(day: 0, 10, 30)).top == "b")
    }

    @Test func minimumDwellDelaysRotation() throws {
        // A fixed dwell (no early rotations: the challenger below is near certain, so the
        // scorer's own claim would release it; SequenceModelTests shows that side).
        let e = try routine().engine(rotation: RotationParameters(hysteresisMargin: 0, minimumDwell: 3600, maximumRotationsPerDay: 100, swipeHold: 0,
                                                                  earlyRotationConfidence: 1))
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 19, 30)).top == "b")
        e.record(Event(time: Script.time(day: 7, 19, 40), user: "u", payload: .relevance(widget: "a", score: 1, duration: nil)))
        for k in 0..<6 { e.record(Event(time: Script.time(day: 7, 19, 41 + k), user: "u", payload: .appLaunch(app: "app.a"))) }
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 19, 50)).ranking.top == "a")
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 19, 50)).top == "b")
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 20, 31)).top == "a")
    }

    @Test func capLimitsRotationsPerLocalDay() throws {
        let e = try routine().engine("round-robin:interval=10m", rotation: RotationParameters(hysteresisMargin: 0, minimumDwell: 0, maximumRotationsPerDay: 3, swipeHold: 0))
        var rotations = 0
        for k in 0..<12 where try e.decide(stack: "home", at: Script.time(day: 8, 10, 10 * k + 1)).didRotate { rotations += 1 }
        #expect(rotations == 4)  // the first placement plus 3 rotations
        // A new local day resets the cap.
        let next = try (0..<2).map { try e.decide(stack: "home", at: Script.time(day: 9, 0, 10 * $0 + 1)).didRotate }
        #expect(next.contains(true))
    }

    @Test func manualSwipeWinsForTheHoldPeriod() throws {
        let e = try routine().engine(rotation: RotationParameters(hysteresisMargin: 0, minimumDwell: 0, maximumRotationsPerDay: 100, swipeHold: 3600))
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 8)).top == "a")
        e.record(Event(time: Script.time(day: 7, 8, 1), user: "u", payload: .widgetSwipe(stack: "home", from: "a", to: "b")))
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 8, 30)).top == "b")
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 9, 2)).top == "a")
    }

    @Test func pinsWinOverEverything() throws {
        let e = try routine().engine(rotation: .immediate)
        e.record(Event(time: Script.time(day: 7, 7), user: "u", payload: .widgetPin(stack: "home", widget: "b")))
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 8)).top == "b")
        e.record(Event(time: Script.time(day: 7, 8, 1), user: "u", payload: .widgetUnpin(stack: "home", widget: "b")))
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 8, 2)).top == "a")
    }

    @Test func aWidgetIsOnTopOfAtMostOneStack() throws {
        var s = routine()
        s.configure("work", ["a", "c"])
        let e = try s.engine(rotation: .immediate)
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 8)).top == "a")
        let work = try e.decide(stack: "work", at: Script.time(day: 7, 8))
        #expect(work.ranking.top == "a")
        #expect(work.top == "c")
    }

    @Test func reconfiguringAStackReleasesAWidgetItNoLongerHolds() throws {
        var s = routine()
        s.configure("work", ["a", "c"])
        let e = try s.engine(rotation: .immediate)
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 8)).top == "a")
        #expect(try e.decide(stack: "work", at: Script.time(day: 7, 8)).top == "c")
        e.record(Event(time: Script.time(day: 7, 8, 1), user: "u", payload: .stackConfig(stack: "home", widgets: [WidgetConfig(id: "b", app: "app.b")])))
        #expect(try e.decide(stack: "work", at: Script.time(day: 7, 8, 2)).top == "a")
        #expect(e.stacks["home"]?.map(\.id) == ["b"])
    }

    @Test func ineligibleTopIsReplacedDespiteDwell() throws {
        let e = try routine().engine(rotation: RotationParameters(hysteresisMargin: 0.5, minimumDwell: 86_400, maximumRotationsPerDay: 0, swipeHold: 0))
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 8)).top == "a")
        e.record(Event(time: Script.time(day: 7, 8, 1), user: "u", payload: .relevance(widget: "a", score: 0, duration: 600)))
        #expect(try e.decide(stack: "home", at: Script.time(day: 7, 8, 2)).top == "b")
    }
}
