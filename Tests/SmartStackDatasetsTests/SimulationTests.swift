import Testing
import SmartStack
@testable import SmartStackDatasets

/// Helpers shared by the simulation tests.
enum SimulationFixtures {
    /// Everything one simulated user produced, in memory.
    struct Run {
        var events: [Event]
        var truth: [GroundTruthEntry]
    }

    static func simulate(_ persona: Persona, days: Int, seed: UInt64 = 1, user: Int = 0) -> Run {
        var sim = UserSimulator(persona: persona, userIndex: user, userName: "\(persona.rawValue)-\(user)",
                                seed: seed, startDay: SimulationOptions.defaultStartDay, days: days)
        var out = Run(events: [], truth: [])
        while let day = sim.nextDay() {
            out.events += day.events
            out.truth += day.truth
        }
        return out
    }

    static func generatedBytes(_ options: SimulationOptions, threads: Int = 0) -> (events: [UInt8], truth: [UInt8], summary: SimulationSummary) {
        var events: [UInt8] = []
        var truth: [UInt8] = []
        let summary = DatasetGenerator.generate(options, threads: threads, events: { (b: [UInt8]) throws(Never) in events += b },
                                                truth: { (b: [UInt8]) throws(Never) in truth += b })
        return (events, truth, summary)
    }

    /// Mean of `value` over entries, or 0 for none.
    static func mean(_ entries: [GroundTruthEntry], _ value: (GroundTruthEntry) -> Double) -> Double {
        entries.isEmpty ? 0 : entries.map(value).reduce(0, +) / Double(entries.count)
    }
}

@Suite struct SimulationDeterminismTests {
    @Test(arguments: Persona.allCases)
    func sameSeedGivesIdenticalBytes(persona: Persona) throws {
        let options = try SimulationOptions(persona: persona, days: 9, users: 2, seed: 42)
        let a = SimulationFixtures.generatedBytes(options), b = SimulationFixtures.generatedBytes(options)
        #expect(a.events == b.events)
        #expect(a.truth == b.truth)
        #expect(a.summary.events > 1000)
    }

    @Test(arguments: Persona.allCases)
    func differentSeedsDiffer(persona: Persona) throws {
        let a = SimulationFixtures.generatedBytes(try SimulationOptions(persona: persona, days: 3, users: 1, seed: 1))
        let b = SimulationFixtures.generatedBytes(try SimulationOptions(persona: persona, days: 3, users: 1, seed: 2))
        #expect(a.events != b.events)
        #expect(a.truth != b.truth)
    }

    /// Two seeds are two populations: no person of one is a person of the other under another
    /// user index (the seeds of a protocol's tuning and report sets must hold different people).
    @Test(arguments: Persona.allCases)
    func noPersonOfOneSeedIsAPersonOfAnother(persona: Persona) {
        func fingerprints(seed: UInt64) -> [[String]] {
            (0..<8).map { u in
                var sim = UserSimulator(persona: persona, userIndex: u, userName: "p", seed: seed,
                                        startDay: SimulationOptions.defaultStartDay, days: 1)
                return sim.nextDay()?.events.compactMap { e -> String? in
                    if case .appLaunch(let app) = e.payload { return app + "@" + e.time.rfc3339 }
                    return nil
                } ?? []
            }
        }
        let people = fingerprints(seed: 1) + fingerprints(seed: 2) + fingerprints(seed: 3)
        #expect(Set(people).count == people.count, "\(people.count - Set(people).count) people repeated across seeds 1, 2 and 3")
    }

    @Test func outputIsTheSameForAnyNumberOfThreads() throws {
        let options = try SimulationOptions(persona: .traveler, days: 6, users: 5, seed: 12)
        let one = SimulationFixtures.generatedBytes(options, threads: 1), three = SimulationFixtures.generatedBytes(options, threads: 3)
        #expect(one.events == three.events)
        #expect(one.truth == three.truth)
        #expect(one.summary == three.summary)  // one thread streams day by day, three hold users in memory
    }

    @Test func aUsersDataDoesNotDependOnHowManyUsersAreGenerated() throws {
        let one = SimulationFixtures.generatedBytes(try SimulationOptions(persona: .student, days: 4, users: 1, seed: 5))
        let three = SimulationFixtures.generatedBytes(try SimulationOptions(persona: .student, days: 4, users: 3, seed: 5))
        #expect(three.events.starts(with: one.events))
        #expect(three.truth.starts(with: one.truth))
    }

    @Test func usersOfOnePersonaDiffer() {
        let a = SimulationFixtures.simulate(.commuter, days: 3, user: 0), b = SimulationFixtures.simulate(.commuter, days: 3, user: 1)
        #expect(a.events.map(\.payload) != b.events.map(\.payload))
    }
}

@Suite struct SimulationOutputTests {
    @Test(arguments: Persona.allCases)
    func everyLineIsValidJSONLThatReadsBackAsTheSameEvents(persona: Persona) throws {
        let options = try SimulationOptions(persona: persona, days: 8, users: 2, seed: 3)
        let (bytes, _, summary) = SimulationFixtures.generatedBytes(options)
        var reader = JSONLReader(bytes: bytes, name: "generated")
        var read: [Event] = []
        while let e = try reader.next() { read.append(e) }
        let expected = (0..<2).flatMap { u in
            var sim = UserSimulator(persona: persona, userIndex: u, userName: options.userName(u), seed: 3,
                                    startDay: options.startDay, days: 8)
            var all: [Event] = []
            while let d = sim.nextDay() { all += d.events }
            return all
        }
        #expect(read.count == summary.events)
        #expect(read == expected)
    }

    @Test(arguments: Persona.allCases)
    func eventsAreInTimeOrderWithUniqueIdsAndStacksFirst(persona: Persona) {
        let user = SimulationFixtures.simulate(persona, days: 21, seed: 9)
        #expect(user.events.first?.type == .stackConfig)
        var ids = Set<String>()
        for (a, b) in zip(user.events, user.events.dropFirst()) {
            #expect(a.time.nanosecondsSinceEpoch <= b.time.nanosecondsSinceEpoch)
        }
        for e in user.events { ids.insert(e.id ?? "") }
        #expect(ids.count == user.events.count)
        let types = Set(user.events.map(\.type))
        // Every persona but the structureless one has widgets that donate relevance hints.
        let hinted: [EventType] = persona == .structureless ? [] : [.relevance]
        for t: EventType in [.stackConfig, .appLaunch, .widgetImpression, .widgetTap, .widgetSwipe, .screenOn,
                             .location, .place, .context] + hinted {
            #expect(types.contains(t), "\(persona) has no \(t.rawValue) events")
        }
        let inaccurate = user.events.filter { if case .location(_, _, let acc?) = $0.payload { return acc > 300 }; return false }
        #expect(!inaccurate.isEmpty)
    }

    @Test(arguments: Persona.allCases)
    func truthHasOneLinePerScreenOnAndStackAndAgreesWithTheEvents(persona: Persona) {
        let user = SimulationFixtures.simulate(persona, days: 14, seed: 11)
        var stacks: [String: [WidgetConfig]] = [:]
        var truthIndex = 0
        var screens = 0
        for (i, e) in user.events.enumerated() {
            if case .stackConfig(let s, let w) = e.payload { stacks[s] = w }
            guard e.type == .screenOn else { continue }
            screens += 1
            let lines = user.truth[truthIndex..<truthIndex + stacks.count]
            truthIndex += stacks.count
            #expect(Set(lines.map(\.stack)) == Set(stacks.keys))
            // What happened in the 10 minutes after the screen_on, up to the next one (as the
            // evaluator attributes: the sequence-driven worker's sessions are minutes apart).
            let window = user.events[(i + 1)...].prefix { $0.time.seconds(since: e.time) <= 600 && $0.type != .screenOn }
            for line in lines {
                #expect(line.time == e.time)
                let widgets = stacks[line.stack]!
                #expect(line.distribution.map(\.widget) == widgets.map(\.id))
                let total = line.distribution.map(\.probability).reduce(0, +)
                #expect(total <= 1.0005 && total > 0)
                let impression = window.first {
                    if case .widgetImpression(let s, _, _, _) = $0.payload { return s == line.stack }; return false
                }
                guard case .widgetImpression(_, let shown, let p?, let policy?)? = impression?.payload else {
                    Issue.record("no impression for stack \(line.stack) at \(e.time.rfc3339)"); continue
                }
                #expect(impression?.time == e.time)
                #expect(shown == line.shown && p > 0 && p <= 1 && policy == UserSimulator.loggingPolicyName)
                let engagedHere = window.compactMap { ev -> String? in
                    switch ev.payload {
                    case .widgetTap(let w, _): return widgets.contains { $0.id == w } ? w : nil
                    case .appLaunch(let app): return widgets.first { $0.app == app }?.id
                    default: return nil
                    }
                }
                #expect(engagedHere.first == line.engaged, "\(line.user) \(line.stack) \(line.time.rfc3339)")
            }
        }
        #expect(truthIndex == user.truth.count)
        #expect(screens > 14 * 25)
    }

    @Test func engagementIsMoreLikelyForTheWidgetShown() {
        var shownEngaged = 0, shownTotal = 0, otherEngaged = 0, otherTotal = 0
        for u in 0..<3 {
            for line in SimulationFixtures.simulate(.commuter, days: 28, seed: 4, user: u).truth {
                for p in line.intent ?? [] where p.probability > 0.15 {
                    if p.widget == line.shown { shownTotal += 1; shownEngaged += line.engaged == p.widget ? 1 : 0 }
                    else { otherTotal += 1; otherEngaged += line.engaged == p.widget ? 1 : 0 }
                }
            }
        }
        let shownRate = Double(shownEngaged) / Double(shownTotal), otherRate = Double(otherEngaged) / Double(otherTotal)
        #expect(shownRate > otherRate * 1.1, "shown \(shownRate) vs not shown \(otherRate)")
    }

    @Test func realizedEngagementMatchesTheTrueProbabilities() {
        // Calibration: summed probability of the engaged widgets ≈ observed engagements.
        var expected = 0.0, observed = 0.0
        for u in 0..<2 {
            for line in SimulationFixtures.simulate(.student, days: 28, seed: 8, user: u).truth {
                expected += line.distribution.map(\.probability).reduce(0, +)
                observed += line.engaged == nil ? 0 : 1
            }
        }
        #expect(abs(observed - expected) / expected < 0.05, "observed \(observed), expected \(expected)")
    }
}

@Suite struct SimulationPersonaTests {
    @Test func commuterLooksAtTheCalendarBeforeWorkOnWeekdays() {
        var weekday: [GroundTruthEntry] = [], weekend: [GroundTruthEntry] = []
        for u in 0..<3 {
            for line in SimulationFixtures.simulate(.commuter, days: 14, seed: 2, user: u).truth
            where line.stack == "top" && line.time.localHour >= 6 && line.time.localHour < 9 {
                if line.time.isWeekend { weekend.append(line) } else { weekday.append(line) }
            }
        }
        let a = SimulationFixtures.mean(weekday) { $0.probability(of: "calendar") }, b = SimulationFixtures.mean(weekend) { $0.probability(of: "calendar") }
        #expect(!weekday.isEmpty && !weekend.isEmpty)
        #expect(a > 2 * b, "weekday \(a), weekend \(b)")
        // Maps peak on the commute, notes in the evening.
        let all = SimulationFixtures.simulate(.commuter, days: 7, seed: 2).truth.filter { $0.stack == "top" }
        let evening = all.filter { $0.time.localHour >= 20 && $0.time.localHour < 23 }
        let midday = all.filter { $0.time.localHour >= 11 && $0.time.localHour < 13 }
        #expect(SimulationFixtures.mean(evening) { $0.probability(of: "notes") } > SimulationFixtures.mean(midday) { $0.probability(of: "notes") })
        #expect(SimulationFixtures.mean(midday) { $0.probability(of: "weather") } > SimulationFixtures.mean(evening) { $0.probability(of: "weather") })
    }

    @Test func studentTimetableFollowsTheWeek() {
        let truth = SimulationFixtures.simulate(.student, days: 21, seed: 6).truth.filter { $0.stack == "main" }
        // Same weekday and hour in different weeks: the timetable repeats.
        func profile(week: Int) -> [Int: Double] {
            var sum: [Int: Double] = [:], count: [Int: Double] = [:]
            for e in truth where (e.time.localDayNumber - SimulationOptions.defaultStartDay) / 7 == week {
                let key = e.time.localWeekday * 24 + e.time.localHour
                sum[key, default: 0] += e.probability(of: "timetable"); count[key, default: 0] += 1
            }
            return sum.mapValues { $0 }.merging(count) { $0 / $1 }
        }
        let w0 = profile(week: 0), w1 = profile(week: 1)
        let keys = Set(w0.keys).intersection(w1.keys)
        let diff = keys.map { abs(w0[$0]! - w1[$0]!) }.reduce(0, +) / Double(keys.count)
        #expect(diff < 0.08, "timetable differs week to week by \(diff)")
        // Library hours stand out: its peak need is several times its average one.
        let library = truth.map { $0.probability(of: "library") }
        let peak = library.max() ?? 0, average = library.reduce(0, +) / Double(max(library.count, 1))
        #expect(peak > 3 * average, "library peaks at \(peak), averages \(average)")
    }

    /// Mean total-variation distance between the truth of the same (weekday, hour) in two
    /// consecutive weeks.
    func weekToWeekDistance(_ persona: Persona) -> Double {
        var total = 0.0, n = 0.0
        for u in 0..<3 {
            let truth = SimulationFixtures.simulate(persona, days: 28, seed: 3, user: u).truth.filter { $0.stack == "main" || $0.stack == "top" }
            var byBin: [Int: [String: Double]] = [:], counts: [Int: Double] = [:]
            for e in truth {
                let week = (e.time.localDayNumber - SimulationOptions.defaultStartDay) / 7
                let bin = (week * 7 + e.time.localWeekday) * 24 + e.time.localHour
                counts[bin, default: 0] += 1
                for p in e.distribution { byBin[bin, default: [:]][p.widget, default: 0] += p.probability }
            }
            for (bin, dist) in byBin {
                guard let next = byBin[bin + 7 * 24] else { continue }
                let c0 = counts[bin]!, c1 = counts[bin + 7 * 24]!
                let keys = Set(dist.keys).union(next.keys)
                total += keys.map { abs((dist[$0] ?? 0) / c0 - (next[$0] ?? 0) / c1) }.reduce(0, +) / 2
                n += 1
            }
        }
        return total / n
    }

    @Test func shiftworkerIsNotWeekPeriodic() {
        let shift = weekToWeekDistance(.shiftworker), commuter = weekToWeekDistance(.commuter)
        #expect(shift > 1.5 * commuter, "shiftworker \(shift) vs commuter \(commuter)")
        // The hospital at 10:00 on day d and d+7: often not the same.
        let events = SimulationFixtures.simulate(.shiftworker, days: 28, seed: 3).events
        var atWork: [Int: Bool] = [:]
        var current = ""
        for e in events {
            if case .place(let p) = e.payload { current = p }
            if e.time.localHour == 10 { atWork[e.time.localDayNumber] = current == "hospital" }
        }
        let days = atWork.keys.sorted()
        let differing = days.filter { d in atWork[d + 7].map { $0 != atWork[d]! } ?? false }.count
        #expect(differing >= 4)
    }

    @Test func travelerChangesUTCOffsetAndVisitsNewPlaces() {
        let user = SimulationFixtures.simulate(.traveler, days: 21, seed: 5)
        var offsets: [Int32] = []
        for e in user.events where offsets.last != e.time.utcOffsetSeconds { offsets.append(e.time.utcOffsetSeconds) }
        #expect(offsets == [-28_800, 3600, -28_800])
        let places = user.events.compactMap { if case .place(let p) = $0.payload { return p }; return nil }
        #expect(places.contains { $0.hasPrefix("restaurant-") })
        #expect(places.contains("hotel") && places.contains("home"))
        // Abroad, translate gets real mass; at home it has none.
        let abroad = user.truth.filter { $0.time.utcOffsetSeconds == 3600 && $0.stack == "travel" }
        let home = user.truth.filter { $0.time.utcOffsetSeconds != 3600 && $0.stack == "travel" }
        func intent(_ e: GroundTruthEntry, _ w: String) -> Double { e.intent?.first { $0.widget == w }?.probability ?? 0 }
        #expect(SimulationFixtures.mean(abroad) { intent($0, "translate") } > 5 * SimulationFixtures.mean(home) { intent($0, "translate") })
        // Offset-aware local time still reads as a day: sessions happen in local daytime abroad.
        #expect(abroad.allSatisfy { $0.time.localHour >= 6 })
    }

    @Test func travelerWithTooFewDaysStaysHome() {
        let user = SimulationFixtures.simulate(.traveler, days: 4, seed: 5)
        #expect(Set(user.events.map(\.time.utcOffsetSeconds)) == [-28_800])
    }

    @Test func driftChangesTheRoutineForGood() {
        let user = SimulationFixtures.simulate(.drift, days: 28, seed: 7)
        let configs = user.events.filter { $0.type == .stackConfig }
        #expect(configs.count == 3)  // two stacks at the start, then the second again with "language"
        guard let change = configs.last?.time else { return }
        let mornings = user.truth.filter { $0.stack == "main" && !$0.time.isWeekend && (7..<10).contains($0.time.localHour) }
        let before = mornings.filter { $0.time < change }, after = mornings.filter { $0.time >= change }
        #expect(!before.isEmpty && !after.isEmpty)
        func intent(_ e: GroundTruthEntry, _ w: String) -> Double { e.intent?.first { $0.widget == w }?.probability ?? 0 }
        let commuteBefore = before.filter { $0.time.localHour == 8 }, commuteAfter = after.filter { $0.time.localHour == 8 }
        #expect(SimulationFixtures.mean(commuteBefore) { intent($0, "podcasts") } > 5 * SimulationFixtures.mean(commuteAfter) { intent($0, "podcasts") })
        let early = { (e: GroundTruthEntry) in e.time.localHour == 7 }
        #expect(SimulationFixtures.mean(after.filter(early)) { intent($0, "news") } > 2 * SimulationFixtures.mean(before.filter(early)) { intent($0, "news") })
        let widgets = ["calendar", "podcasts", "news", "music", "books", "maps"]
        func tv(_ a: [GroundTruthEntry], _ b: [GroundTruthEntry]) -> Double {
            widgets.map { w in abs(SimulationFixtures.mean(a) { intent($0, w) } - SimulationFixtures.mean(b) { intent($0, w) }) }.reduce(0, +) / 2
        }
        // The change is much larger than the week-to-week variation before it.
        let half = before.count / 2
        let shift = tv(before, after), within = tv(Array(before[..<half]), Array(before[half...]))
        #expect(shift > 3 * within, "before/after \(shift) vs within before \(within)")
        let second = user.truth.filter { $0.stack == "second" }
        #expect(second.filter { $0.time < change }.allSatisfy { $0.distribution.count == 4 })
        #expect(second.filter { $0.time >= change }.allSatisfy { $0.distribution.count == 5 })
    }
}
