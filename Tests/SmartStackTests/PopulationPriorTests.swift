import Foundation
import Testing
@testable import SmartStack

/// Priors built in code: each widget or app with a rate and lifts in given weekday hours (1 and
/// withheld cells elsewhere), optionally at a kind of place.
enum PriorFixture {
    /// An entry whose weekday lifts are `weekday[hour]`, `nil` (withheld) in other weekday
    /// hours, 1 on weekend days; at kind of place `k`, `atPlace[hour]`.
    static func entry(_ id: String, kind: PopulationPrior.Entry.Kind = .widget, app: String? = nil, rate: Double = 3,
                      weekday: [Int: Double] = [:], placeKinds: Int = 0, atPlace: (kind: Int, lifts: [Int: Double])? = nil)
        -> PopulationPrior.Entry {
        var places = [[[Double?]]?](repeating: nil, count: placeKinds)
        if let atPlace {
            places[atPlace.kind] = [(0..<24).map { atPlace.lifts[$0] }, [Double?](repeating: nil, count: 24)]
        }
        return PopulationPrior.Entry(
            kind: kind, id: id, app: app, people: 20, rate: rate, days: [1, 1], parts: [[1, 1, 1, 1], [1, 1, 1, 1]],
            hours: [(0..<24).map { weekday[$0] }, [Double?](repeating: 1, count: 24)], places: places)
    }

    static func prior(_ entries: [PopulationPrior.Entry], placeKinds: [String] = []) throws -> PopulationPrior {
        try PopulationPrior(placeKinds: placeKinds, minimumPeople: 5, people: 40, shrinkage: 5, entries: entries)
    }

    /// People use `weather` fifty times more than the average engagement between 08:00 and 09:00
    /// on weekdays, `calendar` as much at every hour, both as often overall.
    static func morningWeather() throws -> PopulationPrior {
        try prior([entry("weather", weekday: [8: 50]), entry("calendar", weekday: [8: 1])])
    }

    /// A person with stack home = calendar, weather, music configured on Monday at midnight.
    static func home() -> Script {
        var s = Script()
        s.configure("home", ["calendar", "weather", "music"])
        return s
    }

    static func engine(_ script: Script, policy: String = "contextual", prior: PopulationPrior?) throws -> UserEngine {
        let e = try UserEngine(user: "u", policy: PolicySpec(parsing: policy), prior: prior)
        for event in script.events.sorted(by: { $0.time < $1.time }) { e.record(event) }
        return e
    }
}

@Suite struct PopulationPriorTests {
    // MARK: The engine with a prior

    @Test func aColdStackFollowsThePriorAndSaysSo() throws {
        let at = Script.time(day: 0, 8, 5)
        let with = try PriorFixture.engine(PriorFixture.home(), prior: PriorFixture.morningWeather()).ranking(stack: "home", at: at)
        #expect(with.top == "weather")
        let reason = try #require(with.widgets.first?.reasons.first)
        #expect(reason.text == "people like you often use it between 08:00 and 09:00 on weekdays (the population prior put it on top)")
        #expect(reason.contribution > 0)
        let without = try PriorFixture.engine(PriorFixture.home(), prior: nil).ranking(stack: "home", at: at)
        #expect(without.top == "calendar")   // the configured order
        #expect(!without.widgets.flatMap(\.reasons).contains { $0.text.contains("people like you") })
        // Outside the prior's hour, it decides nothing.
        let evening = try PriorFixture.engine(PriorFixture.home(), prior: PriorFixture.morningWeather())
            .ranking(stack: "home", at: Script.time(day: 0, 19))
        #expect(evening.top == "calendar")
    }

    @Test func thePersonsOwnEvidenceTakesOverAfterAHandfulOfEngagements() throws {
        let prior = try PriorFixture.morningWeather()
        var script = PriorFixture.home()
        var pullOnCalendar: [Double] = []
        var tops: [String?] = []
        for day in 0..<6 {
            let ranking = try PriorFixture.engine(script, prior: prior).ranking(stack: "home", at: Script.time(day: day, 8, 5))
            tops.append(ranking.top)
            let calendar = try #require(ranking.widget("calendar"))
            pullOnCalendar.append(calendar.reasons.first { $0.text.hasPrefix("people like you") }?.contribution ?? 0)
            script.launch("calendar", Script.time(day: day, 8, 10))   // this person opens the calendar at 08:10
        }
        // The prior decides the first morning; the person's own mornings outweigh it.
        #expect(tops.first == "weather")
        #expect(tops.dropFirst(2).allSatisfy { $0 == "calendar" })
        // The prior holds the calendar back less with every morning of the person's own (the
        // population uses weather then): its pull fades.
        #expect(pullOnCalendar.allSatisfy { $0 <= 0 })
        #expect(zip(pullOnCalendar, pullOnCalendar.dropFirst()).allSatisfy { abs($0) > abs($1) || $1 == 0 })
        #expect(abs(pullOnCalendar.last!) < abs(pullOnCalendar.first!) / 2)
    }

    @Test func thePersonsOwnMajorityAroundATimeOutweighsThePopulations() throws {
        // The population uses weather at 08:00; this person opens the calendar on 12 mornings and
        // weather on 8 of them. Early on the prior tips the balance; then their own majority
        // rules, as the population's share of the time of day fades with their own evidence
        // there. (The model alone, fixed weights: the learned weights would hide the smoothing.)
        let prior = try PriorFixture.morningWeather()
        var script = PriorFixture.home()
        var tops: [String?] = []
        for day in 0..<13 {
            let engine = try PriorFixture.engine(script, policy: "contextual:learning_rate=0,mixture=0", prior: prior)
            tops.append(try engine.ranking(stack: "home", at: Script.time(day: day, 8, 2)).top)
            if day < 12 { script.launch("calendar", Script.time(day: day, 8, 5)) }
            if day < 8 { script.launch("weather", Script.time(day: day, 8, 7)) }
        }
        #expect(tops.prefix(2) == ["weather", "weather"])
        #expect(tops.suffix(4) == ["calendar", "calendar", "calendar", "calendar"])   // days 9-12
    }

    /// A realistic few days of a person: launches, taps, places, contexts.
    static func busyWeek() -> Script {
        var s = PriorFixture.home()
        s.configure("work", ["mail", "notes"])
        for day in 0..<5 {
            s.add(Script.time(day: day, 7, 30), .place("home"))
            s.launch("calendar", Script.time(day: day, 7, 45))
            s.add(Script.time(day: day, 8, 50), .place("work"))
            s.launch("mail", Script.time(day: day, 9, 5))
            s.add(Script.time(day: day, 9, 6), .context(key: "charging", value: day % 2 == 0 ? "true" : "false"))
            s.launch("notes", Script.time(day: day, 11, 30))
            s.add(Script.time(day: day, 12, 0), .screenOn)
            s.add(Script.time(day: day, 12, 1), .widgetTap(widget: "weather", stack: "home"))
            s.launch("music", Script.time(day: day, 18, 20))
        }
        return s
    }

    @Test(arguments: ["contextual", "bandit", "contextual:learning_rate=0"])
    func aPriorNamingNoneOfTheWidgetsOrWeightedZeroChangesNothing(policy: String) throws {
        let script = Self.busyWeek()
        // A prior naming none of the widgets, or only one of a stack's (it compares the widgets it
        // names among themselves), says nothing.
        let elsewhere = try PriorFixture.prior([PriorFixture.entry("podcasts", weekday: [8: 40]),
                                                PriorFixture.entry("org.example.podcasts", kind: .app, rate: 9),
                                                PriorFixture.entry("weather", rate: 9, weekday: [12: 30]),
                                                PriorFixture.entry("app.notes", kind: .app, rate: 0.1, weekday: [11: 30])])
        let plain = try PriorFixture.engine(script, policy: policy, prior: nil)
        let unrelated = try PriorFixture.engine(script, policy: policy, prior: elsewhere)
        let ignored = try PriorFixture.engine(script, policy: policy + (policy.contains(":") ? ",population=0" : ":population=0"),
                                              prior: PriorFixture.morningWeather())
        for day in 5..<7 {
            for hour in [8, 12, 19] {
                for stack in ["home", "work"] {
                    let at = Script.time(day: day, hour, 3)
                    let expected = try plain.ranking(stack: stack, at: at)
                    for other in [unrelated, ignored] {
                        let got = try other.ranking(stack: stack, at: at)
                        #expect(got.order == expected.order)
                        #expect(zip(got.widgets, expected.widgets).allSatisfy { $0.score.bitPattern == $1.score.bitPattern })
                        #expect(got.widgets.map(\.reasons) == expected.widgets.map(\.reasons))
                    }
                }
            }
        }
        #expect(unrelated.prior != nil && ignored.prior == nil)
    }

    @Test func aWidgetThePriorNamesOnlyByItsAppTakesTheApps() throws {
        // The widgets' apps are "app.<id>" (Script.configure).
        let byApp = try PriorFixture.prior([PriorFixture.entry("app.weather", kind: .app, weekday: [8: 50]),
                                            PriorFixture.entry("app.calendar", kind: .app, weekday: [8: 1])])
        let ranking = try PriorFixture.engine(PriorFixture.home(), prior: byApp).ranking(stack: "home", at: Script.time(day: 0, 8, 5))
        #expect(ranking.top == "weather")
        // A widget's own entry wins over its app's.
        let both = try PriorFixture.prior([PriorFixture.entry("app.weather", kind: .app, weekday: [8: 50]),
                                           PriorFixture.entry("weather", app: "app.weather", weekday: [8: 0.02]),
                                           PriorFixture.entry("calendar", weekday: [8: 1])])
        #expect(try PriorFixture.engine(PriorFixture.home(), prior: both).ranking(stack: "home", at: Script.time(day: 0, 8, 5)).top
                    == "calendar")
        // A withheld widget cell falls back to its coarser cells, then to its app.
        let withheld = try PriorFixture.prior([
            PriorFixture.entry("app.weather", kind: .app, weekday: [8: 50]),
            PriorFixture.entry("calendar", weekday: [8: 1]),
            PopulationPrior.Entry(kind: .widget, id: "weather", app: "app.weather", people: 20, rate: 3, days: [nil, nil],
                                  parts: [[nil, nil, nil, nil], [nil, nil, nil, nil]],
                                  hours: [[Double?](repeating: nil, count: 24), [Double?](repeating: nil, count: 24)], places: []),
        ])
        #expect(try PriorFixture.engine(PriorFixture.home(), prior: withheld).ranking(stack: "home", at: Script.time(day: 0, 8, 5)).top
                    == "weather")
    }

    @Test func aKindOfPlaceComesFromThePlaceLabel() throws {
        let prior = try PriorFixture.prior([PriorFixture.entry("weather", placeKinds: 1, atPlace: (0, [8: 50])),
                                            PriorFixture.entry("calendar", placeKinds: 1)], placeKinds: ["work"])
        let at = Script.time(day: 0, 8, 5)
        var atWork = PriorFixture.home()
        atWork.add(Script.time(day: 0, 7, 50), .place(" Work"))
        #expect(try PriorFixture.engine(atWork, prior: prior).ranking(stack: "home", at: at).top == "weather")
        let reasons = try PriorFixture.engine(atWork, prior: prior).ranking(stack: "home", at: at).widgets[0].reasons
        #expect(reasons.first?.text.hasSuffix("on weekdays at work (the population prior put it on top)") == true)
        var atHome = PriorFixture.home()
        atHome.add(Script.time(day: 0, 7, 50), .place("home"))
        #expect(try PriorFixture.engine(atHome, prior: prior).ranking(stack: "home", at: at).top == "calendar")
        #expect(try PriorFixture.engine(PriorFixture.home(), prior: prior).ranking(stack: "home", at: at).top == "calendar")
    }

    @Test func theHostEngineKeepsStatesOfDifferentPriorsApart() throws {
        let dir = try StoreTemporaryDirectory()
        let path = dir.file("events.sqlite")
        let prior = try PriorFixture.morningWeather()
        let events = PriorFixture.home().events + [Event(time: Script.time(day: 0, 7), user: "u", payload: .screenOn)]
        let plain = try Engine(path: path)
        try plain.record(events)
        _ = try plain.decide(stack: "home", user: "u", at: Script.time(day: 0, 7))
        try plain.close()
        let withPrior = try Engine(path: path, prior: prior)
        #expect(withPrior.stateKey.hasSuffix("|prior=" + prior.digest) && !plain.stateKey.contains("|prior="))
        let at = Script.time(day: 0, 8, 5)
        let ranking = try withPrior.ranking(stack: "home", user: "u", at: at)
        let replayed = try UserEngine(user: "u", policy: PolicySpec(parsing: "contextual"), prior: prior)
        for event in events { replayed.record(event) }
        #expect(ranking.top == "weather")
        #expect(ranking.widgets.map(\.score) == (try replayed.ranking(stack: "home", at: at)).widgets.map(\.score))
        try withPrior.close()
        // Reopened with the same prior, its own saved state answers the same.
        let again = try Engine(path: path, prior: prior)
        #expect(try again.ranking(stack: "home", user: "u", at: at).widgets.map(\.score) == ranking.widgets.map(\.score))
        #expect(again.notices.isEmpty)
        try again.close()
        #expect(try Engine(path: path).ranking(stack: "home", user: "u", at: at).top == "calendar")
    }

    // MARK: The file

    static func sample() throws -> PopulationPrior {
        try PriorFixture.prior([
            PriorFixture.entry("weather", app: "com.weather", weekday: [7: 2.5, 8: 0.25], placeKinds: 2, atPlace: (1, [8: 4])),
            PriorFixture.entry("calendar", rate: 0.5, placeKinds: 2),
            PriorFixture.entry("com.weather", kind: .app, rate: 7.25, weekday: [12: 1.5], placeKinds: 2),
        ], placeKinds: ["home", "work"])
    }

    @Test func theFileReadsBackTheSamePrior() throws {
        let prior = try Self.sample()
        let text = prior.fileText
        let read = try PopulationPrior(parsing: Array(text.utf8), name: "prior.jsonl")
        #expect(read == prior && read.digest == prior.digest)
        #expect(read.entries == prior.entries && read.placeKinds == ["home", "work"])
        #expect(read.lifts.elementsEqual(prior.lifts) && read.rates == prior.rates)
        #expect(text.hasPrefix("{\"format\":\"smartstack-prior\",\"version\":1,"))
        #expect(text.split(separator: "\n").count == 5)   // header, 2 widgets, 1 app, trailer
        #expect(read.widgetCount == 2 && read.appCount == 1)
        // Widgets come first, each kind sorted by id, whatever order they were given in.
        #expect(prior.entries.map(\.id) == ["calendar", "weather", "com.weather"])
    }

    /// A sample file changed by `edit`, and what its error must say.
    static let badFiles: [(String, @Sendable (String) -> String, String)] = [
        ("no trailer", { String($0.split(separator: "\n").dropLast().joined(separator: "\n")) + "\n" },
         "prior.jsonl: the prior file is cut short: no trailer line after 3 of the 3 widgets and apps"),
        ("cut inside a line", { String($0.prefix($0.count - 200)) }, "prior.jsonl:4:"),
        ("a lost line", { text in
            var lines = text.split(separator: "\n"); lines.remove(at: 2); return lines.joined(separator: "\n") + "\n" },
         "the file holds 1 widgets and 1 apps, its header and trailer 2 and 1 (lines lost or added?)"),
        ("newer", { $0.replacingOccurrences(of: "\"version\":1", with: "\"version\":2") },
         "prior.jsonl:1:40: field 'version': the prior is of version 2, written by a newer SmartStack; this one reads version 1"),
        ("negative lift", { $0.replacingOccurrences(of: "2.5,0.25", with: "2.5,-0.25") },
         "field 'hours[0]': element 8 is -0.25: a lift is a number in (0, 1000.0] or null"),
        ("zero lift", { $0.replacingOccurrences(of: "2.5,0.25", with: "2.5,0") }, "element 8 is 0: a lift is a number"),
        ("NaN", { $0.replacingOccurrences(of: "2.5,0.25", with: "2.5,NaN") }, "prior.jsonl:3:"),
        ("NaN as text", { $0.replacingOccurrences(of: "2.5,0.25", with: "2.5,\"NaN\"") }, "element 8 is \"NaN\""),
        ("huge", { $0.replacingOccurrences(of: "2.5,0.25", with: "2.5,1e400") }, "element 8 is 1e400"),
        ("negative rate", { $0.replacingOccurrences(of: "\"rate\":0.5", with: "\"rate\":-0.5") },
         "field 'rate': expected a number in 0.0...1000000.0, found -0.5"),
        ("unknown field", { $0.replacingOccurrences(of: "\"rate\":0.5", with: "\"rate\":0.5,\"weight\":2") },
         "unknown field 'weight' in widget 'calendar'"),
        ("unknown place kind", { $0.replacingOccurrences(of: "\"work\":[[", with: "\"gym\":[[") },
         "field 'places': 'gym' is not among the header's place_kinds"),
        ("short hours", { $0.replacingOccurrences(of: "[null,null,null,null,null,null,null,2.5,", with: "[null,null,null,null,null,null,2.5,") },
         "field 'hours[0]': expected 24 values, found 23"),
        ("widget twice", { text in
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return ([lines[0], lines[1], lines[1], lines[2], lines[3], lines[4]] + lines.dropFirst(5)).joined(separator: "\n")
                .replacingOccurrences(of: "\"widgets\":2", with: "\"widgets\":3") },
         "widget 'calendar' is listed twice"),
        ("not a prior", { _ in "{\"time\":\"2026-01-05T00:00:00Z\",\"type\":\"screen_on\"}\n" }, "it has no field 'format'"),
        ("empty", { _ in "" }, "prior.jsonl: the prior file is empty"),
    ]

    @Test(arguments: badFiles.indices)
    func aBadFileIsRefusedNamingFileAndField(_ k: Int) throws {
        let (what, edit, message) = Self.badFiles[k]
        let text = edit(try Self.sample().fileText)
        let error = #expect(throws: EngineError.self, "\(what)") { try PopulationPrior(parsing: Array(text.utf8), name: "prior.jsonl") }
        #expect(error?.kind == .invalidPrior, "\(what)")
        #expect(error?.message.contains(message) == true, "\(what): \(error?.message ?? "")")
    }

    @Test func aLargeOrMissingFileIsRefusedBeforeItIsRead() throws {
        let dir = try StoreTemporaryDirectory()
        let large = dir.file("large.jsonl")
        // A sparse file of 100 MB: the size is refused before a byte is read.
        #expect(FileManager.default.createFile(atPath: large, contents: Data(try Self.sample().fileText.utf8)))
        let handle = try #require(FileHandle(forWritingAtPath: large))
        try handle.truncate(atOffset: 100 << 20)
        try handle.close()
        let error = #expect(throws: EngineError.self) { try PopulationPrior(contentsOfFile: large) }
        #expect(error?.message == "\(large): the prior file is 104857600 bytes; a prior file holds at most 67108864 bytes "
                    + "(learn it with a higher --min-people or fewer widgets)")
        let gzip = #expect(throws: EngineError.self) { try PopulationPrior(parsing: [0x1F, 0x8B, 0x08, 0x00], name: "prior.jsonl.gz") }
        #expect(gzip?.message == "prior.jsonl.gz: the prior file is gzip-compressed; decompress it first (gunzip)")
        let missing = #expect(throws: EngineError.self) { try PopulationPrior(contentsOfFile: dir.file("none.jsonl")) }
        #expect(missing?.message == "cannot read the prior file '\(dir.file("none.jsonl"))': no such file")
        // A good file reads.
        let good = dir.file("good.jsonl")
        try Data(try Self.sample().fileText.utf8).write(to: URL(fileURLWithPath: good))
        #expect(try PopulationPrior(contentsOfFile: good) == Self.sample())
    }

    @Test func policiesSayWhetherTheyTakeAPrior() throws {
        #expect(try PolicySpec(parsing: "contextual").takesPopulationPrior)
        #expect(try PolicySpec(parsing: "bandit").takesPopulationPrior)
        #expect(try !PolicySpec(parsing: "contextual:population=0").takesPopulationPrior)
        #expect(try !PolicySpec(parsing: "mfu").takesPopulationPrior)
        #expect(PolicySpec.contextual(population: 2).description == "contextual:population=2")
        #expect(try UserEngine(user: "u", policy: PolicySpec(parsing: "mfu"), prior: PriorFixture.morningWeather()).prior == nil)
    }
}
