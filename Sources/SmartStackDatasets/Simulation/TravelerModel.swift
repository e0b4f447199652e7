import SmartStack

/// A person with an office routine at home (UTC-08:00) who flies abroad (UTC+01:00) partway
/// through: a conference on weekdays, sightseeing at weekends, a new restaurant or sight most
/// days, then the flight back. The phone's UTC offset changes mid-flight both ways.
///
/// The trip needs at least 5 days; with fewer the person stays home. The outbound flight day is
/// 15 hours long in local terms (the night is lost flying east), the return day 33 hours.
struct TravelerModel: PersonaModel {
    static let calendar = 0, maps = 1, weather = 2, wallet = 3, translate = 4, notes = 5
    static let photos = 6, music = 7, currency = 8, news = 9
    static let home = 0, office = 1, sfo = 2, cafe = 3, hotel = 4, venue = 5, ber = 6

    let catalog: [WidgetConfig] = ["calendar", "maps", "weather", "wallet", "translate", "notes",
                                   "photos", "music", "currency", "news"]
        .map { WidgetConfig(id: $0, app: "org.example.\($0)") }
    let otherApps = ["org.example.messages", "org.example.mail", "org.example.browser"]
    var places: [SimPlace]
    let homeOffset: Int32 = -8 * 3600
    let awayOffset: Int32 = 1 * 3600
    /// The departure day; days `departure + 1 ... returnDay` start in the away offset.
    let departure: Int
    let returnDay: Int
    let amp: [Double]
    let engage: Double
    let sessionGapMean: Double
    let wake: Double

    init(days: Int, rng: inout SimulationRandom) {
        let (hlat, hlon) = Shape.nearby(37.7749, -122.4194, meters: rng.uniform(2000...9000), &rng)
        let (olat, olon) = Shape.nearby(37.7897, -122.3972, meters: 800, &rng)
        let (clat, clon) = Shape.nearby(hlat, hlon, meters: 700, &rng)
        let (tlat, tlon) = Shape.nearby(52.5200, 13.4050, meters: 1500, &rng)
        let (vlat, vlon) = Shape.nearby(52.5070, 13.3900, meters: 1000, &rng)
        places = [SimPlace(name: "home", lat: hlat, lon: hlon), SimPlace(name: "work", lat: olat, lon: olon),
                  SimPlace(name: "airport-sfo", lat: 37.6213, lon: -122.3790), SimPlace(name: "cafe", lat: clat, lon: clon),
                  SimPlace(name: "hotel", lat: tlat, lon: tlon), SimPlace(name: "conference", lat: vlat, lon: vlon),
                  SimPlace(name: "airport-ber", lat: 52.3667, lon: 13.5033)]
        if days >= 5 {
            let dep = max(1, days * 35 / 100 + rng.nextInt(below: 3))
            departure = min(dep, days - 4)
            returnDay = min(days - 2, departure + max(2, min(10, days / 3)))
        } else {
            departure = Int.max / 2
            returnDay = Int.max / 2
        }
        amp = (0..<10).map { _ in Shape.jitter(&rng, 0.3) }
        engage = rng.uniform(0.5...0.65)
        sessionGapMean = rng.uniform(360...720)
        wake = rng.uniform(6.5...7.5)
    }

    func headphonesChance(_ motion: Motion) -> Double {
        switch motion {
        case .flying: 0.9
        case .transit, .walking: 0.5
        default: 0.1
        }
    }
    func stacks(day: Int) -> [(id: String, widgets: [Int])] {
        [("travel", [Self.calendar, Self.maps, Self.weather, Self.wallet, Self.translate, Self.notes]),
         ("extras", [Self.photos, Self.music, Self.currency, Self.news])]
    }
    func startOffset(day: Int) -> Int32 { day > departure && day <= returnDay ? awayOffset : homeOffset }

    private mutating func newPlace(_ kind: String, near p: Int, meters: Double, rng: inout SimulationRandom) -> Int {
        let (la, lo) = Shape.nearby(places[p].lat, places[p].lon, meters: meters, &rng)
        places.append(SimPlace(name: "\(kind)-\(places.count)", lat: la, lon: lo))
        return places.count - 1
    }

    mutating func plan(day: Int, weekday: Int, length: Int, rng: inout SimulationRandom) -> DayPlan {
        let h = Shape.h
        var p = DayPlan()
        let home = homeOffset, away = awayOffset
        if day == departure {
            p.marks["wake"] = h(7)
            p.add(until: h(7), .sleep(place: Self.home), tag: "sleep", offset: home)
            p.add(until: h(10.5), .stay(place: Self.home), tag: "packing", offset: home)
            p.add(until: h(11.25), .travel(from: Self.home, to: Self.sfo, motion: .driving), tag: "to-airport", offset: home)
            p.add(until: h(14), .stay(place: Self.sfo), tag: "airport", offset: home)
            p.add(until: length, .travel(from: Self.sfo, to: Self.ber, motion: .flying), tag: "flight", offset: home)
            p.hints.append(PlannedHint(at: h(10), widget: Self.wallet, score: 1.0, duration: h(5)))
            return p
        }
        if day == departure + 1 {
            // Still in the air: the phone keeps the home offset until it lands.
            p.add(until: h(10), .travel(from: Self.sfo, to: Self.ber, motion: .flying), tag: "flight", offset: home)
            p.add(until: h(11), .stay(place: Self.ber), tag: "airport", offset: away)
            p.add(until: h(11.6), .travel(from: Self.ber, to: Self.hotel, motion: .driving), tag: "taxi", offset: away)
            let food = newPlace("restaurant", near: Self.hotel, meters: 1500, rng: &rng)
            p.add(until: h(19.3), .stay(place: Self.hotel), tag: "hotel", offset: away)
            p.add(until: h(19.6), .travel(from: Self.hotel, to: food, motion: .walking), tag: "walk", offset: away)
            p.add(until: h(21), .stay(place: food), tag: "restaurant", offset: away)
            p.add(until: h(21.3), .travel(from: food, to: Self.hotel, motion: .walking), tag: "walk", offset: away)
            p.add(until: h(22.3), .stay(place: Self.hotel), tag: "hotel", offset: away)
            p.add(until: length, .sleep(place: Self.hotel), tag: "sleep", offset: away)
            return p
        }
        if day == returnDay {
            p.add(until: h(6.5), .sleep(place: Self.hotel), tag: "sleep", offset: away)
            p.add(until: h(7.5), .stay(place: Self.hotel), tag: "packing", offset: away)
            p.add(until: h(8.1), .travel(from: Self.hotel, to: Self.ber, motion: .driving), tag: "taxi", offset: away)
            p.add(until: h(10), .stay(place: Self.ber), tag: "airport", offset: away)
            p.add(until: h(21.5), .travel(from: Self.ber, to: Self.sfo, motion: .flying), tag: "flight", offset: away)
            // Landed: the phone is back on the home offset (local = day second - 9 h).
            p.add(until: h(22.25), .stay(place: Self.sfo), tag: "airport", offset: home)
            p.add(until: h(23), .travel(from: Self.sfo, to: Self.home, motion: .driving), tag: "taxi", offset: home)
            p.add(until: h(30.5), .stay(place: Self.home), tag: "evening", offset: home)
            p.add(until: length, .sleep(place: Self.home), tag: "sleep", offset: home)
            p.hints.append(PlannedHint(at: h(5), widget: Self.wallet, score: 1.0, duration: h(5)))
            return p
        }
        if day > departure && day < returnDay {
            let wakeAt = h(7.3 + 0.2 * rng.normal())
            p.marks["wake"] = wakeAt
            p.add(until: wakeAt, .sleep(place: Self.hotel), tag: "sleep", offset: away)
            var here = Self.hotel
            func go(_ to: Int, until arrive: Int, _ motion: Motion, stay end: Int, _ tag: String) {
                p.add(until: arrive, .travel(from: here, to: to, motion: motion), tag: "walk", offset: away)
                p.add(until: end, .stay(place: to), tag: tag, offset: away)
                here = to
            }
            if weekday <= 5 {
                p.add(until: h(8.3), .stay(place: Self.hotel), tag: "hotel", offset: away)
                go(Self.venue, until: h(8.8), .transit, stay: h(17.5), "conference")
                p.hints.append(PlannedHint(at: h(8), widget: Self.calendar, score: 0.8, duration: h(1.5)))
                p.hints.append(PlannedHint(at: h(13.5), widget: Self.calendar, score: 0.6, duration: h(1)))
                let food = newPlace("restaurant", near: Self.venue, meters: 2000, rng: &rng)
                go(food, until: h(18), .walking, stay: h(19.5), "restaurant")
            } else {
                p.add(until: h(10), .stay(place: Self.hotel), tag: "hotel", offset: away)
                let sight = newPlace("sight", near: Self.hotel, meters: 3000, rng: &rng)
                go(sight, until: h(10.5), .transit, stay: h(13), "sight")
                let food = newPlace("restaurant", near: sight, meters: 800, rng: &rng)
                go(food, until: h(13.3), .walking, stay: h(14.5), "restaurant")
                let second = newPlace("sight", near: Self.hotel, meters: 3000, rng: &rng)
                go(second, until: h(15), .transit, stay: h(17.5), "sight")
            }
            go(Self.hotel, until: (p.segments.last?.end ?? 0) + h(0.5), .transit, stay: h(23 + 0.2 * rng.normal()), "hotel")
            p.add(until: length, .sleep(place: Self.hotel), tag: "sleep", offset: away)
            return p
        }
        // At home, before or after the trip.
        let wakeAt = h((weekday <= 5 ? wake : wake + 1.5) + 0.2 * rng.normal())
        p.marks["wake"] = wakeAt
        p.add(until: wakeAt, .sleep(place: Self.home), tag: "sleep", offset: home)
        if weekday <= 5 {
            let leave = h(8.4 + 0.15 * rng.normal())
            p.marks["arrive"] = leave + h(0.5)
            p.add(until: leave, .stay(place: Self.home), tag: "morning", offset: home)
            p.add(until: leave + h(0.5), .travel(from: Self.home, to: Self.office, motion: .driving), tag: "commute", offset: home)
            p.add(until: h(17.5), .stay(place: Self.office), tag: "office", offset: home)
            p.add(until: h(18), .travel(from: Self.office, to: Self.home, motion: .driving), tag: "commute", offset: home)
            if rng.chance(0.6) {
                p.hints.append(PlannedHint(at: wakeAt + 600, widget: Self.calendar, score: 0.7, duration: h(2.5)))
            }
        } else {
            p.add(until: h(10.5), .stay(place: Self.home), tag: "morning", offset: home)
            p.add(until: h(10.7), .travel(from: Self.home, to: Self.cafe, motion: .walking), tag: "walk", offset: home)
            p.add(until: h(12), .stay(place: Self.cafe), tag: "cafe", offset: home)
            p.add(until: h(12.2), .travel(from: Self.cafe, to: Self.home, motion: .walking), tag: "walk", offset: home)
        }
        p.add(until: h(23 + 0.2 * rng.normal()), .stay(place: Self.home), tag: "evening", offset: home)
        p.add(until: length, .sleep(place: Self.home), tag: "sleep", offset: home)
        return p
    }

    func intent(_ c: IntentContext, into w: inout [Double]) {
        let hr = c.hour, tag = c.segment.tag
        let abroad = c.segment.offset == awayOffset
        let out = tag == "restaurant" || tag == "sight"
        let beforeWork = c.isWeekend || abroad ? 0 : Shape.within(c.second, c.plan.marks["wake"], c.plan.marks["arrive"])
        w[Self.calendar] = 0.15 + 2.0 * c.hints[Self.calendar] + 1.5 * beforeWork
        w[Self.maps] = 0.08 + (abroad ? 1.2 : 0) + (c.segment.isTravel && tag != "flight" ? (abroad ? 2.5 : 0.8) : 0)
        w[Self.weather] = 0.2 + 1.2 * Shape.bump(hr, wake + 0.3, 0.5) + (abroad ? 0.5 : 0)
        w[Self.wallet] = 0.03 + 3.0 * c.hints[Self.wallet] + (tag == "airport" ? 2.5 : 0)
        w[Self.translate] = 0.02 + (abroad ? (out ? 2.0 : 0.3) : 0)
        w[Self.notes] = 0.12 + (tag == "conference" ? 1.5 : 0) + (tag == "office" ? 0.6 : 0) + 0.8 * Shape.bump(hr, 21, 1)
        w[Self.photos] = 0.08 + (tag == "sight" ? 3.0 : 0) + (c.isWeekend ? 0.3 : 0)
        w[Self.music] = 0.15 + (tag == "flight" ? 2.0 : 0) + (c.segment.isTravel ? 0.8 : 0)
        w[Self.currency] = 0.02 + (abroad ? (tag == "restaurant" ? 1.5 : 0.2) : 0)
        w[Self.news] = 0.25 + 0.8 * Shape.bump(hr, 7.8, 0.7)
        switch c.previousWidget {
        case Self.calendar: w[Self.maps] *= 1.5
        case Self.translate: w[Self.currency] *= 1.5
        case Self.photos: w[Self.maps] *= 1.3
        default: break
        }
        for i in w.indices { w[i] *= amp[i] }
    }

    func engageProbability(_ c: IntentContext) -> Double { engage * (c.segment.tag == "flight" ? 0.5 : 1) }
}
