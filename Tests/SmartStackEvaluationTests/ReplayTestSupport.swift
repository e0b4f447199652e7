import Synchronization
import SmartStack
@testable import SmartStackEvaluation

/// Test-only policies and data builders for the replay and metric tests.
enum Fixture {
    /// 2024-01-01T08:00:00Z.
    static let base: Int64 = 1_704_096_000 * 1_000_000_000

    static func at(minutes: Double, offset: Int32 = 0) -> EventTime {
        EventTime(nanosecondsSinceEpoch: base + Int64(minutes * 60e9), utcOffsetSeconds: offset)
    }

    static func event(_ minutes: Double, _ payload: EventPayload, user: String = "u1") -> Event {
        Event(time: at(minutes: minutes), user: user, payload: payload)
    }

    static func config(_ minutes: Double = 0, stack: String = "s", _ widgets: [String], user: String = "u1") -> Event {
        event(minutes, .stackConfig(stack: stack, widgets: widgets.map { WidgetConfig(id: $0, app: "app.\($0)") }), user: user)
    }

    static func launch(_ minutes: Double, _ widget: String, user: String = "u1") -> Event {
        event(minutes, .appLaunch(app: "app.\(widget)"), user: user)
    }

    static func screen(_ minutes: Double, user: String = "u1") -> Event { event(minutes, .screenOn, user: user) }

    static func options(warmupDays: Int = 0, window: Double = 600, bootstrap: Int = 200, threads: Int = 1) -> ReplayOptions {
        var o = ReplayOptions()
        o.warmupDays = warmupDays
        o.window = window
        o.bootstrapResamples = bootstrap
        o.threads = threads
        return o
    }

    /// Replays one user's events with `UserReplay`.
    static func replay(_ events: [Event], policies: [any ReplayPolicy], options: ReplayOptions = options()) throws -> UserReplayResult {
        try UserReplay(options: options)
            .run(user: events.first?.user ?? "u1", events: events, policies: policies, collectImpressions: true)
    }

    /// Metrics of policy `p` of a single-user replay.
    static func metrics(_ r: UserReplayResult, policy p: Int = 0) -> MetricValues {
        MetricValues(days: r.perPolicy[p].days, universe: r.universe)
    }
}

/// Shows a scripted sequence of tops, one per decision, the rest in configured order.
final class ScriptedPolicy: ReplayPolicy {
    var tops: [String]
    var calls = 0
    init(_ tops: [String]) { self.tops = tops }
    func record(_ event: Event) {}
    func decide(stack: String, widgets: [WidgetConfig], at time: EventTime) throws -> ReplayDecision {
        let top = tops[min(calls, tops.count - 1)]
        calls += 1
        return ReplayDecision(top: top, order: [top] + widgets.map(\.id).filter { $0 != top })
    }
}

/// The configured order, always.
final class StaticPolicy: ReplayPolicy {
    func record(_ event: Event) {}
    func decide(stack: String, widgets: [WidgetConfig], at time: EventTime) throws -> ReplayDecision {
        ReplayDecision(top: widgets.first?.id, order: widgets.map(\.id))
    }
}

/// Most recently launched widget first; explores with probability 0.2 using its seeded
/// generator, so results depend on the seed and on every event seen.
final class RecentPolicy: ReplayPolicy {
    var lastUse: [String: Int64] = [:]
    var generator: SeededGenerator
    var latestSeen: Int64 = .min
    var violations = 0
    var log: [(Int64, String, String?)] = []
    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }
    func record(_ event: Event) {
        latestSeen = max(latestSeen, event.time.nanosecondsSinceEpoch)
        if case .appLaunch(let app) = event.payload { lastUse[app] = event.time.nanosecondsSinceEpoch }
    }
    func decide(stack: String, widgets: [WidgetConfig], at time: EventTime) throws -> ReplayDecision {
        if latestSeen >= time.nanosecondsSinceEpoch { violations += 1 }
        var order = widgets.enumerated().sorted { a, b in
            let x = lastUse[a.element.app ?? ""] ?? .min, y = lastUse[b.element.app ?? ""] ?? .min
            return x != y ? x > y : a.offset < b.offset
        }.map(\.element.id)
        if generator.next() % 5 == 0, order.count > 1 { order.swapAt(0, Int(generator.next() % UInt64(order.count))) }
        log.append((time.nanosecondsSinceEpoch, stack, order.first))
        return ReplayDecision(top: order.first, order: order, propensity: 1)
    }
}

/// Collects what recording policies saw, across users and threads.
final class DecisionLog: Sendable {
    let entries = Mutex<[String: [String]]>([:])
    func add(user: String, _ line: String) { entries.withLock { $0[user, default: []].append(line) } }
    var snapshot: [String: [String]] { entries.withLock { $0 } }
}

/// A factory for `RecentPolicy` that logs every decision to `log`.
func recentFactory(log: DecisionLog? = nil, name: String = "recent") -> PolicyFactory {
    PolicyFactory(name: name) { user, seed in
        let p = LoggingPolicy(RecentPolicy(seed: seed), user: user, log: log)
        return p
    }
}

final class LoggingPolicy: ReplayPolicy {
    let inner: RecentPolicy
    let user: String
    let log: DecisionLog?
    init(_ inner: RecentPolicy, user: String, log: DecisionLog?) { self.inner = inner; self.user = user; self.log = log }
    func record(_ event: Event) { inner.record(event) }
    func decide(stack: String, widgets: [WidgetConfig], at time: EventTime) throws -> ReplayDecision {
        let d = try inner.decide(stack: stack, widgets: widgets, at: time)
        log?.add(user: user, "\(time.nanosecondsSinceEpoch) \(stack) \(d.order.joined(separator: ",")) seen<\(inner.latestSeen < time.nanosecondsSinceEpoch)")
        return d
    }
}

let staticFactory = PolicyFactory(name: "static") { _, _ in StaticPolicy() }

/// A seeded synthetic multi-user dataset: two stacks, screen_on sessions with launches.
func syntheticDataset(users: Int, days: Int, seed: UInt64, screenOn: Bool = true) -> [Event] {
    var g = SeededGenerator(seed: seed)
    var events: [Event] = []
    let apps = ["mail", "maps", "notes", "weather", "music", "news", "other"]
    for u in 0..<users {
        let user = "user\(u)"
        var t = 0.0
        events.append(Fixture.config(0, stack: "top", ["mail", "maps", "notes", "weather"], user: user))
        events.append(Fixture.config(0, stack: "bottom", ["music", "news", "maps"], user: user))
        while t < Double(days) * 1440 {
            t += Double(g.index(below: 120) + 5)
            if screenOn { events.append(Fixture.screen(t, user: user)) }
            let hourBias = Int(t / 60) % 24 < 12 ? 0 : 3
            for k in 0..<(g.index(below: 3) + 1) {
                let app = apps[(g.index(below: 4) + hourBias) % apps.count]
                events.append(Fixture.launch(t + Double(k) + Double(g.index(below: 5)), app, user: user))
            }
        }
    }
    return events
}
