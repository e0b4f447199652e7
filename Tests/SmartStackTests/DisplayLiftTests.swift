import Testing
@testable import SmartStack

/// The engine learns what the person came for, not what was shown to them: with randomised
/// impressions logged, engagements that the display explains are discounted.
@Suite struct DisplayLiftTests {
    /// A person with stack [a, b] under a logging policy that shows `a` with probability `pa`:
    /// at each screen-on they come for `b` with probability `intent`, and otherwise tap what is
    /// shown with probability `temptation`. Returns the events of `sessions` screen-ons.
    static func sessions(_ count: Int, pa: Double, intent: Double, temptation: Double, propensities: Bool = true,
                         impressions: Bool = true, seed: UInt64 = 3) -> [Event] {
        var g = SeededGenerator(seed: seed)
        let start = EventTime(nanosecondsSinceEpoch: 1_767_600_000_000_000_000, utcOffsetSeconds: 0)
        var events = [Event(time: start, user: "u", payload: .stackConfig(stack: "s", widgets: [
            WidgetConfig(id: "a", app: "app.a"), WidgetConfig(id: "b", app: "app.b"),
        ]))]
        for k in 0..<count {
            let t = start.adding(seconds: Double(k + 1) * 1800)
            let shown = g.nextUnit() < pa ? "a" : "b"
            events.append(Event(time: t, user: "u", payload: .screenOn))
            if impressions {
                events.append(Event(time: t, user: "u", payload: .widgetImpression(
                    stack: "s", widget: shown, propensity: propensities ? (shown == "a" ? pa : 1 - pa) : nil, policy: "logger")))
            }
            if g.nextUnit() < intent {
                events.append(Event(time: t.adding(seconds: 30), user: "u", payload: .appLaunch(app: "app.b")))
            } else if g.nextUnit() < temptation {
                events.append(Event(time: t.adding(seconds: 30), user: "u", payload: .widgetTap(widget: shown, stack: "s")))
            }
        }
        return events
    }

    static func top(after events: [Event], policy: String) throws -> String? {
        let engine = try UserEngine(user: "u", policy: PolicySpec(parsing: policy))
        for e in events { engine.record(e) }
        let at = events[events.count - 1].time.adding(seconds: 900)
        return try engine.ranking(stack: "s", at: at).widgets.first?.widget
    }

    @Test func theLiftEstimateFindsTheDisplayEffectOfARandomisedLogger() {
        // q(a) = 0.1, q(b) = 0.3, lift 0.2, a shown with probability 0.7 (full support).
        var lift = DisplayLift()
        var g = SeededGenerator(seed: 9)
        for _ in 0..<20_000 {
            let shown = g.nextUnit() < 0.7 ? 0 : 1
            let u = g.nextUnit()
            var engaged = u < 0.1 ? 0 : u < 0.4 ? 1 : -1
            if engaged < 0 && g.nextUnit() < 0.2 / 0.6 { engaged = shown }
            lift.settle(stack: 0, widget: shown, propensity: shown == 0 ? 0.7 : 0.3, size: 2, shownEngaged: engaged == shown,
                        anyEngaged: engaged >= 0, weight: 1)
        }
        #expect(abs(lift.lift(stack: 0) - 0.2) < 0.02, "\(lift.lift(stack: 0))")
        // b, engaged when shown at 0.3 + 0.2, keeps most of its weight; a keeps a third.
        #expect(abs(lift.discount(widget: 1, stack: 0) - 0.3 / 0.5) < 0.05)
        #expect(abs(lift.discount(widget: 0, stack: 0) - 0.1 / 0.3) < 0.06)
        // A deterministic display (propensity 1) says nothing about the lift.
        var blind = DisplayLift()
        for k in 0..<1000 { blind.settle(stack: 0, widget: 0, propensity: 1, size: 2, shownEngaged: k % 2 == 0, anyEngaged: true, weight: 1) }
        #expect(blind.lift(stack: 0) == 0 && blind.discount(widget: 0, stack: 0) == 1)
    }

    @Test func tapsTheDisplayDrewDoNotMakeTheShownWidgetLookWanted() throws {
        // The logger shows a 90% of the time; the person comes for b 30% of the time and
        // otherwise taps what is shown 80% of the time: a is tapped more, b is what they want.
        let events = Self.sessions(600, pa: 0.9, intent: 0.3, temptation: 0.8)
        #expect(try Self.top(after: events, policy: "mfu") == "a")   // raw counts follow the display
        #expect(try Self.top(after: events, policy: "contextual") == "b")
        // The counts behind it: a's taps, all drawn by the display, count for little.
        func uses(_ events: [Event]) throws -> (a: Double, b: Double) {
            let engine = try UserEngine(user: "u", policy: PolicySpec(parsing: "contextual"))
            for e in events { engine.record(e) }
            let f = engine.features
            return (f.signals[Int(f.widgets.index(of: "a")!)].totalUses, f.signals[Int(f.widgets.index(of: "b")!)].totalUses)
        }
        let raw = events.reduce(into: (a: 0.0, b: 0.0)) { n, e in
            if case .widgetTap(let w, _) = e.payload { if w == "a" { n.a += 1 } else { n.b += 1 } }
            if case .appLaunch = e.payload { n.b += 1 }
        }
        let learnt = try uses(events)
        #expect(raw.a > raw.b && learnt.a < 0.25 * raw.a && learnt.b > learnt.a)
        // Without propensities nothing tells the display's effect apart: every engagement counts.
        let blind = try uses(Self.sessions(600, pa: 0.9, intent: 0.3, temptation: 0.8, propensities: false))
        #expect(blind.a == raw.a && blind.b == raw.b)
    }

    @Test func withoutRandomisedImpressionsTheCountsAreThoseOfEveryEngagement() throws {
        let withImpressions = Self.sessions(200, pa: 1, intent: 0.4, temptation: 0.5)
        let without = Self.sessions(200, pa: 1, intent: 0.4, temptation: 0.5, impressions: false)
        // A logger that always shows a (propensity 1) gives no randomised impression: the lift
        // is 0 and the usage counts equal those of the same engagements without impressions.
        let engine = try UserEngine(user: "u", policy: PolicySpec(parsing: "contextual"))
        for e in withImpressions { engine.record(e) }
        #expect(engine.features.displayLift.lift(stack: 0) == 0)
        let usage = { (events: [Event]) throws -> [Double] in
            let e = try UserEngine(user: "u", policy: PolicySpec(parsing: "contextual"))
            for x in events { e.record(x) }
            return e.features.signals.map(\.totalUses)
        }
        #expect(try usage(withImpressions) == usage(without))
    }
}
