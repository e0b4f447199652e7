import Foundation
import SmartStack
@testable import SmartStackEvaluation
import Testing

/// A small population: every person has stack home = calendar, weather, music (apps app.<id>),
/// opens the calendar at 08:10 and music at 19:30 on the five weekdays of 2024-01-01.., at places
/// labelled "Work" and "home"; the first `diarists` people also have a diary widget they open at
/// 21:00. Coordinates are recorded too.
enum Population {
    static func person(_ name: String, diary: Bool, offset: Int32 = -18_000) -> [Event] {
        // Monday 2024-01-01 00:00 local.
        let monday = Int64(1_704_067_200 - Int(offset)) * 1_000_000_000
        func at(_ day: Int, _ hour: Int, _ minute: Int) -> EventTime {
            EventTime(nanosecondsSinceEpoch: monday + Int64((day * 86_400 + hour * 3600 + minute * 60)) * 1_000_000_000,
                      utcOffsetSeconds: offset)
        }
        var widgets = ["calendar", "weather", "music"]
        if diary { widgets.append("diary") }
        var events = [Event(time: at(0, 0, 0), user: name, payload: .stackConfig(
            stack: "home", widgets: widgets.map { WidgetConfig(id: $0, app: "app." + $0) }))]
        for day in 0..<5 {
            events.append(Event(time: at(day, 7, 55), user: name, payload: .place("Work")))
            events.append(Event(time: at(day, 7, 56), user: name, payload: .location(lat: 42.361_234, lon: -71.057_891, accuracy: 20)))
            events.append(Event(time: at(day, 8, 10), user: name, payload: .appLaunch(app: "app.calendar")))
            events.append(Event(time: at(day, 19, 0), user: name, payload: .place("home")))
            events.append(Event(time: at(day, 19, 30), user: name, payload: .appLaunch(app: "app.music")))
            if diary { events.append(Event(time: at(day, 21, 0), user: name, payload: .appLaunch(app: "app.diary"))) }
        }
        return events
    }

    static func people(_ count: Int, diarists: Int) -> [Event] {
        (0..<count).flatMap { person("secret-person-\($0)", diary: $0 < diarists) }
    }

    static func learn(_ events: [Event], minimumPeople: Int = 5) throws -> PopulationPrior {
        try PopulationPriorLearner(minimumPeople: minimumPeople).learn(.events(events, name: "population")).prior
    }

    static func entry(_ prior: PopulationPrior, _ id: String, _ kind: PopulationPrior.Entry.Kind = .widget) -> PopulationPrior.Entry? {
        prior.entries.first { $0.id == id && $0.kind == kind }
    }
}

@Suite struct PopulationPriorLearnerTests {
    @Test func keepsOnlyWhatEnoughPeopleShare() throws {
        let events = Population.people(6, diarists: 4)
        let five = try Population.learn(events)
        #expect(Population.entry(five, "calendar") != nil && Population.entry(five, "diary") == nil)
        #expect(Population.entry(five, "app.diary", .app) == nil)
        #expect(five.people == 6 && five.minimumPeople == 5)
        let four = try Population.learn(events, minimumPeople: 4)
        let diary = try #require(Population.entry(four, "diary"))
        #expect(diary.people == 4 && diary.app == "app.diary")
        // Four people were active at 21:00 on weekdays and have the diary: kept at 4, not at 5.
        #expect(diary.hours[0][21] != nil)
        #expect(try #require(Population.entry(five, "calendar")).hours[0][21] == nil)   // only 4 people active then
    }

    @Test func theFileHoldsNoUserIdNoCoordinatesAndReadsBack() throws {
        let prior = try Population.learn(Population.people(6, diarists: 0))
        let text = prior.fileText
        #expect(!text.contains("secret-person"))
        #expect(!text.contains("42.36") && !text.contains("71.05"))
        let read = try PopulationPrior(parsing: Array(text.utf8), name: "prior.jsonl")
        #expect(read == prior && read.entries == prior.entries)
    }

    @Test func liftsFollowTheHoursAndPlacesComeFromLabels() throws {
        let prior = try Population.learn(Population.people(6, diarists: 0))
        #expect(prior.placeKinds == ["home", "work"])   // "Work" lowercased; no coordinates
        let calendar = try #require(Population.entry(prior, "calendar"))
        let morning = try #require(calendar.hours[0][8]), evening = try #require(calendar.hours[0][19])
        #expect(morning > 1.5 && evening < 0.7)
        let atWork = try #require(calendar.places[1]?[0][8])
        #expect(atWork > 1.5)
        // Nobody engaged anything on the weekend: nothing is said of it.
        #expect(calendar.days[1] == nil && calendar.hours[1].allSatisfy { $0 == nil })
        // A widget is used about once a weekday by everyone who has it.
        #expect(abs(calendar.rate - 1.1) < 0.2)
        // The app's own line is there too, and the widget names it.
        #expect(calendar.app == "app.calendar" && Population.entry(prior, "app.calendar", .app) != nil)
    }

    @Test func aPlaceLabelOfFewPeopleIsNoKindOfPlace() throws {
        var events = Population.people(6, diarists: 0)
        events = events.map { e in
            guard case .place("home") = e.payload, e.user == "secret-person-0" else { return e }
            return Event(time: e.time, user: e.user, payload: .place("Grandma's flat"))
        }
        let prior = try Population.learn(events)
        #expect(prior.placeKinds == ["home", "work"])
        #expect(!prior.fileText.lowercased().contains("grandma"))
    }

    @Test func tooFewPeopleIsAClearError() throws {
        let error = #expect(throws: EvaluationError.self) { try Population.learn(Population.people(3, diarists: 0)) }
        #expect(error?.message == "the logs hold 3 people, fewer than --min-people 5: a prior keeps only what at least that many people share")
    }

    @Test func aLearntPriorDecidesANewPersonsFirstMorning() throws {
        let prior = try Population.learn(Population.people(6, diarists: 0))
        // A new person configures the same stack, music first, and has done nothing yet.
        let newcomer = try UserEngine(user: "new", policy: PolicySpec(parsing: "contextual"), prior: prior)
        newcomer.record(Event(time: EventTime(nanosecondsSinceEpoch: 1_705_300_000 * 1_000_000_000, utcOffsetSeconds: -18_000),
                              user: "new", payload: .stackConfig(stack: "home", widgets: ["music", "weather", "calendar"].map {
                                  WidgetConfig(id: $0, app: "app." + $0) })))
        // Monday 2024-01-15 08:05 in Boston.
        let morning = EventTime(nanosecondsSinceEpoch: (1_705_323_900) * 1_000_000_000, utcOffsetSeconds: -18_000)
        #expect(morning.localHour == 8 && !morning.isWeekend)
        #expect(try newcomer.ranking(stack: "home", at: morning).widgets.first?.widget == "calendar")
        let alone = try UserEngine(user: "new", policy: PolicySpec(parsing: "contextual"))
        alone.record(Event(time: EventTime(nanosecondsSinceEpoch: 1_705_300_000 * 1_000_000_000, utcOffsetSeconds: -18_000),
                           user: "new", payload: .stackConfig(stack: "home", widgets: ["music", "weather", "calendar"].map {
                               WidgetConfig(id: $0, app: "app." + $0) })))
        #expect(try alone.ranking(stack: "home", at: morning).widgets.first?.widget == "music")
    }
}
