import SmartStack

/// A university student: a weekly class timetable, the library between and after classes,
/// meals in the dining hall, the gym on some evenings; later, slower weekends.
struct StudentModel: PersonaModel {
    static let timetable = 0, notes = 1, library = 2, music = 3, weather = 4, maps = 5
    static let food = 6, fitness = 7, reminders = 8, photos = 9
    static let dorm = 0, hall = 1, lab = 2, libraryPlace = 3, gym = 4, dining = 5

    struct Appointment { var start: Int; var end: Int; var place: Int; var tag: String }

    let catalog: [WidgetConfig] = ["timetable", "notes", "library", "music", "weather", "maps",
                                   "food", "fitness", "reminders", "photos"]
        .map { WidgetConfig(id: $0, app: "edu.example.\($0)") }
    let otherApps = ["org.example.messages", "org.example.social", "org.example.video", "org.example.browser"]
    var places: [SimPlace]
    let offset: Int32 = -5 * 3600
    let classes: [Int: [Appointment]]
    let wake: Double, bed: Double
    let gymDays: Set<Int>
    let amp: [Double]
    let engage: Double
    let sessionGapMean: Double
    let mainOrder: [Int]

    init(rng: inout SimulationRandom) {
        let (clat, clon) = (43.7044, -72.2887)
        let names = ["dorm", "lecture-hall", "lab", "library", "gym", "dining-hall"]
        places = names.map { name in
            let (la, lo) = Shape.nearby(clat, clon, meters: rng.uniform(200...1400), &rng)
            return SimPlace(name: name, lat: la, lon: lo)
        }
        var table: [Int: [Appointment]] = [:]
        let starts = [9.0, 10.0, 11.0, 13.0, 14.0, 15.0]
        for _ in 0..<3 {
            let mwf = rng.chance(0.5)
            let days = mwf ? [1, 3, 5] : [2, 4]
            let length = mwf ? 1.1 : 1.6
            let start = starts[rng.nextInt(below: starts.count)]
            let place = rng.chance(0.7) ? Self.hall : Self.lab
            for d in days {
                let a = Appointment(start: Shape.h(start), end: Shape.h(start + length), place: place, tag: "class")
                let existing = table[d] ?? []
                if existing.allSatisfy({ $0.end + 600 <= a.start || a.end + 600 <= $0.start }) {
                    table[d] = (existing + [a]).sorted { $0.start < $1.start }
                }
            }
        }
        classes = table
        wake = rng.uniform(7.4...8.4)
        bed = rng.uniform(22.9...23.7)
        gymDays = rng.chance(0.5) ? [1, 3, 6] : [2, 4, 6]
        amp = (0..<10).map { _ in Shape.jitter(&rng, 0.3) }
        engage = rng.uniform(0.5...0.65)
        sessionGapMean = rng.uniform(300...600)
        var main = [Self.timetable, Self.notes, Self.library, Self.music, Self.weather, Self.maps]
        if rng.chance(0.5) { main.swapAt(1, 3) }
        mainOrder = main
    }

    func headphonesChance(_ motion: Motion) -> Double { motion == .walking ? 0.6 : 0.2 }
    func stacks(day: Int) -> [(id: String, widgets: [Int])] {
        [("main", mainOrder), ("life", [Self.food, Self.fitness, Self.reminders, Self.photos])]
    }
    func startOffset(day: Int) -> Int32 { offset }

    mutating func plan(day: Int, weekday: Int, length: Int, rng: inout SimulationRandom) -> DayPlan {
        let h = Shape.h
        var appts = classes[weekday] ?? []
        func insert(_ a: Appointment) {
            guard a.end > a.start, appts.allSatisfy({ $0.end + 900 <= a.start || a.end + 900 <= $0.start }) else { return }
            appts.append(a)
            appts.sort { $0.start < $1.start }
        }
        let weekend = weekday >= 6
        let wakeAt = h((weekend ? wake + 2.5 : wake) + 0.25 * rng.normal())
        if rng.chance(0.8) { insert(Appointment(start: h(12.25), end: h(12.9), place: Self.dining, tag: "dining")) }
        if rng.chance(0.6) { insert(Appointment(start: h(18.3), end: h(19.0), place: Self.dining, tag: "dining")) }
        if gymDays.contains(weekday) {
            insert(Appointment(start: h(weekend ? 15 : 19.5), end: h(weekend ? 16.2 : 20.7), place: Self.gym, tag: "gym"))
        }
        let lastClassEnd = appts.filter { $0.tag == "class" }.map(\.end).max()
        if let end = lastClassEnd, rng.chance(0.65) {
            insert(Appointment(start: end + h(0.3), end: end + h(rng.uniform(1.5...3.0)), place: Self.libraryPlace, tag: "library"))
        } else if weekday == 7 && rng.chance(0.6) {
            insert(Appointment(start: h(13.5), end: h(16.5), place: Self.libraryPlace, tag: "library"))
        }
        // Library in long gaps between classes.
        let sorted = appts
        for (a, b) in zip(sorted, sorted.dropFirst()) where b.start - a.end >= h(1.6) && rng.chance(0.7) {
            insert(Appointment(start: a.end + h(0.3), end: b.start - h(0.3), place: Self.libraryPlace, tag: "library"))
        }
        var p = DayPlan()
        p.marks["wake"] = wakeAt
        p.add(until: wakeAt, .sleep(place: Self.dorm), tag: "sleep", offset: offset)
        var here = Self.dorm
        let walk = h(0.2)
        for a in appts where a.start - walk > wakeAt {
            p.add(until: a.start - walk, .stay(place: here), tag: here == Self.dorm ? "dorm" : "free", offset: offset)
            p.add(until: a.start, .travel(from: here, to: a.place, motion: .walking), tag: "walk", offset: offset)
            p.add(until: a.end, .stay(place: a.place), tag: a.tag, offset: offset)
            here = a.place
            if a.tag == "class" {
                p.hints.append(PlannedHint(at: a.start - 1800, widget: Self.timetable, score: 0.9, duration: 1800 + a.end - a.start))
            }
        }
        if here != Self.dorm {
            let now = p.segments.last?.end ?? wakeAt
            p.add(until: now + walk, .travel(from: here, to: Self.dorm, motion: .walking), tag: "walk", offset: offset)
        }
        let bedAt = max((p.segments.last?.end ?? 0) + h(0.5), h(bed + (weekend ? 0.5 : 0) + 0.2 * rng.normal()))
        p.add(until: min(bedAt, length - 600), .stay(place: Self.dorm), tag: "dorm", offset: offset)
        p.add(until: length, .sleep(place: Self.dorm), tag: "sleep", offset: offset)
        return p
    }

    func intent(_ c: IntentContext, into w: inout [Double]) {
        let hr = c.hour, tag = c.segment.tag
        let travel = c.segment.isTravel
        w[Self.timetable] = 0.15 + 2.5 * c.hints[Self.timetable]
            + (c.isWeekend ? 0 : 0.8 * Shape.bump(hr, wake + 0.3, 0.4))
        w[Self.notes] = 0.2 + (tag == "class" ? 2.5 : 0) + 1.0 * Shape.bump(hr, 21.5, 1.2)
        w[Self.library] = 0.05 + (tag == "library" ? 2.5 : 0)
        w[Self.maps] = 0.05 + (travel ? 0.8 : 0)
        w[Self.music] = 0.2 + (travel ? 1.5 : 0) + (tag == "library" ? 1.0 : 0) + (tag == "gym" ? 1.5 : 0)
        w[Self.weather] = 0.15 + 1.5 * Shape.bump(hr, wake + (c.isWeekend ? 2.5 : 0.2), 0.4)
        w[Self.fitness] = 0.05 + (tag == "gym" ? 3.0 : 0)
        w[Self.food] = 0.1 + (tag == "dining" ? 2.5 : 0) + 0.8 * Shape.bump(hr, 12.2, 0.5) + 0.8 * Shape.bump(hr, 18.3, 0.5)
        w[Self.photos] = 0.1 + (c.isWeekend ? 0.7 : 0)
        w[Self.reminders] = 0.15 + 1.2 * Shape.bump(hr, 22.3, 0.8)
        switch c.previousWidget {
        case Self.timetable: w[Self.maps] *= 1.5
        case Self.notes: w[Self.library] *= 1.5
        case Self.fitness: w[Self.music] *= 1.5
        default: break
        }
        for i in w.indices { w[i] *= amp[i] }
    }

    func engageProbability(_ c: IntentContext) -> Double { engage * (c.segment.tag == "class" ? 0.7 : 1) }
}
