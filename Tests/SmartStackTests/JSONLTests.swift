import Foundation
import Testing
@testable import SmartStack

/// Reads every event of `text`, failing the test on the first error.
private func events(_ text: String, name: String = "t.jsonl") throws -> [Event] {
    var reader = JSONLReader(bytes: Array(text.utf8), name: name)
    var result: [Event] = []
    while let event = try reader.next() { result.append(event) }
    return result
}

/// The first error reading `text`, if any.
private func firstError(_ text: String, name: String = "t.jsonl") -> JSONLError? {
    var reader = JSONLReader(bytes: Array(text.utf8), name: name)
    do {
        while try reader.next() != nil {}
        return nil
    } catch {
        return error
    }
}

/// 1-based byte column of the first occurrence of `marker` in `line`, plus `delta`.
private func column(of marker: String, in line: String, plus delta: Int = 0) -> Int {
    let bytes = Array(line.utf8), m = Array(marker.utf8)
    for i in 0...(bytes.count - m.count) where Array(bytes[i..<(i + m.count)]) == m { return i + 1 + delta }
    Issue.record("marker \(marker) not in \(line)")
    return -1
}

private func time(_ text: String) -> EventTime { try! EventTime(rfc3339: text) }

private func temporaryFile(_ bytes: [UInt8]) throws -> String {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("smartstack-jsonl-\(UUID().uuidString).jsonl").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}


@Suite struct JSONLTests {
    static let t = #""time":"2013-03-27T08:05:00-04:00""#

    // MARK: - Every type

    static let validLines: [(String, EventPayload)] = [
        (#"{\#(t),"type":"stack_config","stack":"s1","widgets":[{"id":"w1","app":"com.a"},{"id":"w2"}]}"#,
         .stackConfig(stack: "s1", widgets: [WidgetConfig(id: "w1", app: "com.a"), WidgetConfig(id: "w2")])),
        (#"{\#(t),"type":"stack_config","stack":"s1","widgets":[]}"#, .stackConfig(stack: "s1", widgets: [])),
        (#"{\#(t),"type":"app_launch","app":"com.x"}"#, .appLaunch(app: "com.x")),
        (#"{\#(t),"type":"widget_impression","stack":"s","widget":"w","propensity":0.25,"policy":"p/1"}"#,
         .widgetImpression(stack: "s", widget: "w", propensity: 0.25, policy: "p/1")),
        (#"{\#(t),"type":"widget_impression","stack":"s","widget":"w"}"#,
         .widgetImpression(stack: "s", widget: "w", propensity: nil, policy: nil)),
        (#"{\#(t),"type":"widget_impression","stack":"s","widget":"w","propensity":1}"#,
         .widgetImpression(stack: "s", widget: "w", propensity: 1, policy: nil)),
        (#"{\#(t),"type":"widget_tap","widget":"w","stack":"s"}"#, .widgetTap(widget: "w", stack: "s")),
        (#"{\#(t),"type":"widget_tap","widget":"w"}"#, .widgetTap(widget: "w", stack: nil)),
        (#"{\#(t),"type":"widget_swipe","stack":"s","from":"a","to":"b"}"#, .widgetSwipe(stack: "s", from: "a", to: "b")),
        (#"{\#(t),"type":"widget_pin","stack":"s","widget":"w"}"#, .widgetPin(stack: "s", widget: "w")),
        (#"{\#(t),"type":"widget_unpin","stack":"s","widget":"w"}"#, .widgetUnpin(stack: "s", widget: "w")),
        (#"{\#(t),"type":"screen_on"}"#, .screenOn),
        (#"{\#(t),"type":"location","lat":-33.8688,"lon":151.2093,"accuracy":12.5}"#,
         .location(lat: -33.8688, lon: 151.2093, accuracy: 12.5)),
        (#"{\#(t),"type":"location","lat":90,"lon":-180}"#, .location(lat: 90, lon: -180, accuracy: nil)),
        (#"{\#(t),"type":"place","place":"home"}"#, .place("home")),
        (#"{\#(t),"type":"context","key":"charging","value":"true"}"#, .context(key: "charging", value: "true")),
        (#"{\#(t),"type":"context","key":"note","value":""}"#, .context(key: "note", value: "")),
        (#"{\#(t),"type":"relevance","widget":"w","score":-0.5,"duration":3600}"#,
         .relevance(widget: "w", score: -0.5, duration: 3600)),
        (#"{\#(t),"type":"relevance","widget":"w","score":2e3}"#, .relevance(widget: "w", score: 2000, duration: nil)),
    ]

    @Test(arguments: validLines)
    func everyTypeParses(line: String, payload: EventPayload) throws {
        let parsed = try events(line + "\n")
        #expect(parsed == [Event(time: time("2013-03-27T08:05:00-04:00"), payload: payload)])
    }

    @Test func everyTypeIsCoveredByTheValidLines() {
        let covered = Set(Self.validLines.map(\.1.type))
        #expect(covered == Set(EventType.allCases))
    }

    @Test func everyFieldGivenTwiceIsADuplicate() throws {
        for field in JSONLField.allCases {
            // Reported with the first one's column, so the key was recognised both times (the second
            // sits at the end of the line, where a short key is read byte by byte).
            let line = #"{"\#(field.name)":1,"\#(field.name)":2}"#
            #expect(firstError(line)?.message == "duplicate key '\(field.name)' (first at column 2)", "\(field.name)")
        }
    }

    @Test func keysInsideWidgetsAreRecognisedOnlyAsIdAndApp() throws {
        // Escaped spellings of id and app count; an event field's name inside a widget is an unknown key.
        let line = #"{\#(Self.t),"type":"stack_config","stack":"s","widgets":[{"\u0069d":"w","ap\u0070":"a","time":1,"type":[]}]}"#
        #expect(try events(line).first?.payload == .stackConfig(stack: "s", widgets: [WidgetConfig(id: "w", app: "a")]))
        let twice = #"{\#(Self.t),"type":"stack_config","stack":"s","widgets":[{"id":"w","time":1,"ti\u006de":2}]}"#
        let error = try #require(firstError(twice))
        #expect(error.message == "duplicate key 'time' in 'widgets[0]'")
        #expect(error.field == "widgets[0].time")
        #expect(error.column == column(of: #""ti\u006de""#, in: twice))
        let noID = #"{\#(Self.t),"type":"stack_config","stack":"s","widgets":[{"ids":"w"}]}"#
        #expect(firstError(noID)?.message == "missing required field 'widgets[0].id'")
    }

    @Test func commonFieldsAndDefaults() throws {
        let text = """
            {"type":"screen_on","id":"e1","user":"u07","time":"2013-03-27T12:05:00.125Z"}
            {"time":"2013-03-27T08:05:00+05:30","type":"screen_on","user":null,"id":null}
            """
        let parsed = try events(text)
        #expect(parsed.count == 2)
        #expect(parsed[0].user == "u07")
        #expect(parsed[0].id == "e1")
        #expect(parsed[0].time == time("2013-03-27T12:05:00.125Z"))
        #expect(parsed[1].user == Event.defaultUser)
        #expect(parsed[1].id == nil)
        #expect(parsed[1].time.utcOffsetSeconds == 19_800)
    }

    @Test func nullOptionalFieldsAreAbsent() throws {
        let line = #"{\#(Self.t),"type":"location","lat":1.5,"lon":2.5,"accuracy":null}"#
        #expect(try events(line) == [Event(time: time("2013-03-27T08:05:00-04:00"),
                                           payload: .location(lat: 1.5, lon: 2.5, accuracy: nil))])
    }

    @Test func unknownFieldsOfAnyShapeAreIgnored() throws {
        let line = #"{"extra":{"a":[1,2,{"b":"}]\"{"}],"c":null},\#(Self.t),"n":-1.5e-3,"#
            + #""type":"app_launch","list":[[],[[true,false]],{}],"app":"com.x","lat":"not used by app_launch","z":"\u00e9"}"#
        #expect(try events(line) == [Event(time: time("2013-03-27T08:05:00-04:00"), payload: .appLaunch(app: "com.x"))])
    }

    @Test func unknownFieldsInsideWidgetsAreIgnored() throws {
        let line = #"{\#(Self.t),"type":"stack_config","stack":"s","widgets":[{"size":"small","id":"w1","x":{"y":[1]}}]}"#
        #expect(try events(line).first?.payload == .stackConfig(stack: "s", widgets: [WidgetConfig(id: "w1")]))
    }

    @Test func whitespaceCRLFAndByteOrderMarkAreAccepted() throws {
        let text = "\u{FEFF}  { \"time\" : \"2013-03-27T08:05:00Z\" ,\t\"type\":\"screen_on\" }  \r\n"
            + "\r\n   \n"
            + "{\"time\":\"2013-03-27T08:06:00Z\",\"type\":\"screen_on\"}\r\n"
        let parsed = try events(text)
        #expect(parsed.map(\.time) == [time("2013-03-27T08:05:00Z"), time("2013-03-27T08:06:00Z")])
    }

    @Test func lineNumbersCountBlankLines() throws {
        var reader = JSONLReader(bytes: Array("\n\n{\"time\":\"2013-03-27T08:05:00Z\",\"type\":\"screen_on\"}\n".utf8), name: "t")
        _ = try reader.next()
        #expect(reader.lineNumber == 3)
        #expect(try reader.next() == nil)
    }

    @Test func lastLineWithoutNewlineIsRead() throws {
        let text = "{\"time\":\"2013-03-27T08:05:00Z\",\"type\":\"screen_on\"}\n{\"time\":\"2013-03-27T08:06:00Z\",\"type\":\"screen_on\"}"
        #expect(try events(text).count == 2)
    }

    // MARK: - Strings

    @Test func stringEscapesAreDecoded() throws {
        let line = #"{\#(Self.t),"type":"app_launch","app":"a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00é😀"}"#
        let parsed = try events(line)
        #expect(parsed.first?.payload == .appLaunch(app: "a\"b\\c/d\u{8}\u{C}\n\r\tAé€😀é😀"))
    }

    @Test func escapedKeysAreRecognised() throws {
        let line = #"{"\u0074ime":"2013-03-27T08:05:00Z","ty\u0070e":"place","place":"w\u006frk"}"#
        #expect(try events(line).first?.payload == .place("work"))
    }

    // MARK: - Numbers

    @Test func numbersParseExactly() throws {
        let texts = ["0", "-0", "0.1", "0.30000000000000004", "1e-7", "1E+2", "123456789012345678901234567890",
                     "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "9007199254740993",
                     "0.000000000000000000000000000001", "-12.5e-1", "89.99999999999999", "3.141592653589793"]
        for text in texts {
            let line = #"{\#(Self.t),"type":"relevance","widget":"w","score":\#(text)}"#
            guard case .relevance(_, let score, _) = try events(line).first?.payload else {
                Issue.record("no relevance for \(text)"); continue
            }
            #expect(score.bitPattern == Double(text)!.bitPattern, "\(text)")
        }
    }

    @Test func randomNumbersParseExactly() throws {
        var rng = SeededGenerator(seed: 42)
        var lines = ""
        var expected: [Double] = []
        for _ in 0..<3000 {
            let digits = Int.random(in: 1...20, using: &rng)
            var text = Int.random(in: 0...1, using: &rng) == 0 ? "-" : ""
            text += String(Int.random(in: 1...9, using: &rng))
            for _ in 1..<digits { text += String(Int.random(in: 0...9, using: &rng)) }
            let point = Int.random(in: 0...digits, using: &rng)
            if point < digits {
                let index = text.index(text.endIndex, offsetBy: -(digits - point))
                text.insert(".", at: index)
                if text.hasPrefix(".") || text.hasPrefix("-.") { text = text.replacingOccurrences(of: ".", with: "0.") }
            }
            if Int.random(in: 0...2, using: &rng) == 0 { text += "e\(Int.random(in: -40...40, using: &rng))" }
            expected.append(Double(text)!)
            lines += #"{\#(Self.t),"type":"relevance","widget":"w","score":\#(text)}"# + "\n"
        }
        let parsed = try events(lines)
        #expect(parsed.count == expected.count)
        for (event, value) in zip(parsed, expected) {
            guard case .relevance(_, let score, _) = event.payload else { Issue.record("wrong payload"); continue }
            #expect(score.bitPattern == value.bitPattern)
        }
    }

    // MARK: - Bad input

    struct BadCase: CustomStringConvertible, Sendable {
        var line: String
        var marker: String?
        var delta = 0
        var field: String?
        var message: String
        var description: String { message }
    }

    static let badCases: [BadCase] = [
        BadCase(line: #"{"time":"2013-03-27T08:05:00","type":"screen_on"}"#, marker: #"","type""#, field: "time",
                message: "field 'time': time has no UTC offset (add Z or +HH:MM)"),
        BadCase(line: #"{"time":"2013-02-29T08:05:00Z","type":"screen_on"}"#, marker: "29T", field: "time",
                message: "field 'time': day 29 does not exist in 2013-02"),
        BadCase(line: #"{"time":"2013-13-01T08:05:00Z","type":"screen_on"}"#, marker: "13-01", field: "time",
                message: "field 'time': month 13 does not exist"),
        BadCase(line: #"{"time":"2013-03-27T25:05:00Z","type":"screen_on"}"#, marker: "25:", field: "time",
                message: "field 'time': hour 25 does not exist"),
        BadCase(line: #"{"time":"3000-01-01T00:00:00Z","type":"screen_on"}"#, marker: "3000", field: "time",
                message: "field 'time': year 3000 is outside the supported range 1678...2261"),
        BadCase(line: #"{"time":1364385900,"type":"screen_on"}"#, marker: "1364", field: "time",
                message: "field 'time' must be a string (RFC 3339 with a UTC offset), found a number"),
        BadCase(line: #"{"type":"screen_on"}"#, marker: "{", field: "time", message: "missing required field 'time'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z"}"#, marker: "{", field: "type", message: "missing required field 'type'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"app_open","app":"x"}"#, marker: #""app_open""#, field: "type",
                message: "field 'type': unknown event type 'app_open'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":3}"#, marker: "3}", field: "type",
                message: "field 'type' must be a string, found a number"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"app_launch"}"#, marker: "{", field: "app",
                message: "missing required field 'app' for type 'app_launch'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"app_launch","app":""}"#, marker: #""""#, field: "app",
                message: "field 'app': must not be empty"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"app_launch","app":"x","id":""}"#, marker: #""""#, field: "id",
                message: "field 'id': must not be empty"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"app_launch","app":"x","user":7}"#, marker: "7}", field: "user",
                message: "field 'user' must be a string, found a number"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":"40.1","lon":2}"#, marker: #""40.1""#, field: "lat",
                message: "field 'lat' must be a number, found a string"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":91,"lon":2}"#, marker: "91", field: "lat",
                message: "field 'lat': latitude 91.0 is out of range -90...90"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":1,"lon":-180.5}"#, marker: "-180.5", field: "lon",
                message: "field 'lon': longitude -180.5 is out of range -180...180"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":NaN,"lon":2}"#, marker: "NaN", field: "lat",
                message: "field 'lat': NaN and Infinity are not valid JSON numbers"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":1,"lon":-Infinity}"#, marker: "-Inf", field: "lon",
                message: "field 'lon': NaN and Infinity are not valid JSON numbers"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":1e999,"lon":2}"#, marker: "1e999", field: "lat",
                message: "field 'lat': number is too large to be a finite double"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":1,"lon":2,"accuracy":-3}"#, marker: "-3", field: "accuracy",
                message: "field 'accuracy': must be >= 0"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":1}"#, marker: "{", field: "lon",
                message: "missing required field 'lon' for type 'location'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"widget_impression","stack":"s","widget":"w","propensity":0}"#,
                marker: "0}", field: "propensity", message: "field 'propensity': must be in (0, 1]"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"widget_impression","stack":"s","widget":"w","propensity":1.5}"#,
                marker: "1.5", field: "propensity", message: "field 'propensity': must be in (0, 1] (a probability), found 1.5"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"relevance","widget":"w","score":"high"}"#, marker: #""high""#,
                field: "score", message: "field 'score' must be a number, found a string"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"relevance","widget":"w","score":1,"duration":-1}"#, marker: "-1",
                field: "duration", message: "field 'duration': must be >= 0"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"stack_config","stack":"s","widgets":{"id":"w"}}"#, marker: #"{"id""#,
                field: "widgets", message: "field 'widgets' must be an array"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"stack_config","stack":"s","widgets":[{"id":"a"},"b"]}"#, marker: #""b""#,
                field: "widgets[1]", message: "field 'widgets[1]' must be an object"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"stack_config","stack":"s","widgets":[{"app":"x"}]}"#, marker: #"{"app""#,
                field: "widgets[0].id", message: "missing required field 'widgets[0].id'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"stack_config","stack":"s","widgets":[{"id":"a"},{"id":"a"}]}"#,
                marker: #"{"id":"a"}]"#, delta: 6, field: "widgets[1].id", message: "widget 'a' appears twice"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"stack_config","stack":"s","widgets":[{"id":"a","id":"b"}]}"#,
                marker: #""id":"b""#, field: "widgets[0].id", message: "duplicate key 'id' in 'widgets[0]'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"screen_on","type":"place"}"#, marker: #""type":"place""#, field: "type",
                message: "duplicate key 'type' (first at column 32)"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"screen_on","x":1,"x":2}"#, marker: #""x":2"#, field: "x",
                message: "duplicate key 'x'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"screen_on",}"#, marker: "}", field: nil,
                message: "expected a key in double quotes but found '}' (a trailing comma is not allowed in JSON)"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"screen_on","x":[1,2,]}"#, marker: "]", field: "x",
                message: "field 'x': expected a value but found ']' (a trailing comma is not allowed in JSON)"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"screen_on","x":{"a":1,}}"#, marker: "}", field: "x",
                message: "field 'x': expected a key in double quotes but found '}' (a trailing comma is not allowed in JSON)"),
        BadCase(line: #"{'time':"2013-03-27T08:05:00Z","type":"screen_on"}"#, marker: "'", field: nil,
                message: "expected a key in double quotes but found '''"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"app_launch","app":com.x}"#, marker: "com", field: "app",
                message: "field 'app': expected a value but found 'c'"),
        BadCase(line: "{}", marker: "{", field: "type", message: "missing required field 'type'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z" "type":"screen_on"}"#, marker: #""type""#, field: nil,
                message: "expected ',' or '}' after a value but found '\"'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"screen_on"}}"#, marker: "}}", delta: 1, field: nil,
                message: "unexpected '}' after the closing '}' (one JSON object per line)"),
        BadCase(line: #"["time"]"#, marker: "[", field: nil, message: "expected '{' but found '['"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"place","place":"a\qb"}"#, marker: #"\q"#, field: "place",
                message: #"field 'place': invalid escape '\q' in string"#),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"place","place":"a\ud83d"}"#, marker: #"\ud83d"#, field: "place",
                message: #"field 'place': lone surrogate \uD83D"#),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"place","place":"\ude00x"}"#, marker: #"\ude00"#, field: "place",
                message: #"field 'place': lone surrogate \uDE00"#),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"place","place":"\ud83d\u0041"}"#, marker: #"\ud83d"#, field: "place",
                message: #"field 'place': lone surrogate \uD83D"#),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"place","place":"\u12G4"}"#, marker: #"\u12"#, field: "place",
                message: #"field 'place': invalid \u escape (needs 4 hex digits)"#),
        BadCase(line: "{\"time\":\"2013-03-27T08:05:00Z\",\"type\":\"place\",\"place\":\"a\tb\"}", marker: "\t", field: "place",
                message: "field 'place': control character U+0009 in a string must be escaped"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":01,"lon":2}"#, marker: ":01", delta: 1, field: "lat",
                message: "field 'lat': invalid number: leading zeros are not allowed"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":1.,"lon":2}"#, marker: ".,", delta: 1, field: "lat",
                message: "field 'lat': invalid number: expected a digit after '.'"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"location","lat":tru,"lon":2}"#, marker: "tru", field: "lat",
                message: "field 'lat': invalid value"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"screen_on","deep":\#(String(repeating: "[", count: 70))\#(String(repeating: "]", count: 70))}"#,
                marker: String(repeating: "[", count: 7), delta: 64, field: "deep", message: "field 'deep': nested deeper than 64 levels"),
        BadCase(line: #"{"time":"2013-03-27T08:05:00Z","type":"screen_on""#, marker: #"on""#, delta: 3, field: nil,
                message: "line ends too early: expected ',' or '}' after a value"),
    ]

    @Test(arguments: badCases)
    func badInputIsLocated(_ bad: BadCase) throws {
        let good = #"{"time":"2013-03-27T08:05:00Z","type":"screen_on"}"#
        let error = try #require(firstError(good + "\n\n" + bad.line + "\n" + good + "\n", name: "events.jsonl"))
        #expect(error.file == "events.jsonl")
        #expect(error.line == 3)
        if let marker = bad.marker {
            #expect(error.column == column(of: marker, in: bad.line, plus: bad.delta), "\(error)")
        }
        #expect(error.field == bad.field)
        #expect(error.message.contains(bad.message), "\(error.message)")
        #expect(error.description == "events.jsonl:3:\(error.column): \(error.message)")
    }

    @Test func errorsDocumentedInTheFormatAreTheReadersOwn() throws {
        // Datasets/FORMAT.md shows a file and, byte for byte, what reading it reports.
        let format = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Datasets/FORMAT.md"), encoding: .utf8)
        let blocks = format.components(separatedBy: "```text\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        try #require(blocks.count >= 2)
        // The example's last line has no final newline.
        var reader = JSONLReader(bytes: Array(blocks[0].dropLast().utf8), name: "events.jsonl")
        var reported = ""
        while true {
            do {
                guard try reader.next() != nil else { break }
            } catch {
                reported += "\(error)\n"
            }
        }
        #expect(reported == blocks[1])
    }

    @Test func timeErrorPointsInsideTheLine() throws {
        let error = try #require(firstError("{\"time\":\"2013-03-27T08:05:00\",\"type\":\"screen_on\"}\n", name: "events.jsonl"))
        #expect(error.description == "events.jsonl:1:29: field 'time': time has no UTC offset (add Z or +HH:MM)")
    }

    @Test func invalidUTF8IsRejected() throws {
        for bad: [UInt8] in [[0xFF], [0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            var bytes = Array(#"{"time":"2013-03-27T08:05:00Z","type":"place","place":"ab"#.utf8)
            let at = bytes.count
            bytes += bad + Array("\"}\n".utf8)
            var reader = JSONLReader(bytes: bytes, name: "u.jsonl")
            #expect {
                _ = try reader.next()
            } throws: { error in
                guard let error = error as? JSONLError else { return false }
                return error.column == at + 1 && error.field == "place" && error.message.contains("invalid UTF-8")
            }
        }
    }

    @Test func emptyFileIsAnError() {
        var reader = JSONLReader(bytes: [], name: "empty.jsonl")
        #expect(throws: JSONLError(file: "empty.jsonl", line: 1, column: 1, field: nil, message: "file is empty: no events")) {
            _ = try reader.next()
        }
        #expect((try? reader.next()) == .some(nil), "the error is thrown once, then the reader is at its end")
    }

    @Test func blankOnlyFileIsAnError() {
        let error = firstError("\n  \n\r\n", name: "blank.jsonl")
        #expect(error?.line == 1)
        #expect(error?.message == "file has no events: all 3 lines are blank")
    }

    @Test func truncatedLastLineIsAnError() throws {
        let text = "{\"time\":\"2013-03-27T08:05:00Z\",\"type\":\"screen_on\"}\n{\"time\":\"2013-03-27T08:06:00Z\",\"type\":\"place\",\"pla"
        var reader = JSONLReader(bytes: Array(text.utf8), name: "cut.jsonl")
        #expect(try reader.next() != nil)
        #expect {
            _ = try reader.next()
        } throws: { error in
            guard let error = error as? JSONLError else { return false }
            return error.line == 2 && error.message.hasPrefix("last line is truncated")
        }
        #expect(try reader.next() == nil)
    }

    @Test func invalidLinesCanBeSkipped() throws {
        let text = """
            {"time":"2013-03-27T08:05:00Z","type":"screen_on","id":"1"}
            {"time":"2013-03-27T08:05:00Z","type":"bogus"}
            not json at all
            {"time":"2013-03-27T08:05:00Z","type":"screen_on","id":"4"}

            """
        var reader = JSONLReader(bytes: Array(text.utf8), name: "s.jsonl")
        var ids: [String?] = []
        var badLines: [Int] = []
        while true {
            do {
                guard let event = try reader.next() else { break }
                ids.append(event.id)
            } catch {
                badLines.append(error.line)
                #expect(reader.lineNumber == error.line)
            }
        }
        #expect(ids == ["1", "4"])
        #expect(badLines == [2, 3])
    }

    @Test func mutatedLinesNeverCrashAndAcceptedOnesRoundTrip() throws {
        var rng = SeededGenerator(seed: 7)
        let interesting: [UInt8] = Array(#"{}[],:"\u0-+.eE1 tfn"#.utf8) + [0x00, 0x0A, 0x7F, 0xC3, 0xA9, 0xED, 0xF0, 0xFF]
        var text: [UInt8] = []
        var blankLines = 0
        for _ in 0..<4000 {
            var line: [UInt8] = []
            JSONLWriter.append(RandomEvents.event(using: &rng), to: &line)
            line.removeLast()
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<line.count, using: &rng)
                switch Int.random(in: 0...3, using: &rng) {
                case 0: line[at] = interesting.randomElement(using: &rng)!
                case 1: line.remove(at: at)
                case 2: line.insert(interesting.randomElement(using: &rng)!, at: at)
                default: line.removeSubrange(at...)
                }
                if line.isEmpty { line = Array("{".utf8) }
            }
            line = line.map { $0 == 0x0A ? 0x20 : $0 }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { blankLines += 1 }
            text += line + [0x0A]
        }
        var reader = JSONLReader(bytes: text, name: "fuzz.jsonl")
        var accepted = 0, rejected = 0
        while true {
            do {
                guard let event = try reader.next() else { break }
                accepted += 1
                var again = JSONLReader(bytes: Array(JSONLWriter.line(for: event).utf8), name: "again")
                #expect(try again.next() == event)
            } catch {
                rejected += 1
                #expect(error.line == reader.lineNumber)
                #expect(error.column >= 1)
                #expect(!error.message.isEmpty)
            }
        }
        #expect(accepted + rejected + blankLines == 4000, "blank lines are skipped, every other line is accepted or rejected")
        #expect(rejected > 1000, "most mutations break a line")
    }

    // MARK: - Files and chunks

    @Test func missingFileIsAnErrorAtLineZero() {
        let path = "/nonexistent-\(UUID().uuidString)/events.jsonl"
        #expect(throws: JSONLError(file: path, line: 0, column: 0, field: nil, message: "cannot open: no such file")) {
            _ = try JSONLReader(path: path)
        }
        #expect(JSONLError(file: "a.jsonl", line: 0, column: 0, field: nil, message: "cannot open: no such file").description
                == "a.jsonl: cannot open: no such file")
    }

    @Test func directoryIsAnError() throws {
        let directory = FileManager.default.temporaryDirectory.path
        #expect {
            _ = try JSONLReader(path: directory)
        } throws: { error in
            (error as? JSONLError)?.line == 0 && (error as? JSONLError)?.message.contains("is a directory") == true
        }
    }

    @Test(arguments: [1, 3, 7, 64, 1 << 20])
    func linesSplitAcrossReadsAreJoined(chunkSize: Int) throws {
        var rng = SeededGenerator(seed: UInt64(chunkSize))
        let original = (0..<300).map { _ in RandomEvents.event(using: &rng) }
        var bytes: [UInt8] = []
        for event in original { JSONLWriter.append(event, to: &bytes) }
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try JSONLReader(path: path, chunkSize: chunkSize, maximumLineLength: 4096)
        var read: [Event] = []
        while let event = try reader.next() { read.append(event) }
        #expect(read == original)
        #expect(reader.lineNumber == original.count)
    }

    @Test func emptyAndTruncatedFilesFromDisk() throws {
        let empty = try temporaryFile([])
        defer { try? FileManager.default.removeItem(atPath: empty) }
        var reader = try JSONLReader(path: empty, chunkSize: 4, maximumLineLength: 64)
        #expect(throws: JSONLError(file: empty, line: 1, column: 1, field: nil, message: "file is empty: no events")) {
            _ = try reader.next()
        }
        let cut = try temporaryFile(Array("{\"time\":\"2013-03-27T08:05:00Z\",\"type\":\"screen_on\"}\n{\"time\":\"2013-03-27T08:0".utf8))
        defer { try? FileManager.default.removeItem(atPath: cut) }
        var truncated = try JSONLReader(path: cut, chunkSize: 4, maximumLineLength: 64)
        #expect(try truncated.next()?.type == .screenOn)
        #expect {
            _ = try truncated.next()
        } throws: { error in
            let error = error as? JSONLError
            return error?.line == 2 && error?.field == "time" && error?.message.hasPrefix("last line is truncated") == true
        }
        #expect(try truncated.next() == nil)
    }

    @Test(arguments: [5, 16, 100])
    func overlongLineIsRejectedAndSkipped(chunkSize: Int) throws {
        let good = #"{"time":"2013-03-27T08:05:00Z","type":"screen_on"}"#
        let long = #"{"time":"2013-03-27T08:05:00Z","type":"place","place":"\#(String(repeating: "x", count: 300))"}"#
        let path = try temporaryFile(Array((good + "\n" + long + "\n" + good + "\n" + long).utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try JSONLReader(path: path, chunkSize: chunkSize, maximumLineLength: 100)
        #expect(try reader.next() != nil)
        #expect(throws: JSONLError(file: path, line: 2, column: 101, field: nil, message: "line is longer than the limit of 100 bytes")) {
            _ = try reader.next()
        }
        #expect(try reader.next() != nil)
        #expect(reader.lineNumber == 3)
        #expect(throws: JSONLError.self) { _ = try reader.next() }
        #expect(try reader.next() == nil)
    }

    @Test func overlongLineInMemoryIsRejected() throws {
        let text = #"{"time":"2013-03-27T08:05:00Z","type":"place","place":"\#(String(repeating: "y", count: 200))"}"# + "\n"
        var reader = JSONLReader(bytes: Array(text.utf8), name: "m", maximumLineLength: 64)
        #expect(throws: JSONLError.self) { _ = try reader.next() }
        #expect(try reader.next() == nil)
    }

    // MARK: - Writer and round trip

    @Test func writerIsCanonical() throws {
        let event = Event(time: time("2013-03-27T08:05:00.5-04:00"), user: "u\"1", id: "e\n1",
                          payload: .stackConfig(stack: "s", widgets: [WidgetConfig(id: "w1", app: "com.a"), WidgetConfig(id: "w2")]))
        #expect(JSONLWriter.line(for: event)
                == #"{"time":"2013-03-27T08:05:00.5-04:00","type":"stack_config","user":"u\"1","id":"e\n1","stack":"s","widgets":[{"id":"w1","app":"com.a"},{"id":"w2"}]}"#)
        let location = Event(time: time("2013-03-27T12:05:00Z"), payload: .location(lat: 40, lon: -0.0, accuracy: 1e-7))
        #expect(JSONLWriter.line(for: location)
                == #"{"time":"2013-03-27T12:05:00Z","type":"location","user":"default","lat":40.0,"lon":-0.0,"accuracy":1e-07}"#)
        let impression = Event(time: time("2013-03-27T12:05:00Z"),
                               payload: .widgetImpression(stack: "s", widget: "w", propensity: 0.1, policy: nil))
        #expect(JSONLWriter.line(for: impression)
                == #"{"time":"2013-03-27T12:05:00Z","type":"widget_impression","user":"default","stack":"s","widget":"w","propensity":0.1}"#)
        var buffer: [UInt8] = []
        JSONLWriter.append(impression, to: &buffer)
        #expect(buffer == Array((JSONLWriter.line(for: impression) + "\n").utf8))
    }

    @Test func writerEscapesControlCharactersOnly() {
        let event = Event(time: time("2013-03-27T12:05:00Z"), payload: .place("\u{0}\u{1F}\u{7F}\\/é😀\u{2028}"))
        #expect(JSONLWriter.line(for: event)
                == "{\"time\":\"2013-03-27T12:05:00Z\",\"type\":\"place\",\"user\":\"default\",\"place\":\"\\u0000\\u001f\u{7F}\\\\/é😀\u{2028}\"}")
    }

    @Test func roundTripOverManyGeneratedEvents() throws {
        var rng = SeededGenerator(seed: 2013)
        let original = (0..<5000).map { _ in RandomEvents.event(using: &rng) }
        var bytes: [UInt8] = []
        for event in original { JSONLWriter.append(event, to: &bytes) }
        var reader = JSONLReader(bytes: bytes, name: "round.jsonl")
        var read: [Event] = []
        while let event = try reader.next() { read.append(event) }
        #expect(read.count == original.count)
        for (a, b) in zip(original, read) where a != b {
            Issue.record("round trip changed \(a) into \(b)")
            break
        }
        var again: [UInt8] = []
        for event in read { JSONLWriter.append(event, to: &again) }
        #expect(again == bytes, "export -> ingest -> export is byte-identical")
    }
}

/// Random valid events with awkward strings and numbers, for round-trip tests.
private enum RandomEvents {
    private static let alphabet: [String] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}",
                                              "é", "€", "😀", "\u{2028}", "{", "}", "[", "]", ":", ","]

    static func string<G: RandomNumberGenerator>(using rng: inout G, allowEmpty: Bool = false) -> String {
        let length = Int.random(in: (allowEmpty ? 0 : 1)...12, using: &rng)
        return (0..<length).map { _ in alphabet.randomElement(using: &rng)! }.joined()
    }

    static func number<G: RandomNumberGenerator>(in range: ClosedRange<Double>, using rng: inout G) -> Double {
        switch Int.random(in: 0...3, using: &rng) {
        case 0: return Double(Int.random(in: Int(range.lowerBound)...Int(range.upperBound), using: &rng))
        case 1: return range.lowerBound
        default: return Double.random(in: range, using: &rng)
        }
    }

    static func event<G: RandomNumberGenerator>(using rng: inout G) -> Event {
        let seconds = Int64.random(in: -2_000_000_000...4_000_000_000, using: &rng)
        let nanos = [0, 500_000_000, 1, 123_456_789, 100_000][Int.random(in: 0...4, using: &rng)]
        let offset = Int32(Int.random(in: -(23 * 60 + 59)...(23 * 60 + 59), using: &rng) * 60)
        let time = EventTime(nanosecondsSinceEpoch: seconds * 1_000_000_000 + Int64(nanos), utcOffsetSeconds: offset)
        let user = Bool.random(using: &rng) ? Event.defaultUser : string(using: &rng)
        let id: String? = Bool.random(using: &rng) ? string(using: &rng) : nil
        func s() -> String { string(using: &rng) }
        func maybe<T>(_ value: T) -> T? { Bool.random(using: &rng) ? value : nil }
        let payload: EventPayload
        switch EventType.allCases.randomElement(using: &rng)! {
        case .stackConfig:
            var widgets: [WidgetConfig] = []
            for k in 0..<Int.random(in: 0...5, using: &rng) { widgets.append(WidgetConfig(id: "w\(k)" + s(), app: maybe(s()))) }
            payload = .stackConfig(stack: s(), widgets: widgets)
        case .appLaunch: payload = .appLaunch(app: s())
        case .widgetImpression:
            let p = Double.random(in: 0.000_001...1, using: &rng)
            payload = .widgetImpression(stack: s(), widget: s(), propensity: maybe(p), policy: maybe(s()))
        case .widgetTap: payload = .widgetTap(widget: s(), stack: maybe(s()))
        case .widgetSwipe: payload = .widgetSwipe(stack: s(), from: s(), to: s())
        case .widgetPin: payload = .widgetPin(stack: s(), widget: s())
        case .widgetUnpin: payload = .widgetUnpin(stack: s(), widget: s())
        case .screenOn: payload = .screenOn
        case .location:
            let lat = number(in: -90...90, using: &rng), lon = number(in: -180...180, using: &rng)
            payload = .location(lat: lat, lon: lon, accuracy: maybe(number(in: 0...5000, using: &rng)))
        case .place: payload = .place(s())
        case .context: payload = .context(key: s(), value: string(using: &rng, allowEmpty: true))
        case .relevance:
            let score = [Double.random(in: -1e6...1e6, using: &rng), 1e300, -Double.leastNonzeroMagnitude, 0.1, -0.0][Int.random(in: 0...4, using: &rng)]
            payload = .relevance(widget: s(), score: score, duration: maybe(number(in: 0...86_400, using: &rng)))
        }
        return Event(time: time, user: user, id: id, payload: payload)
    }
}
