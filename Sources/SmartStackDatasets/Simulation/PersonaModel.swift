import SmartStack

// Internal building blocks shared by the persona models: places, a day's plan, the context a
// persona's intent model sees at a decision point, and the protocol every persona implements.

/// A named place with coordinates in degrees.
struct SimPlace {
    var name: String
    var lat: Double
    var lon: Double
}

/// How a person moves between places (written as the `motion` context value).
enum Motion: String {
    case walking, cycling, driving, transit, flying
}

/// What the person is doing during a segment of the day.
enum SegmentKind: Equatable {
    /// Asleep at a place (charging, no screen sessions).
    case sleep(place: Int)
    /// Awake and staying at a place.
    case stay(place: Int)
    /// Moving from one place to another.
    case travel(from: Int, to: Int, motion: Motion)
}

/// A stretch of a simulated day, in seconds since the day's start instant.
struct Segment {
    var start: Int
    var end: Int
    var kind: SegmentKind
    /// A label the persona's intent model keys on (`work`, `class`, `commute`, `gym`, ...).
    var tag: String
    /// The phone's UTC offset during the segment.
    var offset: Int32

    var isSleep: Bool { if case .sleep = kind { return true } else { return false } }
    var isTravel: Bool { if case .travel = kind { return true } else { return false } }
    /// The place the person is at (sleeping or staying), or `nil` while travelling.
    var place: Int? {
        switch kind {
        case .sleep(let p), .stay(let p): return p
        case .travel: return nil
        }
    }
}

/// A relevance hint a widget donates, in seconds since the day's start.
struct PlannedHint {
    var at: Int
    var widget: Int
    var score: Double
    var duration: Int
}

/// One simulated day: contiguous segments covering `0..<length`, hints, and named marks
/// (e.g. `workStart`) the intent model may use.
struct DayPlan {
    var segments: [Segment] = []
    var hints: [PlannedHint] = []
    var marks: [String: Int] = [:]

    /// Appends a segment from the end of the previous one (or 0) to `end`.
    mutating func add(until end: Int, _ kind: SegmentKind, tag: String, offset: Int32) {
        let start = segments.last?.end ?? 0
        guard end > start else { return }
        segments.append(Segment(start: start, end: end, kind: kind, tag: tag, offset: offset))
    }
}

/// What a persona's intent model sees at a decision point (a `screen_on`).
struct IntentContext {
    /// Local hour of day as a real number in [0, 24).
    var hour: Double
    /// ISO weekday of the local date, 1 = Monday ... 7 = Sunday.
    var weekday: Int
    /// Day index since the start of the simulation.
    var day: Int
    /// Seconds since the start of the day's plan.
    var second: Int
    /// The segment the person is in.
    var segment: Segment
    /// Catalog index of the last app launched (a widget's app), or -1 (none / another app).
    var previousWidget: Int
    /// Catalog indices of the last widgets engaged, most recent first (at most three; launches
    /// of other apps in between do not count).
    var recentEngagements: [Int]
    /// Seconds since the last engagement of a widget, or `.infinity` before the first.
    var secondsSinceEngagement: Double
    /// Score of each catalog widget's active relevance hint, 0 when none is active.
    var hints: [Double]
    /// The day's plan.
    var plan: DayPlan

    var isWeekend: Bool { weekday >= 6 }
}

/// A parameterised model of one simulated person. Each user gets a fresh instance built from
/// their own seeded generator, so users of one persona differ.
protocol PersonaModel {
    /// Every widget the person ever has, with its app. Stacks refer to indices in this list.
    var catalog: [WidgetConfig] { get }
    /// The person's places; a model may add places as days go by (new restaurants, ...).
    var places: [SimPlace] { get }
    /// Apps outside the stacks the person also opens (messages, browser, ...).
    var otherApps: [String] { get }
    /// Probability of connecting headphones when starting to travel with `motion`.
    func headphonesChance(_ motion: Motion) -> Double
    /// The stacks on `day`: ids and catalog indices in the person's own order.
    func stacks(day: Int) -> [(id: String, widgets: [Int])]
    /// The UTC offset at the start of `day` (local midnight of that day starts the plan).
    func startOffset(day: Int) -> Int32
    /// The plan of `day`, covering `0..<length` seconds (length is usually 86 400).
    mutating func plan(day: Int, weekday: Int, length: Int, rng: inout SimulationRandom) -> DayPlan
    /// Unnormalised intent weights over the catalog at a decision point (index-aligned).
    func intent(_ c: IntentContext, into w: inout [Double])
    /// Probability that the session begun at this decision point engages some widget.
    func engageProbability(_ c: IntentContext) -> Double
    /// Mean extra gap between sessions in seconds (on top of the minimum).
    var sessionGapMean: Double { get }
    /// Mean extra gap before the next session when the last one was in `segment` (default:
    /// ``sessionGapMean``), for people whose pace changes through the day.
    func sessionGapMean(after segment: Segment) -> Double
    /// The least time between two sessions, in seconds (default 720: 12 minutes, longer than the
    /// 10-minute attribution window plus the longest engagement delay). Shorter gaps are
    /// allowed: the evaluator cuts each window at the next decision point, and every session's
    /// events still come before the next session.
    var minimumSessionGap: Int { get }
    /// Probability that a session also opens one of ``otherApps`` (default 0.35).
    var otherAppChance: Double { get }
}

extension PersonaModel {
    func sessionGapMean(after segment: Segment) -> Double { sessionGapMean }
    var minimumSessionGap: Int { 720 }
    var otherAppChance: Double { 0.35 }
}

/// Small helpers for persona models.
enum Shape {
    /// A circular Gaussian bump over the hour of day: 1 at `center`, width `sd` hours.
    @inline(__always)
    static func bump(_ hour: Double, _ center: Double, _ sd: Double) -> Double {
        var d = abs(hour - center).truncatingRemainder(dividingBy: 24)
        if d > 12 { d = 24 - d }
        let z = d / sd
        return z > 4 ? 0 : _exp(-0.5 * z * z)
    }

    /// 1 when `x` is in `[lo, hi)`, else 0.
    @inline(__always)
    static func within(_ x: Int, _ lo: Int?, _ hi: Int?) -> Double {
        guard let lo, let hi else { return 0 }
        return x >= lo && x < hi ? 1 : 0
    }

    /// A log-normal multiplier with median 1 (per-user variation).
    static func jitter(_ rng: inout SimulationRandom, _ sigma: Double = 0.3) -> Double {
        _exp(sigma * rng.normal())
    }

    /// A point about `meters` away from (`lat`, `lon`) in a random direction.
    static func nearby(_ lat: Double, _ lon: Double, meters: Double, _ rng: inout SimulationRandom) -> (Double, Double) {
        let angle = rng.uniform(0...(2 * Double.pi))
        let d = meters * rng.uniform(0.5...1.0)
        let dlat = d * _cos(angle) / 111_320
        let dlon = d * _cos(angle - Double.pi / 2) / (111_320 * max(0.1, _cos(lat * Double.pi / 180)))
        return (lat + dlat, lon + dlon)
    }

    /// Hours to seconds.
    @inline(__always)
    static func h(_ hours: Double) -> Int { Int((hours * 3600).rounded()) }
}
