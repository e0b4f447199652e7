import SmartStack

/// A person whose widget use has no structure: each widget has a fixed popularity of its own,
/// and what they open does not depend on the time, the day, the place, the last app or
/// anything else. Their day has a shape (sleep, work, errands), but their use ignores it.
///
/// The best possible policy here is counting: the oracle's pick is the most popular widget
/// (up to the small effect of what is shown), which `mfu` learns. A model that reads structure
/// into noise does worse, so this persona checks "never worse than counting".
struct StructurelessModel: PersonaModel {
    static let home = 0, work = 1, shop = 2

    let catalog: [WidgetConfig] = ["notes", "weather", "music", "news", "photos", "mail",
                                   "calendar", "maps", "podcasts", "games"]
        .map { WidgetConfig(id: $0, app: "org.example.\($0)") }
    let otherApps = ["org.example.messages", "org.example.browser", "org.example.social"]
    var places: [SimPlace]
    let offset: Int32 = -6 * 3600
    /// Each widget's popularity: log-normal, so a few widgets dominate as they do for real people.
    let popularity: [Double]
    let order: [Int]
    let wake: Double, bed: Double
    let engage: Double
    let sessionGapMean: Double

    init(rng: inout SimulationRandom) {
        let (clat, clon) = (41.8781, -87.6298)
        let (hlat, hlon) = Shape.nearby(clat, clon, meters: rng.uniform(3000...12_000), &rng)
        let (wlat, wlon) = Shape.nearby(clat, clon, meters: rng.uniform(300...2500), &rng)
        let (slat, slon) = Shape.nearby(hlat, hlon, meters: 1500, &rng)
        places = [SimPlace(name: "home", lat: hlat, lon: hlon), SimPlace(name: "work", lat: wlat, lon: wlon),
                  SimPlace(name: "supermarket", lat: slat, lon: slon)]
        popularity = (0..<10).map { _ in _exp(rng.normal()) }
        var shuffled = Array(0..<10)
        for i in stride(from: shuffled.count - 1, to: 0, by: -1) { shuffled.swapAt(i, rng.nextInt(below: i + 1)) }
        order = shuffled
        wake = rng.uniform(6.3...7.8)
        bed = rng.uniform(22.3...23.8)
        engage = rng.uniform(0.45...0.6)
        sessionGapMean = rng.uniform(360...720)
    }

    func headphonesChance(_ motion: Motion) -> Double { motion == .transit ? 0.6 : 0.2 }
    func stacks(day: Int) -> [(id: String, widgets: [Int])] {
        [("top", Array(order.prefix(6))), ("bottom", Array(order.suffix(4)))]
    }
    func startOffset(day: Int) -> Int32 { offset }

    mutating func plan(day: Int, weekday: Int, length: Int, rng: inout SimulationRandom) -> DayPlan {
        let h = Shape.h
        var p = DayPlan()
        func add(_ end: Int, _ kind: SegmentKind, _ tag: String) { p.add(until: end, kind, tag: tag, offset: offset) }
        if weekday <= 5 {
            let wakeAt = h(wake + 0.2 * rng.normal())
            add(wakeAt, .sleep(place: Self.home), "sleep")
            add(wakeAt + h(1), .stay(place: Self.home), "morning")
            add(wakeAt + h(1.6), .travel(from: Self.home, to: Self.work, motion: .transit), "commute")
            add(h(17.2 + 0.2 * rng.normal()), .stay(place: Self.work), "work")
            add(h(17.9), .travel(from: Self.work, to: Self.home, motion: .transit), "commute")
        } else {
            add(h(wake + 1.5 + 0.3 * rng.normal()), .sleep(place: Self.home), "sleep")
            if weekday == 6 {
                add(h(11), .stay(place: Self.home), "morning")
                add(h(11.3), .travel(from: Self.home, to: Self.shop, motion: .driving), "errand")
                add(h(12.2), .stay(place: Self.shop), "shop")
                add(h(12.5), .travel(from: Self.shop, to: Self.home, motion: .driving), "errand")
            }
        }
        add(h(bed + 0.2 * rng.normal()), .stay(place: Self.home), "evening")
        add(length, .sleep(place: Self.home), "sleep")
        return p
    }

    func intent(_ c: IntentContext, into w: inout [Double]) {
        for i in popularity.indices { w[i] = popularity[i] }
    }

    func engageProbability(_ c: IntentContext) -> Double { engage }
}
