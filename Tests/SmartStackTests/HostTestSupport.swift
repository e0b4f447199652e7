import Foundation
import Testing
@testable import SmartStack

/// Scripted routines for the host engine tests: several users, two stacks, every signal.
enum HostRoutine {
    static let base: Int64 = 1_364_371_200  // 2013-03-27T08:00:00Z

    static func time(day: Int, minutes: Int, offset: Int32 = -14_400) -> EventTime {
        EventTime(nanosecondsSinceEpoch: (base + Int64(day) * 86_400 + Int64(minutes) * 60) * 1_000_000_000,
                  utcOffsetSeconds: offset)
    }

    static let home = [WidgetConfig(id: "mail", app: "com.mail"), WidgetConfig(id: "weather", app: "com.weather"),
                       WidgetConfig(id: "music", app: "com.music"), WidgetConfig(id: "calendar", app: "com.cal")]
    static let work = [WidgetConfig(id: "slack", app: "com.slack"), WidgetConfig(id: "notes"),
                       WidgetConfig(id: "maps", app: "com.maps")]

    /// `days` days of a user's routine in time order, ids `"<user>-<n>"`; `seed` varies the noise.
    static func events(user: String, days: Int, seed: UInt64) -> [Event] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func next(_ n: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(n))
        }
        var events: [Event] = []
        func add(_ day: Int, _ minutes: Int, _ payload: EventPayload) {
            events.append(Event(time: time(day: day, minutes: minutes), user: user, id: "\(user)-\(events.count)", payload: payload))
        }
        add(0, 0, .stackConfig(stack: "home", widgets: home))
        add(0, 1, .stackConfig(stack: "work", widgets: work))
        let apps = ["com.mail", "com.weather", "com.music", "com.cal", "com.slack", "com.maps", "com.other"]
        for day in 0..<days {
            add(day, 5, .place("home"))
            add(day, 6, .context(key: "charging", value: next(2) == 0 ? "true" : "false"))
            add(day, 10 + next(10), .appLaunch(app: "com.weather"))
            add(day, 30, .screenOn)
            add(day, 31, .widgetImpression(stack: "home", widget: "mail", propensity: nil, policy: nil))
            add(day, 40 + next(20), .appLaunch(app: next(3) == 0 ? "com.music" : "com.mail"))
            add(day, 70, .location(lat: 40.7128 + Double(next(100)) * 1e-5, lon: -74.006, accuracy: 20))
            add(day, 90, .place("work"))
            add(day, 95 + next(30), .appLaunch(app: "com.slack"))
            add(day, 130, .widgetTap(widget: "notes", stack: "work"))
            if next(3) == 0 { add(day, 150, .widgetSwipe(stack: "home", from: "mail", to: "calendar")) }
            add(day, 200, .relevance(widget: "calendar", score: Double(next(10)) / 10, duration: 3600))
            if day % 3 == 2 { add(day, 210, .widgetPin(stack: "work", widget: "maps")) }
            if day % 3 == 0 && day > 0 { add(day, 205, .widgetUnpin(stack: "work", widget: "maps")) }
            for k in 0..<4 { add(day, 300 + k * 60 + next(30), .appLaunch(app: apps[next(apps.count)])) }
            add(day, 600, .context(key: "headphones", value: next(2) == 0 ? "connected" : "disconnected"))
            add(day, 620 + next(60), .appLaunch(app: "com.music"))
        }
        events.sort { $0.time < $1.time }
        return events
    }

    /// The instants rankings are compared at: several times of day on several days.
    static func probes(days: Int) -> [EventTime] {
        var times: [EventTime] = []
        for day in stride(from: 1, through: days, by: 2) {
            for minutes in [20, 100, 215, 640, 1000] { times.append(time(day: day, minutes: minutes)) }
        }
        return times
    }

    /// A fresh `UserEngine` fed `events` in order, for reference answers.
    static func reference(_ events: [Event], user: String, policy: PolicySpec) throws -> UserEngine {
        let engine = try UserEngine(user: user, policy: policy)
        for event in events where event.user == user { engine.record(event) }
        return engine
    }
}

/// A temporary directory removed when the value is released.
final class HostTemporaryDirectory {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("smartstack-host-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    var database: String { path + "/events.sqlite" }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
