import SmartStack

/// Builds scripted event sequences for engine tests, in one UTC offset (New York, -04:00).
struct Script {
    static let offset: Int32 = -4 * 3600
    /// Monday 2013-04-01 00:00 local.
    static let monday = EventTime(nanosecondsSinceEpoch: (1_364_774_400 + 4 * 3600) * 1_000_000_000, utcOffsetSeconds: offset)

    var events: [Event] = []

    /// Local time on `day` days after Monday 2013-04-01 at `hour:minute`.
    static func time(day: Int, _ hour: Int, _ minute: Int = 0, second: Int = 0) -> EventTime {
        monday.adding(seconds: Double(day * 86_400 + hour * 3600 + minute * 60 + second))
    }

    mutating func add(_ time: EventTime, _ payload: EventPayload) {
        events.append(Event(time: time, user: "u", payload: payload))
    }

    mutating func configure(_ stack: String, _ widgets: [String], at time: EventTime = Script.monday) {
        add(time, .stackConfig(stack: stack, widgets: widgets.map { WidgetConfig(id: $0, app: "app." + $0) }))
    }

    mutating func launch(_ widget: String, _ time: EventTime) { add(time, .appLaunch(app: "app." + widget)) }

    func engine(_ policy: String = "contextual", rotation: RotationParameters = RotationParameters(), seed: UInt64 = 0) throws -> UserEngine {
        let e = try UserEngine(user: "u", policy: PolicySpec(parsing: policy), rotation: rotation, seed: seed)
        for event in events.sorted(by: { $0.time < $1.time }) { e.record(event) }
        return e
    }
}

extension Ranking {
    var top: String? { widgets.first?.widget }
    var order: [String] { widgets.map(\.widget) }
    func widget(_ id: String) -> RankedWidget? { widgets.first { $0.widget == id } }
}
