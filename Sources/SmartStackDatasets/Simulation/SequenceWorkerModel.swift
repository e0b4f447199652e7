import SmartStack

/// An operations engineer whose working day is made of short routines: "open the dashboard,
/// then the ticket, then the team chat, then the docs", "mail, then calendar, then notes",
/// "ticket, docs, timesheet". Steps follow each other within minutes, so what comes next follows
/// from the last one or two widgets engaged, and changes every few minutes, predictably; time of
/// day and place say little at work. Evenings and weekends are calm and loosely timed.
///
/// Some steps are shared by two routines (after `tickets` comes `chat` if the dashboard came
/// first, else `docs`; after `docs`, `timesheet` only if `tickets` came before it), so the last
/// widget alone does not always tell the next one.
struct SequenceWorkerModel: PersonaModel {
    static let dashboard = 0, tickets = 1, chat = 2, docs = 3, mail = 4, calendar = 5
    static let notes = 6, timesheet = 7, maps = 8, music = 9
    static let home = 0, office = 1, cafe = 2, shop = 3, park = 4

    let catalog: [WidgetConfig] = ["dashboard", "tickets", "chat", "docs", "mail", "calendar",
                                   "notes", "timesheet", "maps", "music"]
        .map { WidgetConfig(id: $0, app: "org.example.\($0)") }
    let otherApps = ["org.example.messages", "org.example.browser", "org.example.social"]
    var places: [SimPlace]
    let offset: Int32 = 1 * 3600
    let workOrder: [Int]
    let wake: Double, start: Double, end: Double, bed: Double
    let commute: Double
    let motion: Motion
    /// A weekday worked from home, or 0.
    let homeDay: Int
    let amp: [Double]
    let engage: Double
    let sessionGapMean: Double
    /// Mean extra gap between sessions at work, in seconds.
    let workGapMean: Double
    let minimumSessionGap = 150
    let otherAppChance = 0.15

    init(rng: inout SimulationRandom) {
        let (clat, clon) = (40.4168, -3.7038)
        let (hlat, hlon) = Shape.nearby(clat, clon, meters: rng.uniform(2000...9000), &rng)
        let (olat, olon) = Shape.nearby(clat, clon, meters: rng.uniform(500...3000), &rng)
        let (flat, flon) = Shape.nearby(olat, olon, meters: 300, &rng)
        let (slat, slon) = Shape.nearby(hlat, hlon, meters: 900, &rng)
        let (plat, plon) = Shape.nearby(hlat, hlon, meters: 2000, &rng)
        places = [SimPlace(name: "home", lat: hlat, lon: hlon), SimPlace(name: "office", lat: olat, lon: olon),
                  SimPlace(name: "cafe", lat: flat, lon: flon), SimPlace(name: "supermarket", lat: slat, lon: slon),
                  SimPlace(name: "park", lat: plat, lon: plon)]
        var order = [Self.dashboard, Self.tickets, Self.chat, Self.docs, Self.mail, Self.calendar]
        if rng.chance(0.5) { order.swapAt(0, 4) }
        if rng.chance(0.5) { order.swapAt(2, 5) }
        workOrder = order
        wake = rng.uniform(6.6...7.6)
        start = wake + rng.uniform(1.5...2.0)
        end = start + rng.uniform(8.5...9.5)
        bed = rng.uniform(23.0...24.0)
        commute = rng.uniform(0.3...0.7)
        motion = rng.chance(0.7) ? .transit : .cycling
        homeDay = rng.chance(0.5) ? 5 : 0
        amp = (0..<10).map { _ in Shape.jitter(&rng, 0.3) }
        engage = rng.uniform(0.5...0.6)
        sessionGapMean = rng.uniform(450...750)
        workGapMean = rng.uniform(100...200)
    }

    func headphonesChance(_ motion: Motion) -> Double { motion == .transit ? 0.7 : 0.2 }
    func stacks(day: Int) -> [(id: String, widgets: [Int])] {
        [("work", workOrder), ("more", [Self.notes, Self.timesheet, Self.maps, Self.music])]
    }
    func startOffset(day: Int) -> Int32 { offset }
    func sessionGapMean(after segment: Segment) -> Double { segment.tag == "work" ? workGapMean : sessionGapMean }

    mutating func plan(day: Int, weekday: Int, length: Int, rng: inout SimulationRandom) -> DayPlan {
        let h = Shape.h
        var p = DayPlan()
        func add(_ end: Int, _ kind: SegmentKind, _ tag: String) { p.add(until: end, kind, tag: tag, offset: offset) }
        if weekday <= 5 {
            let wakeAt = h(wake + 0.15 * rng.normal())
            let startAt = max(wakeAt + h(0.8), h(start + 0.1 * rng.normal()))
            let endAt = h(end + 0.2 * rng.normal())
            p.marks = ["wake": wakeAt, "start": startAt, "end": endAt]
            add(wakeAt, .sleep(place: Self.home), "sleep")
            if weekday == homeDay {
                add(startAt, .stay(place: Self.home), "morning")
                add(h(14), .stay(place: Self.home), "work")
                add(h(14.75), .stay(place: Self.home), "lunch")
                add(endAt, .stay(place: Self.home), "work")
            } else {
                let leave = startAt - h(commute)
                add(leave, .stay(place: Self.home), "morning")
                add(startAt, .travel(from: Self.home, to: Self.office, motion: motion), "commute")
                add(h(14), .stay(place: Self.office), "work")
                add(h(14.1), .travel(from: Self.office, to: Self.cafe, motion: .walking), "walk")
                add(h(14.75), .stay(place: Self.cafe), "lunch")
                add(h(14.85), .travel(from: Self.cafe, to: Self.office, motion: .walking), "walk")
                add(endAt, .stay(place: Self.office), "work")
                add(endAt + h(commute), .travel(from: Self.office, to: Self.home, motion: motion), "commute")
            }
            add(h(bed + 0.2 * rng.normal()), .stay(place: Self.home), "evening")
            if rng.chance(0.6) {
                let meeting = h(10 + Double(rng.nextInt(below: 12)) * 0.5)
                p.hints.append(PlannedHint(at: meeting - 1800, widget: Self.calendar, score: 0.8, duration: 2700))
            }
        } else {
            let wakeAt = h(wake + 1.5 + 0.3 * rng.normal())
            p.marks = ["wake": wakeAt]
            add(wakeAt, .sleep(place: Self.home), "sleep")
            let outing = weekday == 6 ? (Self.shop, "shop", 11.0, 12.0) : (Self.park, "park", 16.0, 18.0)
            add(h(outing.2), .stay(place: Self.home), "morning")
            add(h(outing.2 + 0.3), .travel(from: Self.home, to: outing.0, motion: .walking), "walk")
            add(h(outing.3), .stay(place: outing.0), outing.1)
            add(h(outing.3 + 0.3), .travel(from: outing.0, to: Self.home, motion: .walking), "walk")
            add(h(bed + 0.4 + 0.2 * rng.normal()), .stay(place: Self.home), "evening")
        }
        add(length, .sleep(place: Self.home), "sleep")
        return p
    }

    /// The routine step that follows the last engagements (most recent first), with weights.
    static func nextSteps(after recent: [Int]) -> [(widget: Int, weight: Double)] {
        guard let last = recent.first else { return [] }
        let before = recent.count > 1 ? recent[1] : -1
        switch last {
        case dashboard: return [(tickets, 3.0), (chat, 0.6)]
        case tickets: return before == dashboard ? [(chat, 3.0)] : [(docs, 3.0)]
        case chat: return before == tickets ? [(docs, 3.0)] : []
        case docs: return before == tickets ? [(timesheet, 2.5)] : []
        case mail: return [(calendar, 2.2), (tickets, 0.8)]
        case calendar: return before == mail ? [(notes, 3.0)] : [(notes, 2.0), (chat, 1.0)]
        default: return []
        }
    }

    /// How strongly a routine carries on: fully for 8 minutes after the last step, fading to
    /// nothing at 20.
    static func momentum(_ seconds: Double) -> Double {
        seconds <= 480 ? 1 : max(0, 1 - (seconds - 480) / 720)
    }

    func intent(_ c: IntentContext, into w: inout [Double]) {
        let hr = c.hour, tag = c.segment.tag
        let working = tag == "work"
        let evening = tag == "evening" || tag == "morning"
        let startHour = Double(c.plan.marks["start"] ?? 32_400) / 3600
        let endHour = Double(c.plan.marks["end"] ?? 64_800) / 3600
        w[Self.dashboard] = 0.1 + (working ? 0.5 + 1.5 * Shape.bump(hr, startHour + 0.25, 0.35) + 1.0 * Shape.bump(hr, 14.9, 0.3) : 0)
        w[Self.tickets] = 0.05 + (working ? 0.6 : 0)
        w[Self.chat] = 0.15 + (working ? 0.3 : 0.1)
        w[Self.docs] = 0.05 + (working ? 0.2 : 0)
        w[Self.mail] = 0.15 + (working ? 0.5 + 1.0 * Shape.bump(hr, startHour + 0.5, 0.5) : 0) + (evening ? 0.2 : 0)
        w[Self.calendar] = 0.08 + 2.0 * c.hints[Self.calendar] + (working ? 0.2 : 0)
        w[Self.notes] = 0.1 + (evening ? 0.5 * Shape.bump(hr, 21.5, 1.0) : 0)
        w[Self.timesheet] = 0.03 + (working ? 1.2 * Shape.bump(hr, endHour - 0.2, 0.3) : 0)
        w[Self.maps] = 0.05 + (c.segment.isTravel ? 1.2 : 0) + (c.isWeekend && c.segment.isTravel ? 1.0 : 0)
        w[Self.music] = 0.12 + (c.segment.isTravel ? 2.0 : 0) + (evening ? 0.6 * Shape.bump(hr, 20, 1.5) : 0)
        let steps = Self.nextSteps(after: c.recentEngagements)
        let carry = steps.isEmpty ? 0 : Self.momentum(c.secondsSinceEngagement) * (working ? 1 : 0.5)
        if carry > 0 {
            for i in w.indices { w[i] *= 1 - 0.7 * carry }
            for s in steps where s.widget < w.count { w[s.widget] += carry * s.weight }
        }
        for i in w.indices { w[i] *= amp[i] }
    }

    func engageProbability(_ c: IntentContext) -> Double {
        let working = c.segment.tag == "work"
        let inRoutine = !Self.nextSteps(after: c.recentEngagements).isEmpty && Self.momentum(c.secondsSinceEngagement) > 0
        return working ? (inRoutine ? 0.85 : engage + 0.1) : engage * (c.segment.tag == "commute" ? 0.8 : 1)
    }
}
