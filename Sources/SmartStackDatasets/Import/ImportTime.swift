import SmartStack

/// How a time column is written.
public enum ImportTimeFormat: String, Sendable, Hashable, CaseIterable {
    /// Unix seconds, fractions allowed (`1364095883`, `1488346471.195`).
    case unix
    /// Unix milliseconds (`1364095883000`).
    case unixMilliseconds = "unix-ms"
    /// A date-time `2013-03-27T08:05:00-04:00` (`T` or a space; seconds and fraction
    /// optional). Without an offset (`2018-01-16 06:01:05`) it is local time, read with the
    /// importer's ``LocalTimeRule``.
    case rfc3339
}

/// Turns time texts into ``EventTime`` values with the right offset.
///
/// ```swift
/// let t = try ImportTime.parse("2013-03-10 03:30:00", format: .rfc3339, rule: .newYork)
/// t.rfc3339   // "2013-03-10T03:30:00-04:00"
/// ```
public enum ImportTime {
    /// Parses `text` written in `format`; instants without an offset of their own get the
    /// offset `rule` gives at that instant (or, for local texts, at that wall-clock time).
    ///
    /// - Throws: a message (without location; callers add file, line, column).
    public static func parse(_ text: String, format: ImportTimeFormat, rule: LocalTimeRule) throws(ImportError) -> EventTime {
        let t = text.trimmingSpaces()
        guard !t.isEmpty else { throw ImportError(file: "", message: "empty time") }
        switch format {
        case .unix, .unixMilliseconds:
            guard let nanos = unixNanoseconds(t, scale: format == .unix ? 1_000_000_000 : 1_000_000) else {
                let unit = format == .unix ? "seconds" : "milliseconds"
                let hint = format == .unix && Double(t).map { abs($0) >= 1e11 } == true ? " (milliseconds? use --time-format unix-ms)" : ""
                throw ImportError(file: "", message: "not a Unix time in \(unit): '\(t)'\(hint)")
            }
            return instant(nanoseconds: nanos, rule: rule)
        case .rfc3339:
            return try dateTime(t, rule: rule)
        }
    }

    /// The event time of a Unix instant with the offset `rule` gives there.
    public static func instant(seconds: Double, rule: LocalTimeRule) -> EventTime {
        instant(nanoseconds: Int64((seconds * 1_000_000_000).rounded()), rule: rule)
    }

    /// The event time of a Unix instant in nanoseconds with the offset `rule` gives there.
    public static func instant(nanoseconds: Int64, rule: LocalTimeRule) -> EventTime {
        let whole = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : -((-nanoseconds + 999_999_999) / 1_000_000_000)
        return EventTime(nanosecondsSinceEpoch: nanoseconds, utcOffsetSeconds: rule.utcOffset(atUnixSeconds: whole))
    }

    /// A decimal number of time units (`1488346471.195`, `-5`, `1.4e9`) as nanoseconds, where
    /// one unit is `nanosecondsPerUnit`; plain decimals are read exactly from their digits
    /// (`.195` s is 195 000 000 ns, not the nearest binary fraction). `nil` if not a number or
    /// beyond ±9·10^9 seconds (about the year 2255).
    static func unixNanoseconds(_ text: String, scale nanosecondsPerUnit: Int64) -> Int64? {
        let b = Array(text.utf8)
        var i = 0
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
        }
        var whole: Int64 = 0
        var digits = 0
        while i < b.count, b[i] >= 48, b[i] <= 57 {
            whole = whole * 10 + Int64(b[i] - 48)
            digits += 1
            i += 1
            if digits > 15 { return nil }
        }
        var fraction: Int64 = 0
        var place = nanosecondsPerUnit
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if place >= 10 {
                    place /= 10
                    fraction += Int64(b[i] - 48) * place
                }
                digits += 1
                i += 1
            }
        }
        let limit: Int64 = 9_000_000_000 * 1_000_000_000  // about the year 2255
        if i != b.count {
            // Exponent forms and the like: binary floating point.
            guard let value = Double(text), value.isFinite else { return nil }
            let nanos = (value * Double(nanosecondsPerUnit)).rounded()
            guard abs(nanos) < Double(limit) else { return nil }
            return Int64(nanos)
        }
        guard digits > 0 else { return nil }
        let (product, overflow) = whole.multipliedReportingOverflow(by: nanosecondsPerUnit)
        guard !overflow, product + fraction < limit else { return nil }
        return negative ? -(product + fraction) : product + fraction
    }

    private static func dateTime(_ t: String, rule: LocalTimeRule) throws(ImportError) -> EventTime {
        let b = Array(t.utf8)
        let n = b.count
        let bad = ImportError(file: "", message: "not a date-time: '\(t)' (expected e.g. 2013-03-27T08:05:00-04:00 "
            + "or 2018-01-16 06:01:05)")
        var i = 0
        func number(_ count: Int) throws(ImportError) -> Int64 {
            var v: Int64 = 0
            for _ in 0..<count {
                guard i < n, b[i] >= 48, b[i] <= 57 else { throw bad }
                v = v * 10 + Int64(b[i] - 48)
                i += 1
            }
            return v
        }
        func expect(_ c: Character) throws(ImportError) {
            guard i < n, b[i] == c.asciiValue! else { throw bad }
            i += 1
        }
        let year = try number(4); try expect("-")
        let month = try number(2); try expect("-")
        let day = try number(2)
        guard i < n, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") else { throw bad }
        i += 1
        let hour = try number(2); try expect(":")
        let minute = try number(2)
        var second: Int64 = 0
        var nanos: Int64 = 0
        if i < n, b[i] == UInt8(ascii: ":") {
            i += 1
            second = try number(2)
            if i < n, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                i += 1
                var digits = 0
                while i < n, b[i] >= 48, b[i] <= 57 {
                    if digits < 9 { nanos = nanos * 10 + Int64(b[i] - 48); digits += 1 }
                    i += 1
                }
                guard digits > 0 else { throw bad }
                for _ in digits..<9 { nanos *= 10 }
            }
        }
        var offset: Int32?
        if i < n {
            if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                offset = 0
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let negative = b[i] == UInt8(ascii: "-")
                i += 1
                let oh = try number(2)
                if i < n, b[i] == UInt8(ascii: ":") { i += 1 }
                let om = i < n ? try number(2) : 0
                guard oh <= 23, om <= 59 else { throw bad }
                offset = Int32((oh * 3600 + om * 60) * (negative ? -1 : 1))
            }
        }
        guard i == n else { throw bad }
        guard month >= 1, month <= 12, day >= 1, day <= EventTime.daysInMonth(year: year, month: month),
              hour <= 23, minute <= 59, second <= 59
        else {
            throw ImportError(file: "", message: "impossible date-time: '\(t)'")
        }
        let years = EventTime.supportedYears
        guard years.contains(year) else {
            throw ImportError(file: "", message: "date-time out of the supported range (years \(years.lowerBound)...\(years.upperBound)): '\(t)'")
        }
        let local = EventTime.daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        let resolved = offset ?? rule.utcOffset(forLocalSeconds: local)
        let utc = local - Int64(resolved)
        // A local time inside a spring-forward gap: report it at the first valid reading.
        let finalOffset = offset ?? rule.utcOffset(atUnixSeconds: utc)
        return EventTime(nanosecondsSinceEpoch: utc * 1_000_000_000 + nanos, utcOffsetSeconds: finalOffset)
    }
}
