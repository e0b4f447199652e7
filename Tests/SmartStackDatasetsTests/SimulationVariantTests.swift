import Testing
import SmartStack
@testable import SmartStackDatasets

/// Helpers for the variant tests.
enum VariantFixtures {
    static func variant(location: LocationReporting = .dense, screenOn: Bool = true, stackSize: Int? = nil) -> SimulationVariant {
        var v = SimulationVariant()
        v.location = location
        v.recordsScreenOn = screenOn
        v.stackSize = stackSize
        return v
    }

    static func simulate(_ persona: Persona, days: Int, seed: UInt64 = 1, user: Int = 0,
                         _ variant: SimulationVariant) -> SimulationFixtures.Run {
        var sim = UserSimulator(persona: persona, userIndex: user, userName: "\(persona.rawValue)-\(user)",
                                seed: seed, startDay: SimulationOptions.defaultStartDay, days: days, variant: variant)
        var out = SimulationFixtures.Run(events: [], truth: [])
        while let day = sim.nextDay() {
            out.events += day.events
            out.truth += day.truth
        }
        return out
    }

    /// The apps launched, in order, with their instants: what the person did.
    static func launches(_ events: [Event]) -> [String] {
        events.compactMap { if case .appLaunch(let app) = $0.payload { return app + "@" + $0.time.rfc3339 }; return nil }
    }

    static func isMotion(_ e: Event) -> String? {
        if case .context("motion", let value) = e.payload { return value }
        return nil
    }
}

@Suite struct SimulationVariantTests {
    @Test(arguments: [Persona.commuter, .shiftworker, .traveler, .sequence])
    func recordingModesChangeWhatIsWrittenNotWhatThePersonDoes(persona: Persona) {
        let dense = VariantFixtures.simulate(persona, days: 10, seed: 4, .init())
        let expected = VariantFixtures.launches(dense.events)
        for location in LocationReporting.allCases {
            let run = VariantFixtures.simulate(persona, days: 10, seed: 4, VariantFixtures.variant(location: location))
            #expect(VariantFixtures.launches(run.events) == expected, "\(location)")
            #expect(run.truth == dense.truth, "\(location)")
        }
        let quiet = VariantFixtures.simulate(persona, days: 10, seed: 4, VariantFixtures.variant(screenOn: false))
        #expect(VariantFixtures.launches(quiet.events) == expected)
    }

    @Test func theDefaultVariantIsThePersonaAsItAlwaysWas() throws {
        let plain = SimulationFixtures.generatedBytes(try SimulationOptions(persona: .drift, days: 6, users: 2, seed: 3))
        let explicit = SimulationFixtures.generatedBytes(try SimulationOptions(persona: .drift, days: 6, users: 2, seed: 3,
                                                                               variant: SimulationVariant()))
        #expect(plain.events == explicit.events && plain.truth == explicit.truth)
        #expect(SimulationVariant().description == "default" && SimulationVariant().isDefault)
    }

    @Test(arguments: [LocationReporting.changeOnly, .visits, .geofence, .none, .dense])
    func everyVariantIsReproducible(location: LocationReporting) throws {
        let variant = VariantFixtures.variant(location: location, screenOn: location != .visits, stackSize: location == .none ? 12 : nil)
        let options = try SimulationOptions(persona: .traveler, days: 9, users: 2, seed: 21, variant: variant)
        let a = SimulationFixtures.generatedBytes(options), b = SimulationFixtures.generatedBytes(options, threads: 1)
        #expect(a.events == b.events && a.truth == b.truth)
        var other = options
        other.seed = 22
        #expect(SimulationFixtures.generatedBytes(other).events != a.events)
    }

    /// Splits a user's events into stays: from each `motion=stationary` (an arrival after moving)
    /// to the next movement; fixes in them, and fixes outside any stay.
    func stays(_ events: [Event]) -> (stays: [(start: Int64, end: Int64, fixes: [Int64])], outside: [(Int64, Int64?)]) {
        var stays: [(start: Int64, end: Int64, fixes: [Int64])] = []
        var outside: [(Int64, Int64?)] = []  // (fix instant, start of the movement it follows)
        var current: (start: Int64, fixes: [Int64])?
        var movedAt: Int64?
        for e in events {
            let t = e.time.nanosecondsSinceEpoch
            if let motion = VariantFixtures.isMotion(e) {
                if motion == "stationary" {
                    current = (t, [])
                } else {
                    if let c = current { stays.append((c.start, t, c.fixes)) }
                    current = nil
                    movedAt = t
                }
            }
            if case .location = e.payload {
                if current != nil { current!.fixes.append(t) } else { outside.append((t, movedAt)) }
            }
        }
        if let c = current { stays.append((c.start, .max, c.fixes)) }  // still there when the data ends
        return (stays, outside)
    }

    @Test(arguments: [Persona.commuter, .student, .shiftworker, .traveler, .drift, .sequence])
    func changeOnlyReportsExactlyOneFixPerArrivalAndNoneWhileStaying(persona: Persona) {
        let run = VariantFixtures.simulate(persona, days: 21, seed: 6, VariantFixtures.variant(location: .changeOnly))
        #expect(!run.events.contains { $0.type == .place })
        let (stays, outside) = stays(run.events)
        #expect(stays.count > 21)
        for stay in stays {
            #expect(stay.fixes.count <= 1)
            // Detected 1-10 minutes after arriving, so every stay longer than that has its fix.
            if stay.end - stay.start > 610_000_000_000 { #expect(stay.fixes.count == 1) }
            for f in stay.fixes { #expect(f - stay.start >= 60_000_000_000 && f - stay.start <= 601_000_000_000) }
        }
        // The only fix outside a stay is the first one, before the person first moves.
        #expect(outside.count == 1 && outside.first?.1 == nil)
        let fixes = run.events.compactMap { e -> Double? in if case .location(_, _, let a?) = e.payload { return a }; return nil }
        #expect(fixes.count == stays.filter { !$0.fixes.isEmpty }.count + 1)
        // Realistic accuracy: mostly usable (under the engine's 250 m), some far too coarse.
        let usable = Double(fixes.filter { $0 <= 250 }.count) / Double(fixes.count)
        #expect(usable > 0.6 && usable < 0.95, "usable share \(usable)")
    }

    @Test func visitsAddOneFixPerDepartureAtThePlaceLeft() {
        let run = VariantFixtures.simulate(.commuter, days: 14, seed: 2, VariantFixtures.variant(location: .visits))
        let changeOnly = VariantFixtures.simulate(.commuter, days: 14, seed: 2, VariantFixtures.variant(location: .changeOnly))
        let (stays, outside) = stays(run.events)
        for stay in stays { #expect(stay.fixes.count <= 1) }
        let departures = outside.dropFirst()
        #expect(departures.count > 14)
        for (fix, moved) in departures {
            guard let moved else { Issue.record("a fix before any movement besides the first"); continue }
            #expect(fix - moved >= 0 && fix - moved <= 240_000_000_000)
        }
        let count = { (r: SimulationFixtures.Run) in r.events.filter { $0.type == .location }.count }
        #expect(count(run) > count(changeOnly))
    }

    @Test func geofenceNamesEveryArrivalAndNoneWritesNoLocation() {
        let geofence = VariantFixtures.simulate(.student, days: 7, seed: 3, VariantFixtures.variant(location: .geofence))
        let dense = VariantFixtures.simulate(.student, days: 7, seed: 3, .init())
        #expect(!geofence.events.contains { $0.type == .location })
        let named = geofence.events.filter { $0.type == .place }.count
        #expect(named > dense.events.filter { $0.type == .place }.count)  // dense names ~85% of arrivals
        let arrivals = geofence.events.filter { VariantFixtures.isMotion($0) == "stationary" }.count
        #expect(named == arrivals + 1)  // plus where the person starts
        let none = VariantFixtures.simulate(.student, days: 7, seed: 3, VariantFixtures.variant(location: .none))
        #expect(!none.events.contains { $0.type == .location || $0.type == .place })
    }

    @Test(arguments: [Persona.commuter, .drift, .sequence])
    func withoutScreenOnTheTruthIsGivenAtEveryLaunchDecisionPoint(persona: Persona) {
        let run = VariantFixtures.simulate(persona, days: 14, seed: 8, VariantFixtures.variant(screenOn: false))
        let forbidden: Set<EventType> = [.screenOn, .widgetImpression, .widgetTap, .widgetSwipe]
        #expect(!run.events.contains { forbidden.contains($0.type) })
        var stacks: [String: [WidgetConfig]] = [:]
        var previousApp: String?
        var truth = run.truth[...]
        var decisions = 0
        for e in run.events {
            if case .stackConfig(let s, let w) = e.payload { stacks[s] = w }
            guard case .appLaunch(let app) = e.payload else { continue }
            defer { previousApp = app }
            guard let engaged = stacks.first(where: { $0.value.contains { $0.app == app } }) else { continue }
            let lines = truth.prefix(stacks.count)
            truth = truth.dropFirst(stacks.count)
            guard app != previousApp else { continue }  // the evaluator merges a repeat: no decision point
            decisions += 1
            #expect(Set(lines.map(\.stack)) == Set(stacks.keys))
            for line in lines {
                #expect(line.time == e.time)
                let total = line.distribution.map(\.probability).reduce(0, +)
                if line.stack == engaged.key {
                    let widget = engaged.value.first { $0.app == app }!.id
                    #expect(line.engaged == widget)
                    #expect(abs(total - 1) < 0.002 && line.probability(of: widget) > 0)
                } else {
                    #expect(line.engaged == nil && total == 0)
                }
            }
        }
        #expect(truth.isEmpty)
        #expect(decisions > 14 * 10)
    }

    @Test(arguments: [(Persona.commuter, 3), (.commuter, 12), (.drift, 12), (.student, 16), (.sequence, 2)])
    func stackSizeGivesOneStackOfThatManyWidgets(persona: Persona, size: Int) {
        let run = VariantFixtures.simulate(persona, days: 28, seed: 5, VariantFixtures.variant(stackSize: size))
        let configs = run.events.compactMap { e -> (String, [WidgetConfig])? in
            if case .stackConfig(let s, let w) = e.payload { return (s, w) }; return nil
        }
        #expect(!configs.isEmpty && configs.allSatisfy { $0.0 == "home" && $0.1.count == size })
        #expect(Set(run.truth.map(\.stack)) == ["home"])
        // The person's own first widgets lead the stack, in their order.
        let own = VariantFixtures.simulate(persona, days: 1, seed: 5, .init()).events.compactMap { e -> [WidgetConfig]? in
            if case .stackConfig(_, let w) = e.payload { return w }; return nil
        }.flatMap { $0 }
        #expect(Array(configs[0].1.prefix(min(size, own.count))) == Array(own.prefix(size)))
        // Every widget of the stack is engaged at some point: none is dead weight.
        let widgets = Set(configs.flatMap { $0.1.map(\.id) })
        let engaged = Set(run.truth.compactMap(\.engaged))
        if configs.count == 1 { #expect(engaged == widgets) }
        let leftOut = Set(own.compactMap(\.app)).subtracting(configs.flatMap { $0.1.compactMap(\.app) })
        let direct = run.events.filter { if case .appLaunch(let a) = $0.payload { return leftOut.contains(a) }; return false }
        #expect(direct.isEmpty == leftOut.isEmpty, "needs for widgets left out open their apps directly")
    }

    @Test func extraWidgetsFollowHabitsOfTheirOwn() {
        var home: [GroundTruthEntry] = []
        for u in 0..<3 { home += VariantFixtures.simulate(.commuter, days: 14, seed: 7, user: u, VariantFixtures.variant(stackSize: 16)).truth }
        func intent(_ e: GroundTruthEntry, _ w: String) -> Double { e.intent?.first { $0.widget == w }?.probability ?? 0 }
        let evening = home.filter { (19..<22).contains($0.time.localHour) }, midday = home.filter { (11..<14).contains($0.time.localHour) }
        #expect(SimulationFixtures.mean(evening) { intent($0, "tvguide") } > 3 * SimulationFixtures.mean(midday) { intent($0, "tvguide") })
        for w in ResizedStackModel.extraNames {
            #expect(home.contains { intent($0, w) > 0.1 }, "\(w) never matters")
        }
    }

    @Test func truthStaysConsistentWithTheEventsInEveryStackLayout() {
        for size in [3, 12] {
            let run = VariantFixtures.simulate(.shiftworker, days: 10, seed: 12, VariantFixtures.variant(location: .changeOnly, stackSize: size))
            let screens = run.events.filter { $0.type == .screenOn }
            #expect(run.truth.count == screens.count)
            for (line, screen) in zip(run.truth, screens) {
                #expect(line.time == screen.time)
                let total = line.distribution.map(\.probability).reduce(0, +)
                #expect(total > 0 && total <= 1.0005)
                // Intent plus the display's lift gives the distribution, widget by widget.
                for (d, i) in zip(line.distribution, line.intent ?? []) { #expect(d.probability >= i.probability - 0.0001) }
            }
        }
    }
}

@Suite struct NewPersonaTests {
    @Test func theSequenceWorkersNextNeedFollowsTheLastTwoEngagements() {
        var afterDashboardTickets: [String: Int] = [:], afterOtherTickets: [String: Int] = [:]
        var gaps: [Double] = []
        for u in 0..<3 {
            let truth = SimulationFixtures.simulate(.sequence, days: 14, seed: 3, user: u).truth
            let engaged = truth.filter { $0.engaged != nil }
            for (a, (b, c)) in zip(engaged, zip(engaged.dropFirst(), engaged.dropFirst(2))) {
                let minutes = c.time.seconds(since: b.time) / 60
                guard b.engaged == "tickets", minutes < 8 else { continue }
                if a.engaged == "dashboard" {
                    afterDashboardTickets[c.engaged!, default: 0] += 1
                } else {
                    afterOtherTickets[c.engaged!, default: 0] += 1
                }
            }
            let screens = SimulationFixtures.simulate(.sequence, days: 3, seed: 3, user: u).events.filter { $0.type == .screenOn }
            gaps += zip(screens, screens.dropFirst()).map { $1.time.seconds(since: $0.time) / 60 }
        }
        func share(_ counts: [String: Int], _ w: String) -> Double { Double(counts[w, default: 0]) / Double(max(1, counts.values.reduce(0, +))) }
        #expect(share(afterDashboardTickets, "chat") > 0.5, "\(afterDashboardTickets)")
        #expect(share(afterOtherTickets, "docs") > 0.5, "\(afterOtherTickets)")
        #expect(share(afterOtherTickets, "chat") < 0.2)
        // Needs change every few minutes: at work, sessions are minutes apart, never closer than 2.5.
        #expect(gaps.min()! >= 2.5)
        #expect(gaps.sorted()[gaps.count / 2] < 8)
    }

    @Test func theStructurelessPersonsUseIgnoresTimePlaceAndSequence() {
        let user = SimulationFixtures.simulate(.structureless, days: 14, seed: 4)
        #expect(!user.events.contains { $0.type == .relevance })
        // Intent, normalised over each stack, is the same at every decision point.
        var reference: [String: [String: Double]] = [:]
        for line in user.truth {
            let intent = line.intent ?? []
            let total = intent.map(\.probability).reduce(0, +)
            guard total > 0.05 else { continue }
            let shares = Dictionary(uniqueKeysWithValues: intent.map { ($0.widget, $0.probability / total) })
            if let first = reference[line.stack] {
                for (w, p) in shares { #expect(abs(p - first[w, default: -1]) < 0.005) }
            } else {
                reference[line.stack] = shares
            }
        }
        #expect(reference.count == 2)
    }

    @Test func aCohortIsADifferentPersonForEachUser() throws {
        let options = try SimulationOptions(persona: .cohort, days: 1, users: 6, seed: 1)
        var stacks: [[String]] = []
        for u in 0..<6 {
            var sim = UserSimulator(persona: .cohort, userIndex: u, userName: options.userName(u), seed: 1,
                                    startDay: options.startDay, days: 1)
            let day = sim.nextDay()!
            stacks.append(day.events.compactMap { if case .stackConfig(let s, _) = $0.payload { return s }; return nil })
            #expect(day.events.allSatisfy { $0.user == "cohort-0\(u)" })
            #expect(day.truth.count > 20)
        }
        #expect(stacks == [["top", "bottom"], ["main", "life"], ["main", "care"], ["work", "more"], ["top", "bottom"], ["main", "second"]])
    }
}
