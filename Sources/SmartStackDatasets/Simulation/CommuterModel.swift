import SmartStack

/// The textbook smart-stack day: calendar before work, maps on the commute, weather at midday,
/// notes in the evening; errands and a walk at the weekend; gym on some weekday evenings.
struct CommuterModel: PersonaModel {
    static let calendar = 0, maps = 1, weather = 2, notes = 3, music = 4, news = 5
    static let fitness = 6, delivery = 7, reminders = 8, photos = 9
    static let home = 0, work = 1, gym = 2, shop = 3, park = 4

    let catalog: [WidgetConfig] = ["calendar", "maps", "weather", "notes", "music", "news",
                                   "fitness", "delivery", "reminders", "photos"]
        .map { WidgetConfig(id: $0, app: "org.example.\($0)") }
    let otherApps = ["org.example.messages", "org.example.browser", "org.example.social", "org.example.mail"]
    var places: [SimPlace]
    let offset: Int32 = -5 * 3600
    let topOrder: [Int]
    let bottomOrder: [Int]
    let wake: Double, prep: Double, commute: Double, workEnd: Double, bed: Double
    let motion: Motion
    let gymDays: Set<Int>
    let amp: [Double]
    let engage: Double
    let sessionGapMean: Double

    init(rng: inout SimulationRandom) {
        let (clat, clon) = (42.3601, -71.0589)
        let (hlat, hlon) = Shape.nearby(clat, clon, meters: rng.uniform(3000...12_000), &rng)
        let (wlat, wlon) = Shape.nearby(clat, clon, meters: rng.uniform(300...2500), &rng)
        let (glat, glon) = Shape.nearby(hlat, hlon, meters: 1200, &rng)
        let (slat, slon) = Shape.nearby(hlat, hlon, meters: 1800, &rng)
        let (plat, plon) = Shape.nearby(hlat, hlon, meters: 2500, &rng)
        places = [SimPlace(name: "home", lat: hlat, lon: hlon), SimPlace(name: "work", lat: wlat, lon: wlon),
                  SimPlace(name: "gym", lat: glat, lon: glon), SimPlace(name: "supermarket", lat: slat, lon: slon),
                  SimPlace(name: "park", lat: plat, lon: plon)]
        var top = [Self.calendar, Self.weather, Self.maps, Self.notes, Self.music, Self.news]
        if rng.chance(0.5) { top.swapAt(0, 1) }
        if rng.chance(0.5) { top.swapAt(3, 5) }
        topOrder = top
        bottomOrder = rng.chance(0.5) ? [Self.fitness, Self.delivery, Self.reminders, Self.photos]
                                      : [Self.reminders, Self.fitness, Self.photos, Self.delivery]
        wake = rng.uniform(6.1...7.0)
        prep = rng.uniform(0.8...1.3)
        commute = rng.uniform(0.45...0.9)
        workEnd = rng.uniform(16.9...18.0)
        bed = rng.uniform(22.4...23.5)
        motion = rng.chance(0.6) ? .transit : .driving
        gymDays = rng.chance(0.6) ? [2, 4] : []
        amp = (0..<10).map { _ in Shape.jitter(&rng, 0.3) }
        engage = rng.uniform(0.5...0.65)
        sessionGapMean = rng.uniform(360...720)
    }

    func headphonesChance(_ motion: Motion) -> Double {
        switch motion {
        case .transit: 0.8
        case .walking: 0.5
        case .cycling: 0.3
        case .driving, .flying: 0.1
        }
    }

    func stacks(day: Int) -> [(id: String, widgets: [Int])] { [("top", topOrder), ("bottom", bottomOrder)] }
    func startOffset(day: Int) -> Int32 { offset }

    mutating func plan(day: Int, weekday: Int, length: Int, rng: inout SimulationRandom) -> DayPlan {
        var p = DayPlan()
        let h = Shape.h
        if weekday <= 5 {
            let wakeAt = h(wake + 0.15 * rng.normal())
            let leave = wakeAt + h(prep + 0.1 * rng.normal())
            let arrive = leave + h(commute * (1 + 0.1 * rng.normal()))
            let end = max(arrive + h(6), h(workEnd + 0.2 * rng.normal()))
            let bedAt = h(bed + 0.2 * rng.normal())
            p.marks = ["wake": wakeAt, "arrive": arrive, "workEnd": end]
            p.add(until: wakeAt, .sleep(place: Self.home), tag: "sleep", offset: offset)
            p.add(until: leave, .stay(place: Self.home), tag: "morning", offset: offset)
            p.add(until: arrive, .travel(from: Self.home, to: Self.work, motion: motion), tag: "commute", offset: offset)
            p.add(until: end, .stay(place: Self.work), tag: "work", offset: offset)
            var back = end + h(commute * (1 + 0.1 * rng.normal()))
            if gymDays.contains(weekday) {
                p.add(until: end + h(0.4), .travel(from: Self.work, to: Self.gym, motion: motion), tag: "commute", offset: offset)
                p.add(until: end + h(1.5), .stay(place: Self.gym), tag: "gym", offset: offset)
                back = end + h(1.8)
                p.add(until: back, .travel(from: Self.gym, to: Self.home, motion: .walking), tag: "walk", offset: offset)
            } else {
                p.add(until: back, .travel(from: Self.work, to: Self.home, motion: motion), tag: "commute", offset: offset)
            }
            p.add(until: max(back + h(1), bedAt), .stay(place: Self.home), tag: "evening", offset: offset)
            p.add(until: length, .sleep(place: Self.home), tag: "sleep", offset: offset)
            if rng.chance(0.7) {
                let meeting = (arrive / 1800 + 1 + rng.nextInt(below: 3)) * 1800
                p.hints.append(PlannedHint(at: wakeAt + 300, widget: Self.calendar, score: 0.8, duration: meeting - wakeAt - 300))
            }
            if rng.chance(0.4) {
                let meeting = h(14 + Double(rng.nextInt(below: 5)) * 0.5)
                p.hints.append(PlannedHint(at: meeting - 2700, widget: Self.calendar, score: 0.6, duration: 3600))
            }
            if rng.chance(0.12) {
                p.hints.append(PlannedHint(at: h(9), widget: Self.delivery, score: 0.9, duration: h(11)))
            }
        } else {
            let wakeAt = h(wake + 1.5 + 0.3 * rng.normal())
            p.marks = ["wake": wakeAt]
            p.add(until: wakeAt, .sleep(place: Self.home), tag: "sleep", offset: offset)
            if weekday == 6 {
                p.add(until: h(10.5), .stay(place: Self.home), tag: "morning", offset: offset)
                p.add(until: h(10.75), .travel(from: Self.home, to: Self.shop, motion: .driving), tag: "errand", offset: offset)
                p.add(until: h(11.75), .stay(place: Self.shop), tag: "shop", offset: offset)
                p.add(until: h(12.0), .travel(from: Self.shop, to: Self.home, motion: .driving), tag: "errand", offset: offset)
            } else {
                p.add(until: h(14), .stay(place: Self.home), tag: "morning", offset: offset)
                p.add(until: h(14.4), .travel(from: Self.home, to: Self.park, motion: .walking), tag: "walk", offset: offset)
                p.add(until: h(16), .stay(place: Self.park), tag: "park", offset: offset)
                p.add(until: h(16.4), .travel(from: Self.park, to: Self.home, motion: .walking), tag: "walk", offset: offset)
            }
            p.add(until: h(bed + 0.5 + 0.2 * rng.normal()), .stay(place: Self.home), tag: "evening", offset: offset)
            p.add(until: length, .sleep(place: Self.home), tag: "sleep", offset: offset)
        }
        return p
    }

    func intent(_ c: IntentContext, into w: inout [Double]) {
        let hr = c.hour, tag = c.segment.tag
        let workday = !c.isWeekend
        let beforeWork = workday ? Shape.within(c.second, c.plan.marks["wake"], c.plan.marks["arrive"]) : 0
        w[Self.calendar] = 0.15 + 3.0 * beforeWork + (workday ? 0 : 0.2 * Shape.bump(hr, 10, 1.5)) + 2.0 * c.hints[Self.calendar]
        w[Self.maps] = 0.08 + (tag == "commute" ? 3.0 : 0) + (c.segment.isTravel && !workday ? 1.5 : 0)
        w[Self.weather] = 0.2 + 2.2 * Shape.bump(hr, 12.0, 0.6) + 0.8 * Shape.bump(hr, wake + 0.3, 0.4)
        w[Self.notes] = 0.12 + 2.5 * Shape.bump(hr, 21.0, 1.0) * (c.segment.place == Self.home ? 1 : 0.4)
        w[Self.music] = 0.15 + (tag == "commute" ? (motion == .transit ? 2.0 : 1.0) : 0) + (tag == "gym" ? 1.5 : 0)
        w[Self.news] = 0.25 + 0.9 * Shape.bump(hr, 12.7, 0.8) + (workday ? 0 : 1.2 * Shape.bump(hr, 9.5, 1.0))
        w[Self.fitness] = 0.08 + (tag == "gym" ? 3.0 : 0) + 0.4 * Shape.bump(hr, 21.5, 1.0)
        w[Self.delivery] = 0.02 + 3.0 * c.hints[Self.delivery]
        w[Self.reminders] = 0.15 + (workday ? 1.0 * Shape.bump(hr, workEnd, 0.5) : 0)
        w[Self.photos] = 0.08 + (workday ? 0 : 0.6) + (tag == "park" ? 2.0 : 0)
        switch c.previousWidget {
        case Self.calendar where beforeWork > 0: w[Self.maps] *= 1.8
        case Self.fitness: w[Self.music] *= 1.5
        case Self.news: w[Self.weather] *= 1.3
        default: break
        }
        for i in w.indices { w[i] *= amp[i] }
    }

    func engageProbability(_ c: IntentContext) -> Double {
        engage * (c.segment.tag == "commute" && motion == .driving ? 0.6 : 1)
    }
}
