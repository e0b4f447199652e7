/// An instant together with the UTC offset the phone was on when it happened.
///
/// SmartStack never asks the system for the time or the time zone: every event carries its own
/// instant and offset, so local time of day is always the event's own and replays are exact.
///
/// ```swift
/// let t = try EventTime(rfc3339: "2013-03-27T08:05:00-04:00")
/// t.localSecondsOfDay   // 29_100 (08:05 local)
/// t.rfc3339             // "2013-03-27T08:05:00-04:00"
/// ```
///
/// Equality compares instant and offset; ordering is by instant first, then offset.
public struct EventTime: Sendable, Hashable, Comparable {
    /// Nanoseconds since 1970-01-01T00:00:00Z (the UTC instant).
    public var nanosecondsSinceEpoch: Int64
    /// The local offset from UTC in seconds (east positive), e.g. -14_400 for `-04:00`.
    public var utcOffsetSeconds: Int32

    /// Creates a time from a UTC instant in nanoseconds and a UTC offset in seconds.
    public init(nanosecondsSinceEpoch: Int64, utcOffsetSeconds: Int32) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// The UTC instant in seconds since the Unix epoch.
    public var secondsSinceEpoch: Double { Double(nanosecondsSinceEpoch) / 1_000_000_000 }

    /// Local wall-clock nanoseconds since 1970-01-01T00:00:00 (instant shifted by the offset).
    var localNanoseconds: Int64 { nanosecondsSinceEpoch + Int64(utcOffsetSeconds) * 1_000_000_000 }

    /// Local seconds since midnight, 0..<86_400, in the event's own offset.
    public var localSecondsOfDay: Int {
        Int(Self.floorMod(localNanoseconds, 86_400_000_000_000) / 1_000_000_000)
    }

    /// Local hour of day, 0...23.
    public var localHour: Int { localSecondsOfDay / 3600 }

    /// Local days since 1970-01-01 (negative before), in the event's own offset.
    public var localDayNumber: Int {
        Int(Self.floorDiv(localNanoseconds, 86_400_000_000_000))
    }

    /// ISO weekday of the local date: 1 = Monday ... 7 = Sunday.
    public var localWeekday: Int {
        // 1970-01-01 was a Thursday (ISO 4).
        Int(Self.floorMod(Int64(localDayNumber) + 3, 7)) + 1
    }

    /// Whether the local date is a Saturday or a Sunday.
    public var isWeekend: Bool { localWeekday >= 6 }

    /// The same offset, `seconds` later (negative for earlier).
    public func adding(seconds: Double) -> EventTime {
        EventTime(
            nanosecondsSinceEpoch: nanosecondsSinceEpoch + Int64((seconds * 1_000_000_000).rounded()),
            utcOffsetSeconds: utcOffsetSeconds)
    }

    /// Seconds from `other` to `self` (positive when `self` is later).
    public func seconds(since other: EventTime) -> Double {
        Double(nanosecondsSinceEpoch - other.nanosecondsSinceEpoch) / 1_000_000_000
    }

    public static func < (lhs: EventTime, rhs: EventTime) -> Bool {
        if lhs.nanosecondsSinceEpoch != rhs.nanosecondsSinceEpoch {
            return lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
        }
        return lhs.utcOffsetSeconds < rhs.utcOffsetSeconds
    }

    package static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
        let r = a % b
        return r < 0 ? r + b : r
    }
}
