import Testing
@testable import SmartStack

/// Places that persist: a visit holds until evidence says the person left, whether fixes come
/// every few minutes or only on arrival, and bad location input never breaks the ranking.
@Suite struct PlaceTrackerTests {
    static let work = (43.7044, -72.2887), home = (43.6500, -72.3300)

    /// Change-only reporting: one fix on arriving at work (even days) or home, none during the
    /// stay. Docs is used at work, music at home, at the same hours of the day, so only the
    /// place tells them apart.
    func changeOnlyRoutine(days: Int) -> Script {
        var s = Script()
        s.configure("home", ["music", "docs"])
        for day in 0..<days {
            let atWork = day % 2 == 0
            if atWork { s.add(Script.time(day: day, 8, 0), .location(lat: Self.work.0, lon: Self.work.1, accuracy: 25)) }
            for hour in [10, 12, 14, 16] { s.launch(atWork ? "docs" : "music", Script.time(day: day, hour, 0)) }
            if atWork { s.add(Script.time(day: day, 18, 0), .location(lat: Self.home.0, lon: Self.home.1, accuracy: 25)) }
            s.launch("music", Script.time(day: day, 20, 0))
        }
        return s
    }

    @Test func aLongStayKeepsItsPlaceWithChangeOnlyFixes() throws {
        var s = changeOnlyRoutine(days: 14)
        s.add(Script.time(day: 14, 8, 0), .location(lat: Self.work.0, lon: Self.work.1, accuracy: 25))
        let e = try s.engine()
        // Seven hours after the only fix of the day, the person is still at work.
        let r = try e.ranking(stack: "home", at: Script.time(day: 14, 15, 0))
        #expect(r.top == "docs")
        #expect(r.widgets[0].reasons.contains { $0.text == "at place 1" && $0.contribution > 0 })
    }

    @Test func leavingIsDetectedByAFixElsewhere() throws {
        var s = changeOnlyRoutine(days: 14)
        s.add(Script.time(day: 14, 8, 0), .location(lat: Self.work.0, lon: Self.work.1, accuracy: 25))
        s.add(Script.time(day: 14, 12, 0), .location(lat: Self.home.0 + 0.0003, lon: Self.home.1, accuracy: 30))
        let r = try s.engine().ranking(stack: "home", at: Script.time(day: 14, 15, 0))
        #expect(r.top == "music")
        #expect(r.widgets[0].reasons.contains { $0.text == "at place 2" })
    }

    @Test func aCoarseFixFarAwayEndsTheVisitButACoarseFixNearbyDoesNot() throws {
        var base = changeOnlyRoutine(days: 14)
        base.add(Script.time(day: 14, 8, 0), .location(lat: Self.work.0, lon: Self.work.1, accuracy: 25))
        // 6 km away with a 400 m error circle: too coarse to place, not too coarse to say "left".
        var far = base
        far.add(Script.time(day: 14, 12, 0), .location(lat: Self.home.0, lon: Self.home.1, accuracy: 400))
        let gone = try far.engine()
        #expect(gone.features.place(at: Script.time(day: 14, 15, 0).secondsSinceEpoch).map { Int($0.0) } != 0)
        // 300 m away with a 1 km error circle: says nothing.
        var near = base
        near.add(Script.time(day: 14, 12, 0), .location(lat: Self.work.0 + 0.0027, lon: Self.work.1, accuracy: 1000))
        let stayed = try near.engine().ranking(stack: "home", at: Script.time(day: 14, 15, 0))
        #expect(stayed.top == "docs")
    }

    @Test func aCoarseArrivalFixNearAKnownPlaceNamesItWithConfidence() throws {
        var s = changeOnlyRoutine(days: 14)
        // The day's only fix: a cell-tower guess 400 m from work with a 900 m error circle
        // (work and home are 7 km apart). Wider than a place, but work is the only known place
        // it can come from.
        s.add(Script.time(day: 14, 8, 0), .location(lat: Self.work.0 + 0.0036, lon: Self.work.1, accuracy: 900))
        let e = try s.engine()
        let visit = try #require(e.features.place(at: Script.time(day: 14, 10, 0).secondsSinceEpoch))
        #expect(visit.0 == 0)
        #expect(visit.1 > 0.5)
        let r = try e.ranking(stack: "home", at: Script.time(day: 14, 10, 0))
        #expect(r.top == "docs")
        #expect(r.widgets[0].reasons.contains { $0.text == "at place 1" && $0.contribution > 0 })
    }

    @Test func confidenceFallsWhenAVisitOutlastsTheUsualStay() throws {
        let e = try changeOnlyRoutine(days: 14).engine()
        e.record(Event(time: Script.time(day: 14, 8, 0), user: "u", payload: .location(lat: Self.work.0, lon: Self.work.1, accuracy: 25)))
        let at = { (hour: Int) in e.features.place(at: Script.time(day: 14, hour, 0).secondsSinceEpoch)?.1 ?? 0 }
        // Work visits lasted 10 hours: likely at 15:00, unlikely at 02:00 the next night.
        #expect(at(15) > 0.8)
        let night = e.features.place(at: Script.time(day: 15, 2, 0).secondsSinceEpoch)?.1 ?? 0
        #expect(night < at(15) / 2)
    }

    @Test func placeEventsAndFixesOfOnePlaceCountAsOnePlace() throws {
        var s = Script()
        s.configure("home", ["music", "docs"])
        for day in 0..<10 {
            s.add(Script.time(day: day, 8, 0), .location(lat: Self.work.0, lon: Self.work.1, accuracy: 20))
            s.add(Script.time(day: day, 8, 3), .place("work"))
            s.launch("docs", Script.time(day: day, 10, 0))
            s.add(Script.time(day: day, 18, 0), .location(lat: Self.home.0, lon: Self.home.1, accuracy: 20))
            s.add(Script.time(day: day, 18, 2), .place("home"))
            s.launch("music", Script.time(day: day, 19, 0))
        }
        // A fix at work with no label: the place is still "work".
        s.add(Script.time(day: 10, 8, 0), .location(lat: Self.work.0, lon: Self.work.1, accuracy: 20))
        let r = try s.engine().ranking(stack: "home", at: Script.time(day: 10, 9, 0))
        #expect(r.widget("docs")!.reasons.contains { $0.text == "at work" })
    }

    @Test func badLocationInputNeverBreaksTheRanking() throws {
        var s = changeOnlyRoutine(days: 4)
        let t = Script.time(day: 4, 9, 0)
        s.add(t, .location(lat: Self.work.0, lon: Self.work.1, accuracy: 0))
        s.add(t.adding(seconds: 1), .location(lat: Self.work.0, lon: Self.work.1, accuracy: 1e300))
        s.add(t.adding(seconds: 2), .location(lat: 90, lon: 180, accuracy: nil))
        s.add(t.adding(seconds: 3), .location(lat: -90, lon: -180, accuracy: 5))
        let e = try s.engine()
        // Out of time order: a fix older than the newest place evidence changes nothing.
        let before = e.features.place(at: t.adding(seconds: 10).secondsSinceEpoch)?.0
        e.record(Event(time: Script.time(day: 4, 8, 0), user: "u", payload: .location(lat: Self.home.0, lon: Self.home.1, accuracy: 10)))
        #expect(e.features.place(at: t.adding(seconds: 10).secondsSinceEpoch)?.0 == before)
        let r = try e.ranking(stack: "home", at: t.adding(seconds: 60))
        #expect(r.widgets.count == 2 && r.widgets.allSatisfy { $0.score.isFinite })
    }

    @Test func aPlaceLabelThatChangesEverySecondKeepsMemoryBounded() throws {
        var s = Script()
        s.configure("home", ["music", "docs"])
        for k in 0..<5000 {
            s.add(Script.time(day: 0, 9, 0, second: k), .place("room-\(k)"))
            if k % 100 == 0 { s.launch(k % 200 == 0 ? "music" : "docs", Script.time(day: 0, 9, 0, second: k)) }
        }
        let e = try s.engine()
        #expect(e.features.places.count == FeatureState.maximumPlaceLabels)
        #expect(e.features.visits.durations.count == FeatureState.maximumPlaceLabels * PlaceTracker.binCount)
        let r = try e.ranking(stack: "home", at: Script.time(day: 0, 12, 0))
        #expect(r.widgets.count == 2 && r.widgets.allSatisfy { $0.score.isFinite })
    }
}
