import SmartStack

/// A hospital shift worker on a 10-day rotation: two early shifts (06–14), two late (14–22),
/// two nights (22–06), four days off. The cycle does not follow the week, so weekday and hour
/// alone predict little; what matters is where the person is in the rotation.
struct ShiftworkerModel: PersonaModel {
    static let rota = 0, maps = 1, weather = 2, music = 3, news = 4, notes = 5
    static let sleepWidget = 6, fitness = 7, takeaway = 8, reminders = 9
    static let home = 0, hospital = 1, gym = 2, shop = 3

    enum Shift { case early, late, night, off }

    let catalog: [WidgetConfig] = ["rota", "maps", "weather", "music", "news", "notes",
                                   "sleep", "fitness", "takeaway", "reminders"]
        .map { WidgetConfig(id: $0, app: "org.example.\($0)") }
    let otherApps = ["org.example.messages", "org.example.social", "org.example.video"]
    var places: [SimPlace]
    let offset: Int32 = 0
    let phase: Int
    let commute: Double
    let motion: Motion
    let gymmer: Bool
    let amp: [Double]
    let engage: Double
    let sessionGapMean: Double

    init(rng: inout SimulationRandom) {
        let (clat, clon) = (53.4808, -2.2426)
        let (hlat, hlon) = Shape.nearby(clat, clon, meters: rng.uniform(2000...8000), &rng)
        let (wlat, wlon) = Shape.nearby(clat, clon, meters: rng.uniform(500...3000), &rng)
        let (glat, glon) = Shape.nearby(hlat, hlon, meters: 1500, &rng)
        let (slat, slon) = Shape.nearby(hlat, hlon, meters: 1200, &rng)
        places = [SimPlace(name: "home", lat: hlat, lon: hlon), SimPlace(name: "hospital", lat: wlat, lon: wlon),
                  SimPlace(name: "gym", lat: glat, lon: glon), SimPlace(name: "supermarket", lat: slat, lon: slon)]
        phase = rng.nextInt(below: 10)
        commute = rng.uniform(0.3...0.6)
        motion = rng.chance(0.5) ? .cycling : .driving
        gymmer = rng.chance(0.6)
        amp = (0..<10).map { _ in Shape.jitter(&rng, 0.3) }
        engage = rng.uniform(0.5...0.65)
        sessionGapMean = rng.uniform(400...800)
    }

    /// The shift worked on `day` (a night shift starts that day at 22:00).
    func shift(_ day: Int) -> Shift {
        switch ((day + phase) % 10 + 10) % 10 {
        case 0, 1: .early
        case 2, 3: .late
        case 4, 5: .night
        default: .off
        }
    }

    func headphonesChance(_ motion: Motion) -> Double { motion == .cycling ? 0.5 : 0.2 }
    func stacks(day: Int) -> [(id: String, widgets: [Int])] {
        [("main", [Self.rota, Self.maps, Self.weather, Self.music, Self.news, Self.notes]),
         ("care", [Self.sleepWidget, Self.fitness, Self.takeaway, Self.reminders])]
    }
    func startOffset(day: Int) -> Int32 { offset }

    mutating func plan(day: Int, weekday: Int, length: Int, rng: inout SimulationRandom) -> DayPlan {
        let h = Shape.h
        var p = DayPlan()
        let today = shift(day)
        let c = h(commute * (1 + 0.1 * rng.normal()))
        func add(_ end: Int, _ kind: SegmentKind, _ tag: String) { p.add(until: end, kind, tag: tag, offset: offset) }
        if shift(day - 1) == .night {
            add(h(6), .stay(place: Self.hospital), "work")
            add(h(6) + c, .travel(from: Self.hospital, to: Self.home, motion: motion), "commute")
            let bedAt = h(6.4) + c
            let wakeAt = h(13.5 + 0.4 * rng.normal())
            add(bedAt, .stay(place: Self.home), "home")
            p.marks["bed"] = bedAt
            add(wakeAt, .sleep(place: Self.home), "sleep")
            p.marks["wake"] = wakeAt
        } else {
            let wakeHour: Double = switch today { case .early: 4.8; case .late: 8.5; case .night: 9.5; case .off: 8.7 }
            let wakeAt = h(wakeHour + 0.2 * rng.normal())
            add(wakeAt, .sleep(place: Self.home), "sleep")
            p.marks["wake"] = wakeAt
        }
        let shiftStart: Int? = switch today { case .early: h(6); case .late: h(14); case .night: h(22); case .off: nil }
        if let start = shiftStart {
            p.marks["leave"] = start - c - 300
            p.marks["shiftStart"] = start
            p.hints.append(PlannedHint(at: start - h(2), widget: Self.rota, score: 0.9, duration: h(2)))
            add(start - c - 300, .stay(place: Self.home), "home")
            add(start - 300, .travel(from: Self.home, to: Self.hospital, motion: motion), "commute")
            let end = min(length, start + h(8))
            add(end, .stay(place: Self.hospital), "work")
            if today != .night {
                add(end + c, .travel(from: Self.hospital, to: Self.home, motion: motion), "commute")
                if today == .early && gymmer && rng.chance(0.6) {
                    add(h(16), .stay(place: Self.home), "home")
                    add(h(16.3), .travel(from: Self.home, to: Self.gym, motion: motion), "commute")
                    add(h(17.3), .stay(place: Self.gym), "gym")
                    add(h(17.6), .travel(from: Self.gym, to: Self.home, motion: motion), "commute")
                }
                let bedAt = today == .early ? h(21.5 + 0.2 * rng.normal()) : h(23.4 + 0.2 * rng.normal())
                add(bedAt, .stay(place: Self.home), today == .late ? "after-late" : "home")
                p.marks["bed"] = bedAt
                add(length, .sleep(place: Self.home), "sleep")
            }
        } else {
            if rng.chance(0.5) {
                add(h(15), .stay(place: Self.home), "home")
                add(h(15.3), .travel(from: Self.home, to: Self.shop, motion: .driving), "errand")
                add(h(16), .stay(place: Self.shop), "shop")
                add(h(16.3), .travel(from: Self.shop, to: Self.home, motion: .driving), "errand")
            }
            if gymmer && rng.chance(0.5) {
                add(h(17.5), .stay(place: Self.home), "home")
                add(h(17.8), .travel(from: Self.home, to: Self.gym, motion: motion), "commute")
                add(h(19), .stay(place: Self.gym), "gym")
                add(h(19.3), .travel(from: Self.gym, to: Self.home, motion: motion), "commute")
            }
            let bedAt = h(23 + 0.3 * rng.normal())
            add(bedAt, .stay(place: Self.home), "home")
            p.marks["bed"] = bedAt
            add(length, .sleep(place: Self.home), "sleep")
        }
        return p
    }

    func intent(_ c: IntentContext, into w: inout [Double]) {
        let tag = c.segment.tag, s = c.second
        let wake = c.plan.marks["wake"], bed = c.plan.marks["bed"]
        w[Self.rota] = 0.1 + 2.5 * c.hints[Self.rota]
        w[Self.maps] = 0.05 + (tag == "commute" || tag == "errand" ? 1.5 : 0)
        w[Self.weather] = 0.15 + 1.5 * Shape.within(s, wake, wake.map { $0 + 3600 })
        w[Self.music] = 0.15 + (tag == "commute" ? 2.0 : 0) + (tag == "gym" ? 1.5 : 0)
        w[Self.news] = 0.25 + (tag == "home" ? 0.5 : 0)
        w[Self.notes] = 0.1 + (tag == "work" ? 0.8 : 0)
        w[Self.sleepWidget] = 0.05 + 2.0 * Shape.within(s, bed.map { $0 - 3600 }, bed)
            + 1.5 * Shape.within(s, wake, wake.map { $0 + 1800 })
        w[Self.fitness] = 0.05 + (tag == "gym" ? 3.0 : 0) + (tag == "commute" && motion == .cycling ? 1.0 : 0)
        w[Self.takeaway] = 0.05 + (tag == "work" && c.hour < 5 ? 1.5 : 0) + (tag == "after-late" ? 1.5 : 0)
        w[Self.reminders] = 0.15 + 1.0 * Shape.within(s, c.plan.marks["leave"].map { $0 - 5400 }, c.plan.marks["leave"])
        switch c.previousWidget {
        case Self.rota: w[Self.maps] *= 1.5
        case Self.sleepWidget: w[Self.weather] *= 1.4
        default: break
        }
        for i in w.indices { w[i] *= amp[i] }
    }

    func engageProbability(_ c: IntentContext) -> Double {
        engage * (c.segment.tag == "work" ? 0.6 : 1)
    }
}
