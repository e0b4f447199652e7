import SmartStack

/// A routine that changes for good partway through: a morning-gym office worker who listens to
/// podcasts on the train and reads at night takes a new job (another office, hybrid, cycling),
/// moves the gym to the evening, reads the news in the morning, and adds a language-learning
/// widget to the second stack (a new `stack_config` on the change day).
struct DriftModel: PersonaModel {
    static let calendar = 0, podcasts = 1, news = 2, music = 3, books = 4, maps = 5
    static let fitness = 6, weather = 7, notes = 8, photos = 9, language = 10
    static let home = 0, officeA = 1, officeB = 2, gym = 3, cafe = 4, beach = 5

    let catalog: [WidgetConfig] = ["calendar", "podcasts", "news", "music", "books", "maps",
                                   "fitness", "weather", "notes", "photos", "language"]
        .map { WidgetConfig(id: $0, app: "org.example.\($0)") }
    let otherApps = ["org.example.messages", "org.example.social", "org.example.browser"]
    var places: [SimPlace]
    let offset: Int32 = 11 * 3600
    /// The first day of the new routine.
    let changeDay: Int
    let amp: [Double]
    let engage: Double
    let sessionGapMean: Double

    init(days: Int, rng: inout SimulationRandom) {
        let (clat, clon) = (-33.8688, 151.2093)
        let (hlat, hlon) = Shape.nearby(clat, clon, meters: rng.uniform(3000...10_000), &rng)
        let (alat, alon) = Shape.nearby(clat, clon, meters: 600, &rng)
        let (blat, blon) = Shape.nearby(hlat, hlon, meters: 4000, &rng)
        let (glat, glon) = Shape.nearby(hlat, hlon, meters: 900, &rng)
        let (clat2, clon2) = Shape.nearby(hlat, hlon, meters: 500, &rng)
        places = [SimPlace(name: "home", lat: hlat, lon: hlon), SimPlace(name: "work", lat: alat, lon: alon),
                  SimPlace(name: "new-work", lat: blat, lon: blon), SimPlace(name: "gym", lat: glat, lon: glon),
                  SimPlace(name: "cafe", lat: clat2, lon: clon2), SimPlace(name: "beach", lat: -33.8915, lon: 151.2767)]
        changeDay = min(max(1, days / 2 + rng.nextInt(below: 7) - 3), max(1, days - 1))
        amp = (0..<11).map { _ in Shape.jitter(&rng, 0.3) }
        engage = rng.uniform(0.5...0.65)
        sessionGapMean = rng.uniform(360...720)
    }

    func headphonesChance(_ motion: Motion) -> Double { motion == .transit ? 0.9 : motion == .cycling ? 0.4 : 0.2 }
    func stacks(day: Int) -> [(id: String, widgets: [Int])] {
        let main = [Self.calendar, Self.podcasts, Self.news, Self.music, Self.books, Self.maps]
        if day < changeDay { return [("main", main), ("second", [Self.fitness, Self.weather, Self.notes, Self.photos])] }
        return [("main", main), ("second", [Self.fitness, Self.weather, Self.notes, Self.photos, Self.language])]
    }
    func startOffset(day: Int) -> Int32 { offset }

    mutating func plan(day: Int, weekday: Int, length: Int, rng: inout SimulationRandom) -> DayPlan {
        let h = Shape.h
        var p = DayPlan()
        func add(_ end: Int, _ kind: SegmentKind, _ tag: String) { p.add(until: end, kind, tag: tag, offset: offset) }
        func j(_ sd: Double) -> Double { sd * rng.normal() }
        if day < changeDay {
            if weekday <= 5 {
                let wakeAt = h(6.0 + j(0.1))
                p.marks = ["wake": wakeAt, "arrive": h(8.75)]
                add(wakeAt, .sleep(place: Self.home), "sleep")
                add(h(6.3), .travel(from: Self.home, to: Self.gym, motion: .walking), "walk")
                add(h(7.3), .stay(place: Self.gym), "gym")
                add(h(7.55), .travel(from: Self.gym, to: Self.home, motion: .walking), "walk")
                add(h(8.0 + j(0.1)), .stay(place: Self.home), "morning")
                add(h(8.75), .travel(from: Self.home, to: Self.officeA, motion: .transit), "commute")
                add(h(17 + j(0.2)), .stay(place: Self.officeA), "office")
                add(h(17.8), .travel(from: Self.officeA, to: Self.home, motion: .transit), "commute")
                add(h(22.5 + j(0.2)), .stay(place: Self.home), "evening")
            } else {
                let wakeAt = h(8 + j(0.3))
                p.marks = ["wake": wakeAt]
                add(wakeAt, .sleep(place: Self.home), "sleep")
                add(h(9), .stay(place: Self.home), "morning")
                add(h(9.2), .travel(from: Self.home, to: Self.cafe, motion: .walking), "walk")
                add(h(10.5), .stay(place: Self.cafe), "cafe")
                add(h(10.7), .travel(from: Self.cafe, to: Self.home, motion: .walking), "walk")
                add(h(23 + j(0.2)), .stay(place: Self.home), "evening")
            }
        } else {
            if weekday <= 5 {
                let wakeAt = h(7.3 + j(0.15))
                p.marks = ["wake": wakeAt]
                add(wakeAt, .sleep(place: Self.home), "sleep")
                if weekday == 1 || weekday == 5 {
                    add(h(9.5), .stay(place: Self.home), "morning")
                    add(h(17.5), .stay(place: Self.home), "home-office")
                } else {
                    add(h(9.3 + j(0.1)), .stay(place: Self.home), "morning")
                    add(h(9.8), .travel(from: Self.home, to: Self.officeB, motion: .cycling), "cycle")
                    add(h(18 + j(0.2)), .stay(place: Self.officeB), "office")
                    if weekday == 2 || weekday == 4 {
                        add(h(18.4), .travel(from: Self.officeB, to: Self.gym, motion: .cycling), "cycle")
                        add(h(19.4), .stay(place: Self.gym), "gym")
                        add(h(19.6), .travel(from: Self.gym, to: Self.home, motion: .cycling), "cycle")
                    } else {
                        add(h(18.6), .travel(from: Self.officeB, to: Self.home, motion: .cycling), "cycle")
                    }
                }
                add(h(23.3 + j(0.2)), .stay(place: Self.home), "evening")
            } else {
                let wakeAt = h(9 + j(0.3))
                p.marks = ["wake": wakeAt]
                add(wakeAt, .sleep(place: Self.home), "sleep")
                add(h(10), .stay(place: Self.home), "morning")
                add(h(10.5), .travel(from: Self.home, to: Self.beach, motion: .driving), "drive")
                add(h(13), .stay(place: Self.beach), "beach")
                add(h(13.5), .travel(from: Self.beach, to: Self.home, motion: .driving), "drive")
                add(h(23.3 + j(0.2)), .stay(place: Self.home), "evening")
            }
        }
        add(length, .sleep(place: Self.home), "sleep")
        if weekday <= 5 && rng.chance(0.6) {
            let meeting = h(10 + Double(rng.nextInt(below: 6)) * 0.5)
            p.hints.append(PlannedHint(at: meeting - 3600, widget: Self.calendar, score: 0.7, duration: 3600 + 1800))
        }
        return p
    }

    func intent(_ c: IntentContext, into w: inout [Double]) {
        let hr = c.hour, tag = c.segment.tag
        let weekday = !c.isWeekend
        let wakeHour = Double(c.plan.marks["wake"] ?? 25_200) / 3600
        w[Self.calendar] = 0.15 + 2.0 * c.hints[Self.calendar]
        if c.day < changeDay {
            w[Self.calendar] += weekday ? 1.5 * Shape.within(c.second, c.plan.marks["wake"], c.plan.marks["arrive"]) : 0
            w[Self.podcasts] = 0.1 + (tag == "commute" ? 3.0 : 0) + (tag == "gym" ? 1.0 : 0)
            w[Self.news] = 0.2 + 1.5 * Shape.bump(hr, 12.5, 0.7)
            w[Self.music] = 0.15 + (tag == "gym" ? 2.0 : 0)
            w[Self.books] = 0.05 + (tag == "evening" ? 2.5 * Shape.bump(hr, 21, 0.8) : 0)
            w[Self.maps] = 0.05 + (c.segment.isTravel && !weekday ? 1.0 : 0)
            w[Self.fitness] = 0.05 + (tag == "gym" ? 3.0 : 0)
            w[Self.weather] = 0.2 + 1.5 * Shape.bump(hr, wakeHour + 0.1, 0.3)
            w[Self.notes] = 0.1 + (tag == "office" ? 0.6 : 0)
            w[Self.photos] = 0.08 + (weekday ? 0 : 0.6)
            w[Self.language] = 0
        } else {
            w[Self.calendar] += weekday ? 2.0 * Shape.bump(hr, 9.0, 0.5) : 0
            w[Self.podcasts] = 0.05
            w[Self.news] = 0.2 + 1.5 * Shape.bump(hr, 7.6, 0.5)
            w[Self.music] = 0.15 + (tag == "cycle" ? 2.0 : 0) + (tag == "gym" ? 2.0 : 0)
            w[Self.books] = 0.05
            w[Self.maps] = 0.05 + (tag == "cycle" || tag == "drive" ? 1.0 : 0)
            w[Self.fitness] = 0.05 + (tag == "gym" ? 3.0 : 0) + (tag == "cycle" ? 1.5 : 0)
            w[Self.weather] = 0.2 + 1.5 * Shape.bump(hr, wakeHour, 0.4) + (weekday ? 1.0 * Shape.bump(hr, 9.0, 0.4) : 0)
            w[Self.notes] = 0.1 + (tag == "office" || tag == "home-office" ? 1.0 : 0)
            w[Self.photos] = 0.08 + (tag == "beach" ? 1.5 : 0)
            w[Self.language] = 0.05 + 3.0 * Shape.bump(hr, 21.5, 0.6)
        }
        switch c.previousWidget {
        case Self.calendar: w[Self.maps] *= 1.4
        case Self.fitness: w[Self.music] *= 1.5
        case Self.news: w[Self.weather] *= 1.3
        default: break
        }
        for i in w.indices { w[i] *= amp[i] }
    }

    func engageProbability(_ c: IntentContext) -> Double { engage * (c.segment.tag == "cycle" ? 0.6 : 1) }
}
