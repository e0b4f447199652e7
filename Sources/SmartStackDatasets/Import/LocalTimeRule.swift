import Foundation
import SmartStack

/// How an importer finds the UTC offset of a recorded instant: a fixed offset, the United
/// States daylight-saving rules computed here (no time-zone database needed), or a named
/// zone from the system's tz data through Foundation.
///
/// ```swift
/// let ny = LocalTimeRule.newYork
/// ny.utcOffset(atUnixSeconds: 1_362_898_799)   // -18_000 (2013-03-10 01:59:59 EST)
/// ny.utcOffset(atUnixSeconds: 1_362_898_800)   // -14_400 (03:00:00 EDT)
/// ```
public enum LocalTimeRule: Sendable, Hashable, CustomStringConvertible {
    /// Always the same offset (seconds east of UTC).
    case fixed(seconds: Int32)
    /// A US zone with the given standard offset that observes US daylight saving: since 2007
    /// from the second Sunday of March 02:00 local standard time to the first Sunday of
    /// November 02:00 local daylight time; 1987-2006 first Sunday of April to last Sunday of
    /// October; 1967-1986 last Sunday of April to last Sunday of October (the 1974-75 energy
    /// crisis exceptions are not modelled); none before 1967.
    case unitedStates(standardOffset: Int32, name: String)
    /// A zone of the system's tz database (Foundation's `TimeZone`, data-driven).
    case zone(TimeZone)

    /// UTC.
    public static let utc = LocalTimeRule.fixed(seconds: 0)
    /// America/New_York (US Eastern), computed without the tz database.
    public static let newYork = LocalTimeRule.unitedStates(standardOffset: -18_000, name: "America/New_York")

    /// The US zones computed by the built-in rule, by tz name.
    static let builtInZones: [String: LocalTimeRule] = [
        "america/new_york": .newYork, "us/eastern": .newYork,
        "america/chicago": .unitedStates(standardOffset: -21_600, name: "America/Chicago"),
        "us/central": .unitedStates(standardOffset: -21_600, name: "America/Chicago"),
        "america/denver": .unitedStates(standardOffset: -25_200, name: "America/Denver"),
        "us/mountain": .unitedStates(standardOffset: -25_200, name: "America/Denver"),
        "america/los_angeles": .unitedStates(standardOffset: -28_800, name: "America/Los_Angeles"),
        "us/pacific": .unitedStates(standardOffset: -28_800, name: "America/Los_Angeles"),
    ]

    /// Parses an offset: `Z`, `UTC`, `+02:00`, `-0500`, `+5`, `-03:30`.
    ///
    /// - Throws: ``ImportError`` (no file) describing the accepted forms.
    public init(utcOffset text: String) throws(ImportError) {
        let t = text.trimmingSpaces()
        if ["z", "utc", "gmt", "0", "+0", "-0"].contains(t.lowercased()) { self = .utc; return }
        let bytes = Array(t.utf8)
        let bad = ImportError(file: "", message: "invalid UTC offset '\(text)' (expected e.g. -05:00, +0530, +2, Z or UTC)")
        guard let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { throw bad }
        let digits = bytes.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { throw bad }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        let hours: Int, minutes: Int
        if digits.count <= 2 { hours = value; minutes = 0 } else { hours = value / 100; minutes = value % 100 }
        guard hours <= 23, minutes <= 59 else { throw bad }
        let seconds = Int32((hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1))
        self = .fixed(seconds: seconds)
    }

    /// Resolves a time-zone name: the US zones (`America/New_York`, `US/Eastern`, Chicago,
    /// Denver, Los_Angeles) by the built-in rule, `UTC`, any other tz name through the
    /// system's tz data, or an offset like `-05:00`.
    ///
    /// - Throws: ``ImportError`` if the name is unknown.
    public init(timeZone name: String) throws(ImportError) {
        let key = name.trimmingSpaces().lowercased()
        if let builtIn = LocalTimeRule.builtInZones[key] { self = builtIn; return }
        if let first = key.first, first == "+" || first == "-" || ["z", "utc", "gmt"].contains(key) {
            try self.init(utcOffset: name)
            return
        }
        guard let zone = TimeZone(identifier: name.trimmingSpaces()) else {
            throw ImportError(file: "", message: "unknown time zone '\(name)' (use a tz name such as "
                + "America/New_York or Europe/Paris, or an offset such as -05:00)")
        }
        self = .zone(zone)
    }

    /// The rule's name as a user would write it.
    public var description: String {
        switch self {
        case .fixed(let seconds): return LocalTimeRule.formatOffset(seconds)
        case .unitedStates(_, let name): return name
        case .zone(let zone): return zone.identifier
        }
    }

    /// `+HH:MM` / `-HH:MM` (`UTC` for zero).
    static func formatOffset(_ seconds: Int32) -> String {
        if seconds == 0 { return "UTC" }
        let m = abs(Int(seconds)) / 60
        let h = m / 60, mm = m % 60
        return (seconds < 0 ? "-" : "+") + (h < 10 ? "0" : "") + "\(h):" + (mm < 10 ? "0" : "") + "\(mm)"
    }

    /// The offset in effect at a UTC instant.
    ///
    /// - Complexity: O(1).
    public func utcOffset(atUnixSeconds t: Int64) -> Int32 {
        switch self {
        case .fixed(let seconds):
            return seconds
        case .unitedStates(let standard, _):
            let year = EventTime.civilFromDays(EventTime.floorDiv(t + Int64(standard), 86_400)).0
            guard let (start, end) = LocalTimeRule.usDaylightSpan(year: year, standardOffset: standard) else {
                return standard
            }
            return t >= start && t < end ? standard + 3600 : standard
        case .zone(let zone):
            return Int32(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(t))))
        }
    }

    /// The offset that applies to a local wall-clock time (seconds since 1970-01-01T00:00
    /// local), so that `local - offset` is the UTC instant. In the repeated hour when clocks
    /// fall back the earlier (daylight) reading is chosen; a time inside the hour skipped when
    /// clocks spring forward is read with the offset before the change (02:30 becomes 03:30
    /// daylight time).
    ///
    /// - Complexity: O(1).
    public func utcOffset(forLocalSeconds local: Int64) -> Int32 {
        if case .fixed(let seconds) = self { return seconds }
        let before = utcOffset(atUnixSeconds: local - 86_400)
        let after = utcOffset(atUnixSeconds: local + 86_400)
        let valid = [before, after].filter { utcOffset(atUnixSeconds: local - Int64($0)) == $0 }
        return valid.max() ?? before
    }

    /// The UTC instants [start, end) of US daylight saving in `year`, or `nil` if none.
    static func usDaylightSpan(year: Int64, standardOffset: Int32) -> (Int64, Int64)? {
        let startDay: Int64, endDay: Int64
        if year >= 2007 {
            startDay = CivilDate.nthSunday(year: year, month: 3, n: 2)
            endDay = CivilDate.nthSunday(year: year, month: 11, n: 1)
        } else if year >= 1987 {
            startDay = CivilDate.nthSunday(year: year, month: 4, n: 1)
            endDay = CivilDate.lastSunday(year: year, month: 10)
        } else if year >= 1967 {
            startDay = CivilDate.lastSunday(year: year, month: 4)
            endDay = CivilDate.lastSunday(year: year, month: 10)
        } else {
            return nil
        }
        // 02:00 local standard time, and 02:00 local daylight time.
        let start = startDay * 86_400 + 7200 - Int64(standardOffset)
        let end = endDay * 86_400 + 7200 - Int64(standardOffset + 3600)
        return (start, end)
    }
}

/// The Sundays daylight-saving rules start and end on, in day numbers (days since 1970-01-01;
/// the calendar arithmetic itself is the engine's, `EventTime`).
enum CivilDate {
    /// 0 = Sunday ... 6 = Saturday.
    static func weekday(ofDay z: Int64) -> Int64 {
        let r = (z + 4) % 7  // 1970-01-01 was a Thursday (4).
        return r < 0 ? r + 7 : r
    }

    /// Day number of the n-th Sunday (1-based) of a month.
    static func nthSunday(year: Int64, month: Int64, n: Int64) -> Int64 {
        let first = EventTime.daysFromCivil(year: year, month: month, day: 1)
        return first + (7 - weekday(ofDay: first)) % 7 + 7 * (n - 1)
    }

    /// Day number of the last Sunday of a month.
    static func lastSunday(year: Int64, month: Int64) -> Int64 {
        let nextMonthFirst = month == 12 ? EventTime.daysFromCivil(year: year + 1, month: 1, day: 1)
            : EventTime.daysFromCivil(year: year, month: month + 1, day: 1)
        let last = nextMonthFirst - 1
        return last - weekday(ofDay: last)
    }
}
