import Foundation
import Testing
@testable import SmartStack

/// Hostile and awkward text in every text field goes through `smartstack ingest` and comes back
/// out of `smartstack export` unchanged, and never runs as SQL (every statement binds values).
@Suite struct InjectionTests {
    /// SQL injection attempts, quotes, backslashes, every NUL-free control character, 4-byte
    /// UTF-8, combining marks, line and paragraph separators, a byte order mark, long text.
    static let hostile: [String] = [
        "'); DROP TABLE events; --",
        "\"; DELETE FROM users; --",
        "x' OR '1'='1",
        "Robert'); DROP TABLE engine_state;--",
        "' UNION SELECT name FROM sqlite_schema --",
        "?1 ?2 :name @p $v",
        "quote \" backslash \\ slash / apostrophe '",
        String((1...31).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}",
        "😀👩‍👩‍👧‍👦 𝄞 𠜎 four-byte",
        "e\u{301} combining, \u{2028} line sep, \u{2029} para sep, \u{FEFF} bom",
        "%s %n %x {0} ${HOME} `id`",
        String(repeating: "long-😀-", count: 500),
    ]

    /// `text` as a JSON string literal (quotes, backslash and control characters escaped).
    static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// One event of each text-carrying type per hostile string, the string in every text field.
    static func hostileJSONL() -> String {
        var lines: [String] = []
        for (k, text) in hostile.enumerated() {
            let t = { (i: Int) in #""time":"2013-03-27T08:\#(String(format: "%02d", k)):\#(String(format: "%02d", i))-04:00""# }
            let s = json(text)
            let id = { (i: Int) in json(text + "#\(i)") }
            lines += [
                #"{\#(t(0)),"type":"stack_config","user":\#(s),"id":\#(id(0)),"stack":\#(s),"widgets":[{"id":\#(s),"app":\#(s)},{"id":"plain"}]}"#,
                #"{\#(t(1)),"type":"app_launch","user":\#(s),"id":\#(id(1)),"app":\#(s)}"#,
                #"{\#(t(2)),"type":"widget_impression","user":\#(s),"id":\#(id(2)),"stack":\#(s),"widget":\#(s),"propensity":0.5,"policy":\#(s)}"#,
                #"{\#(t(3)),"type":"widget_tap","user":\#(s),"id":\#(id(3)),"widget":\#(s),"stack":\#(s)}"#,
                #"{\#(t(4)),"type":"widget_swipe","user":\#(s),"id":\#(id(4)),"stack":\#(s),"from":\#(s),"to":\#(s)}"#,
                #"{\#(t(5)),"type":"widget_pin","user":\#(s),"id":\#(id(5)),"stack":\#(s),"widget":\#(s)}"#,
                #"{\#(t(6)),"type":"place","user":\#(s),"id":\#(id(6)),"place":\#(s)}"#,
                #"{\#(t(7)),"type":"context","user":\#(s),"id":\#(id(7)),"key":\#(s),"value":\#(s)}"#,
                #"{\#(t(8)),"type":"relevance","user":\#(s),"id":\#(id(8)),"widget":\#(s),"score":1}"#,
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func parse(_ text: String) throws -> [Event] {
        var reader = JSONLReader(bytes: Array(text.utf8), name: "<test>")
        var events: [Event] = []
        while let event = try reader.next() { events.append(event) }
        return events
    }

    @Test func hostileTextRoundTripsThroughTheToolUnchanged() throws {
        let directory = try StoreTemporaryDirectory()
        let input = directory.file("hostile.jsonl")
        let jsonl = Self.hostileJSONL()
        try Data(jsonl.utf8).write(to: URL(fileURLWithPath: input))
        let expected = try Self.parse(jsonl)
        try #require(expected.count == Self.hostile.count * 9)
        // The reader got the text exactly: the hostile strings are in the parsed events.
        #expect(expected.contains { $0.payload == .appLaunch(app: "'); DROP TABLE events; --") })

        let db = directory.file("events.db")
        let ingest = try ReliabilityCLI.run(["ingest", input, "--db", db], in: directory.path)
        #expect(ingest.status == 0, "\(ingest.error)")
        #expect(ingest.output.hasPrefix("ingested \(expected.count) events"), "\(ingest.output)")

        // The schema survived: every table is still there and counts are exact.
        let store = try EventStore(path: db)
        let tables = try store.connection.withDatabase { db in
            try db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").compactMap { $0.first?.textValue }
        }
        #expect(tables == ["counters", "engine_state", "events", "schema_migrations", "users"])
        #expect(try store.count(EventQuery()) == expected.count)
        #expect(try store.users() == Self.hostile.sorted())

        // Export gives back every field unchanged; export → ingest → export is byte-identical.
        let export = try ReliabilityCLI.run(["export", "--db", db], in: directory.path)
        #expect(export.status == 0, "\(export.error)")
        let back = try Self.parse(export.output)
        #expect(Set(back) == Set(expected))
        #expect(back.count == expected.count)
        let exported = directory.file("exported.jsonl")
        try Data(export.output.utf8).write(to: URL(fileURLWithPath: exported))
        let second = directory.file("second.db")
        #expect(try ReliabilityCLI.run(["ingest", exported, "--db", second], in: directory.path).status == 0)
        #expect(try ReliabilityCLI.run(["export", "--db", second], in: directory.path).output == export.output)

        // Filters and forget take hostile text as data too.
        for text in Self.hostile.prefix(5) {
            let one = try ReliabilityCLI.run(["export", "--db", db, "--user", text], in: directory.path)
            #expect(one.status == 0)
            #expect(try Self.parse(one.output).count == 9, "user \(text)")
        }
        let forget = try ReliabilityCLI.run(["forget", "--db", db, "--user", Self.hostile[0], "--app", Self.hostile[1]],
                                            in: directory.path)
        #expect(forget.status == 0, "\(forget.error)")
        #expect(try store.count(EventQuery(user: Self.hostile[0])) == 0)
        // The app's launch and the five events naming its widget went; its stack_config stays,
        // rewritten without the widget.
        #expect(try store.count(EventQuery()) == expected.count - 9 - 6)
        #expect(try store.events(EventQuery(user: Self.hostile[1], types: [.stackConfig])).map(\.payload)
                == [.stackConfig(stack: Self.hostile[1], widgets: [WidgetConfig(id: "plain")])])
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func hostileTextInTheStoreAPIIsData() throws {
        let store = try EventStore(path: ":memory:")
        let events = Self.hostile.enumerated().map { k, text in
            Event(time: EventTime(nanosecondsSinceEpoch: Int64(k), utcOffsetSeconds: 0), user: text, id: text,
                  payload: .place(text))
        }
        try store.append(contentsOf: events, batchSize: 3)
        for text in Self.hostile {
            #expect(try store.events(EventQuery(user: text)).map(\.payload) == [.place(text)])
            try store.saveState(user: text, key: text, sequence: 1, blob: Array(text.utf8))
            #expect(try store.loadState(user: text, key: text)?.blob == Array(text.utf8))
        }
        #expect(try store.erase(app: Self.hostile[0]).deletedEvents == 0)
        #expect(try store.erase(user: Self.hostile[0]) == 1)
        #expect(try store.count(EventQuery()) == Self.hostile.count - 1)
    }
}
