import Foundation
import Testing
@testable import SmartStack

/// A temporary directory removed when the value is released.
final class StoreTemporaryDirectory {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("smartstack-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

enum StoreSamples {
    static let awkward = ["'); DROP TABLE events; --", "quote \" and ' and \\", "naïve café", "😀 𝄞 four-byte",
                          "tab\tnewline\ncontrol\u{1}", "", " leading and trailing ", "\u{0}nul"]

    /// One or more events of every type, with optional fields both present and absent, awkward
    /// strings, odd offsets and numbers that must round-trip bit for bit.
    static func everyType() -> [Event] {
        var events: [Event] = []
        var second = 0
        func add(_ payload: EventPayload, user: String = "u00", id: String? = nil, offset: Int32 = -14_400,
                 nanos: Int64 = 0) {
            second += 1
            let t = EventTime(nanosecondsSinceEpoch: 1_364_385_900_000_000_000 + Int64(second) * 1_000_000_000 + nanos,
                              utcOffsetSeconds: offset)
            events.append(Event(time: t, user: user, id: id, payload: payload))
        }
        add(.stackConfig(stack: "home", widgets: [WidgetConfig(id: "w1", app: "com.a"), WidgetConfig(id: "w2"),
                                                  WidgetConfig(id: awkward[0], app: awkward[3]), WidgetConfig(id: "", app: "")]),
            id: "e1")
        add(.stackConfig(stack: "empty", widgets: []))
        add(.appLaunch(app: "com.example.calendar"), id: "e2", offset: 0, nanos: 1)
        add(.widgetImpression(stack: "home", widget: "w1", propensity: 0.25, policy: "contextual:half_life=14d"), offset: 20_700)
        add(.widgetImpression(stack: "home", widget: "w2", propensity: nil, policy: nil), offset: -43_200)
        add(.widgetImpression(stack: "home", widget: "w2", propensity: 1, policy: ""), offset: 50_400)
        add(.widgetTap(widget: "w1", stack: "home"), nanos: 999_999_999)
        add(.widgetTap(widget: "w2", stack: nil))
        add(.widgetSwipe(stack: "home", from: "w1", to: "w2"))
        add(.widgetPin(stack: "home", widget: "w1"))
        add(.widgetUnpin(stack: "home", widget: "w1"))
        add(.screenOn, user: "u01")
        add(.location(lat: 40.712_776_123_456_78, lon: -74.005_974_1, accuracy: 12.5))
        add(.location(lat: -90, lon: 180, accuracy: nil))
        add(.location(lat: -0.0, lon: 0.1 + 0.2, accuracy: 0))
        add(.place("home"))
        add(.context(key: "charging", value: "true"))
        add(.relevance(widget: "w1", score: 0.75, duration: 3600))
        add(.relevance(widget: "w2", score: -0.0, duration: nil))
        add(.relevance(widget: "w2", score: .leastNonzeroMagnitude, duration: 0))
        add(.relevance(widget: "w3", score: .infinity, duration: .greatestFiniteMagnitude))
        for (k, text) in awkward.enumerated() {
            add(.appLaunch(app: text), user: text.isEmpty ? "empty-user" : text, id: text)
            add(.place(text), id: "p\(k)")
            add(.context(key: text, value: text))
        }
        return events
    }

    /// The first position where the events differ, including the sign of zero and other
    /// bit-level differences `==` hides; `nil` when they are the same.
    static func firstBitDifference(_ a: [Event], _ b: [Event]) -> String? {
        guard a.count == b.count else { return "\(a.count) events instead of \(b.count)" }
        for (k, (x, y)) in zip(a, b).enumerated()
        where x != y || numbers(x).map(\.bitPattern) != numbers(y).map(\.bitPattern) {
            return "event \(k): \(x) instead of \(y)"
        }
        return nil
    }

    static func numbers(_ event: Event) -> [Double] {
        switch event.payload {
        case let .widgetImpression(_, _, p, _): [p ?? .nan]
        case let .location(lat, lon, accuracy): [lat, lon, accuracy ?? .nan]
        case let .relevance(_, score, duration): [score, duration ?? .nan]
        default: []
        }
    }

    static func appLaunch(_ user: String, _ id: String?, at seconds: Int64, offset: Int32 = 0, app: String = "com.app") -> Event {
        Event(time: EventTime(nanosecondsSinceEpoch: seconds * 1_000_000_000, utcOffsetSeconds: offset),
              user: user, id: id, payload: .appLaunch(app: app))
    }

    static func fileBytes(_ path: String) -> [UInt8] {
        (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }
}
