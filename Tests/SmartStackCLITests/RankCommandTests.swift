import Foundation
import SmartStack
@testable import SmartStackCLI
import Testing

/// A small log: `ana` opens mail in the mornings of days 0-2, then music from day 3 on; `bo`
/// has one stack too. Day d starts at 2013-03-25T00:00:00-04:00 + d days.
enum RankFixture {
    static func time(day: Int, hour: Int, minute: Int = 0) -> EventTime {
        EventTime(nanosecondsSinceEpoch: (1_364_184_000 + Int64(day) * 86_400 + Int64(hour * 3600 + minute * 60)) * 1_000_000_000,
                  utcOffsetSeconds: -14_400)
    }

    static let widgets = [WidgetConfig(id: "mail", app: "com.mail"), WidgetConfig(id: "weather", app: "com.weather"),
                          WidgetConfig(id: "music", app: "com.music")]

    static func events() -> [Event] {
        var events = [Event(time: time(day: 0, hour: 0), user: "ana", payload: .stackConfig(stack: "home", widgets: widgets)),
                      Event(time: time(day: 0, hour: 0), user: "bo", payload: .stackConfig(stack: "desk", widgets: widgets))]
        for day in 0..<10 {
            let app = day < 3 ? "com.mail" : "com.music"
            for minute in [0, 20, 40] {
                events.append(Event(time: time(day: day, hour: 8, minute: minute), user: "ana", payload: .appLaunch(app: app)))
            }
            events.append(Event(time: time(day: day, hour: 9), user: "bo", payload: .appLaunch(app: "com.weather")))
        }
        return events
    }

    /// A database holding `events` (saved engine state too when `withState`).
    static func database(in dir: TemporaryDirectory, name: String = "events.db", events: [Event] = events(),
                         withState: Bool = true) throws -> String {
        let path = dir.file(name)
        let engine = try Engine(path: path)
        try engine.record(events)
        try engine.close()
        if !withState { try EventStore(path: path).clearState() }
        return path
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}

@Suite struct RankCommandTests {
    @Test func parsesEveryOption() throws {
        let command = try RankCommand(arguments: ["--db", "x.db", "--stack", "home", "--at", "2013-03-27T08:05:00Z",
                                                  "--user", "ana", "--policy", "mru", "--json"])
        #expect(command.database == "x.db" && command.stack == "home" && command.at == "2013-03-27T08:05:00Z")
        #expect(command.user == "ana" && command.policy == "mru" && command.isJSON)
        let defaults = try RankCommand(arguments: ["--db", "x.db", "--stack", "home", "--at", "2013-03-27T08:05:00Z"])
        #expect(defaults.user == nil && defaults.policy == PolicyRegistry.defaultPolicy && !defaults.isJSON)
    }

    @Test(arguments: [
        (["--stack", "home", "--at", "2013-03-27T08:05:00Z"], "missing required option '--db'"),
        (["--db", "x.db", "--at", "2013-03-27T08:05:00Z"], "missing required option '--stack'"),
        (["--db", "x.db", "--stack", "home"], "missing required option '--at'"),
        (["--db", "x.db", "--stack", "home", "--at"], "missing value for '--at'"),
        (["--db", "x.db", "--stack", "home", "--at", "2013-03-27T08:05:00Z", "--frobnicate"], "unknown option '--frobnicate'"),
        (["--db", "x.db", "--stack", "home", "--at", "2013-03-27T08:05:00Z", "extra"], "unexpected argument 'extra'"),
        (["--db", "x.db", "--stack", "", "--at", "2013-03-27T08:05:00Z"], "the value of '--stack' is empty"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) {
        let run = runTool(["rank"] + arguments)
        #expect(run.status == 64)
        #expect(run.standardError.hasPrefix("Error: \(message)\nUSAGE: smartstack rank "))
        #expect(run.standardOutput.isEmpty)
    }

    @Test func badValuesAndUnknownNamesExit1WithClearErrors() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try RankFixture.database(in: dir)
        let cases: [([String], String)] = [
            (["--stack", "home", "--at", "2013-03-27T08:05:00", "--user", "ana"],
             "Error: --at '2013-03-27T08:05:00': time has no UTC offset (add Z or +HH:MM), e.g. 2013-03-27T08:05:00-04:00\n"),
            (["--stack", "home", "--at", "2013-03-27T08:05:00Z", "--user", "ana", "--policy", "best"],
             "Error: --policy: unknown policy 'best' (valid: \(PolicyRegistry.names.joined(separator: ", ")))\n"),
            (["--stack", "home", "--at", "2013-03-27T08:05:00Z", "--user", "ana", "--policy", "mru:speed=2"],
             "Error: --policy: unknown parameter 'speed' for policy 'mru' (valid: none)\n"),
            (["--stack", "gym", "--at", "2013-03-27T08:05:00Z", "--user", "ana"],
             "Error: unknown stack 'gym' for user 'ana' (known: home)\n"),
            (["--stack", "home", "--at", "2013-03-27T08:05:00Z", "--user", "zed"],
             "Error: unknown user 'zed': no events recorded for them (known: ana, bo)\n"),
            (["--stack", "home", "--at", "2013-03-27T08:05:00Z"],
             "Error: the database holds 2 users; choose one with --user (ana, bo)\n"),
        ]
        for (arguments, expected) in cases {
            let run = runTool(["rank", "--db", db] + arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.standardError == expected)
            #expect(run.standardOutput.isEmpty)
        }
        let missing = runTool(["rank", "--db", dir.file("nope.db"), "--stack", "home", "--at", "2013-03-27T08:05:00Z"])
        #expect(missing.status == 1 && missing.standardError == "Error: no database at \(dir.file("nope.db"))\n")
    }

    @Test func jsonHasExactlyTheDocumentedShapeTopFirst() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try RankFixture.database(in: dir)
        let at = "2013-03-28T07:50:00-04:00"
        let run = runTool(["rank", "--db", db, "--stack", "home", "--at", at, "--user", "ana", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasSuffix("}\n") && run.standardOutput.filter { $0 == "\n" }.count == 1)
        let object = try RankFixture.json(run.standardOutput)
        #expect(Set(object.keys) == ["stack", "user", "at", "policy", "ranking"])
        #expect(object["stack"] as? String == "home" && object["user"] as? String == "ana")
        #expect(object["at"] as? String == at && object["policy"] as? String == "contextual")
        let ranking = try #require(object["ranking"] as? [[String: Any]])
        #expect(ranking.first?["widget"] as? String == "mail")   // opened every morning so far
        #expect(Set(ranking.compactMap { $0["widget"] as? String }) == ["mail", "weather", "music"])
        let scores = ranking.compactMap { $0["score"] as? Double }
        #expect(scores.count == 3 && scores == scores.sorted(by: >))
        for widget in ranking {
            #expect(Set(widget.keys) == ["widget", "score", "eligible", "reasons"])
            #expect(widget["eligible"] as? Bool == true)
            let reasons = try #require(widget["reasons"] as? [[String: Any]])
            for reason in reasons {
                #expect(Set(reason.keys) == ["text", "contribution"])
                #expect(reason["text"] is String && reason["contribution"] is Double)
            }
        }
        #expect((ranking[0]["reasons"] as? [[String: Any]])?.isEmpty == false)
    }

    @Test func jsonCarriesTheSequenceAndTheMixtureWeightsInTheReasons() throws {
        // x → mail → music and y → mail → weather: after mail alone both are equally likely.
        var events = [Event(time: RankFixture.time(day: 0, hour: 0), user: "ana", payload: .stackConfig(stack: "home", widgets: RankFixture.widgets))]
        for day in 0..<12 {
            for (k, hour) in [9, 11, 13, 15].enumerated() {
                let (first, next) = k % 2 == 0 ? ("com.x", "com.music") : ("com.y", "com.weather")
                for (minute, app) in [(0, first), (1, "com.mail"), (2, next)] {
                    events.append(Event(time: RankFixture.time(day: day, hour: hour, minute: minute), user: "ana", payload: .appLaunch(app: app)))
                }
            }
        }
        events.append(Event(time: RankFixture.time(day: 12, hour: 10), user: "ana", payload: .appLaunch(app: "com.y")))
        events.append(Event(time: RankFixture.time(day: 12, hour: 10, minute: 1), user: "ana", payload: .appLaunch(app: "com.mail")))
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try RankFixture.database(in: dir, events: events)
        let at = RankFixture.time(day: 12, hour: 10, minute: 2).rfc3339
        let run = runTool(["rank", "--db", db, "--stack", "home", "--at", at, "--user", "ana", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let ranking = try #require(try RankFixture.json(run.standardOutput)["ranking"] as? [[String: Any]])
        #expect(ranking.first?["widget"] as? String == "weather")
        let texts = (ranking.first?["reasons"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        #expect(texts.contains("after com.y, then com.mail"), "\(texts)")
        #expect(texts.contains { $0.hasPrefix("weights: model ") }, "\(texts)")
    }

    @Test func onlyEventsStrictlyBeforeTheInstantCount() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let all = RankFixture.events()
        let full = try RankFixture.database(in: dir)
        // Day 6 at 08:20 exactly: a launch of music happens at that instant and must not count.
        let instant = RankFixture.time(day: 6, hour: 8, minute: 20)
        let truncated = try RankFixture.database(in: dir, name: "before.db", events: all.filter { $0.time < instant })
        func rank(_ db: String, _ at: EventTime, json: Bool = true) -> ToolRun {
            runTool(["rank", "--db", db, "--stack", "home", "--at", at.rfc3339, "--user", "ana"] + (json ? ["--json"] : []))
        }
        let fromFull = rank(full, instant)
        #expect(fromFull.status == 0, "\(fromFull.standardError)")
        #expect(fromFull.standardOutput == rank(truncated, instant).standardOutput)
        #expect(rank(full, instant, json: false).standardOutput == rank(truncated, instant, json: false).standardOutput)
        // One nanosecond later the launch at the instant counts, so the answer differs.
        let later = EventTime(nanosecondsSinceEpoch: instant.nanosecondsSinceEpoch + 1, utcOffsetSeconds: -14_400)
        let afterRun = rank(full, later)
        #expect(try RankFixture.json(afterRun.standardOutput)["ranking"] as? NSArray != (try RankFixture.json(fromFull.standardOutput)["ranking"] as? NSArray))
        // The habit changes: mail on top early, music on top late (same database, same state).
        func top(_ at: EventTime) throws -> String? {
            ((try RankFixture.json(rank(full, at).standardOutput)["ranking"] as? [[String: Any]])?.first?["widget"]) as? String
        }
        #expect(try top(RankFixture.time(day: 2, hour: 8, minute: 10)) == "mail")
        #expect(try top(RankFixture.time(day: 10, hour: 8, minute: 10)) == "music")
    }

    @Test func answersWithoutSavedStateEqualAnswersWithIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let saved = try RankFixture.database(in: dir, name: "saved.db")
        let bare = try RankFixture.database(in: dir, name: "bare.db", withState: false)
        #expect(try EventStore(path: bare).loadState(user: "ana", key: Engine.stateKey(
            policy: PolicySpec(name: "contextual"), rotation: RotationParameters(), seed: 0)) == nil)
        for at in [RankFixture.time(day: 2, hour: 8), RankFixture.time(day: 12, hour: 8)] {
            let a = runTool(["rank", "--db", saved, "--stack", "home", "--at", at.rfc3339, "--user", "ana", "--json"])
            let b = runTool(["rank", "--db", bare, "--stack", "home", "--at", at.rfc3339, "--user", "ana", "--json"])
            #expect(a.status == 0 && a.standardOutput == b.standardOutput)
        }
    }

    @Test func tableIsAlignedWithRankWidgetScoreEligibleAndReasons() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try RankFixture.database(in: dir)
        let run = runTool(["rank", "--db", db, "--stack", "desk", "--at", "2013-03-30T09:30:00-04:00", "--policy", "mfu", "--user", "bo"])
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "desk for bo at 2013-03-30T09:30:00-04:00 (policy mfu)")
        #expect(lines[2].hasPrefix("RANK  WIDGET   "))
        let header = lines[2]
        let scoreEnd = header.range(of: "SCORE")!.upperBound
        for line in lines[3..<6] {
            // Scores right-aligned under SCORE, eligibility under ELIGIBLE.
            #expect(line[line.index(line.startIndex, offsetBy: header.distance(from: header.startIndex, to: scoreEnd) - 1)].isNumber)
            #expect(line.dropFirst(header.distance(from: header.startIndex, to: header.range(of: "ELIGIBLE")!.lowerBound)).hasPrefix("yes"))
        }
        #expect(lines[3].contains("weather"))
        #expect(lines.count == 7 && lines[6].isEmpty)
    }

    @Test func helpDocumentsTheJSONShapeAndFitsEightyColumns() {
        let run = runTool(["rank", "--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("\"reasons\":[{\"text\":\"<why>\",\"contribution\":<number>}"))
        let options = run.standardOutput.components(separatedBy: "OPTIONS:\n").last ?? ""
        for line in options.split(separator: "\n") { #expect(line.count <= 80) }
    }

    @Test func jsonNumbersAndStringsAreValid() {
        let at = EventTime(nanosecondsSinceEpoch: 0, utcOffsetSeconds: 0)
        let ranking = Ranking(stack: "home", user: "a\"b", at: at, policy: "contextual", widgets: [
            RankedWidget(widget: "w\n1", score: .infinity, isEligible: true, reasons: [Reason(text: "x", contribution: 2)]),
            RankedWidget(widget: "w2", score: -.infinity, isEligible: false, reasons: [Reason(text: "y", contribution: 0.25)]),
            RankedWidget(widget: "w3", score: .nan, isEligible: false, reasons: []),
        ])
        #expect(RankCommand.json(ranking) == #"{"stack":"home","user":"a\"b","at":"1970-01-01T00:00:00Z","policy":"contextual","ranking":["#
            + #"{"widget":"w\n1","score":null,"eligible":true,"reasons":[{"text":"x","contribution":2}]},"#
            + #"{"widget":"w2","score":null,"eligible":false,"reasons":[{"text":"y","contribution":0.25}]},"#
            + #"{"widget":"w3","score":null,"eligible":false,"reasons":[]}]}"#)
        #expect(RankCommand.jsonString("a\"b\\c\nd\u{1}") == "\"a\\\"b\\\\c\\nd\\u0001\"")
        #expect(RankCommand.fixed(-1.2346) == "-1.235" && RankCommand.fixed(0.0004) == "0.000")
        #expect(RankCommand.signed(0.678) == "+0.68" && RankCommand.signed(-0.281) == "-0.28")
    }
}
