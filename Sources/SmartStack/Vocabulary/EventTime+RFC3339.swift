/// Why a text is not an RFC 3339 time with an offset.
public struct TimeFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, e.g. `time has no UTC offset (add Z or +HH:MM)`.
    public var message: String
    /// Zero-based byte index inside the time text where the problem was found.
    public var offset: Int

    public var description: String { message }
}

extension EventTime {
    /// Parses an RFC 3339 date-time with a UTC offset (`2013-03-27T08:05:00-04:00`,
    /// `2013-03-27T12:05:00.25Z`). Up to 9 fractional digits; `t`/`z` may be lowercase.
    /// Years 1678...2261 (the range of nanoseconds since 1970 in an `Int64`).
    ///
    /// - Throws: ``TimeFormatError`` for a missing offset, an impossible date, or a malformed text.
    public init(rfc3339 text: String) throws(TimeFormatError) {
        let bytes = Array(text.utf8)
        let result: Result<EventTime, TimeFormatError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(TimeFormatError) {
                return .success(try EventTime(rfc3339Bytes: buffer))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    /// Parses an RFC 3339 date-time from UTF-8 bytes (the hot path of the JSONL reader).
    ///
    /// - Complexity: O(n) in the length of the text, no allocation on success.
    public init(rfc3339Bytes b: UnsafeBufferPointer<UInt8>) throws(TimeFormatError) {
        let n = b.count
        func digit(_ i: Int) throws(TimeFormatError) -> Int64 {
            guard i < n else { throw TimeFormatError(message: "time is truncated", offset: i) }
            let c = b[i]
            guard c >= 48, c <= 57 else {
                throw TimeFormatError(message: "expected a digit in time, found \(describeByte(c))", offset: i)
            }
            return Int64(c - 48)
        }
        func number(_ i: Int, _ count: Int) throws(TimeFormatError) -> Int64 {
            var v: Int64 = 0
            for k in 0..<count { v = v * 10 + (try digit(i + k)) }
            return v
        }
        func expect(_ i: Int, _ c: UInt8, _ what: String) throws(TimeFormatError) {
            guard i < n else { throw TimeFormatError(message: "time is truncated (expected \(what))", offset: i) }
            guard b[i] == c else { throw TimeFormatError(message: "expected \(what) in time", offset: i) }
        }
        let year = try number(0, 4)
        try expect(4, UInt8(ascii: "-"), "'-' after the year")
        let month = try number(5, 2)
        try expect(7, UInt8(ascii: "-"), "'-' after the month")
        let day = try number(8, 2)
        guard 10 < n else { throw TimeFormatError(message: "time has a date but no time of day", offset: 10) }
        guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " ") else {
            throw TimeFormatError(message: "expected 'T' between date and time", offset: 10)
        }
        let hour = try number(11, 2)
        try expect(13, UInt8(ascii: ":"), "':' after the hour")
        let minute = try number(14, 2)
        try expect(16, UInt8(ascii: ":"), "':' after the minutes")
        let second = try number(17, 2)
        var i = 19
        var fraction: Int64 = 0
        if i < n, b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < n, b[i] >= 48, b[i] <= 57 {
                digits += 1
                guard digits <= 9 else {
                    throw TimeFormatError(message: "more than 9 fractional digits in time", offset: i)
                }
                fraction = fraction * 10 + Int64(b[i] - 48)
                i += 1
            }
            guard digits > 0 else { throw TimeFormatError(message: "expected digits after '.' in time", offset: i) }
            for _ in digits..<9 { fraction *= 10 }
        }
        guard i < n else {
            throw TimeFormatError(message: "time has no UTC offset (add Z or +HH:MM)", offset: i)
        }
        var offset: Int64 = 0
        let sign = b[i]
        if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") {
            i += 1
        } else if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            let oh = try number(i + 1, 2)
            try expect(i + 3, UInt8(ascii: ":"), "':' in the UTC offset")
            let om = try number(i + 4, 2)
            guard oh <= 23, om <= 59 else {
                throw TimeFormatError(message: "UTC offset out of range", offset: i)
            }
            offset = (oh * 3600 + om * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            throw TimeFormatError(message: "expected Z or +HH:MM offset in time", offset: i)
        }
        guard i == n else { throw TimeFormatError(message: "unexpected characters after the time", offset: i) }
        guard month >= 1, month <= 12 else { throw TimeFormatError(message: "month \(month) does not exist", offset: 5) }
        let monthLength = Self.daysInMonth(year: year, month: month)
        guard day >= 1, day <= monthLength else {
            throw TimeFormatError(message: "day \(day) does not exist in \(year)-\(Self.pad2(month))", offset: 8)
        }
        guard hour <= 23 else { throw TimeFormatError(message: "hour \(hour) does not exist", offset: 11) }
        guard minute <= 59 else { throw TimeFormatError(message: "minute \(minute) does not exist", offset: 14) }
        guard second <= 59 else {
            throw TimeFormatError(message: "second \(second) is not supported (no leap seconds)", offset: 17)
        }
        guard Self.supportedYears.contains(year) else {
            // Nanoseconds since 1970 in an Int64 reach from 1677-09-21 to 2262-04-11.
            throw TimeFormatError(
                message: "year \(year) is outside the supported range \(Self.supportedYears.lowerBound)...\(Self.supportedYears.upperBound)",
                offset: 0)
        }
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        let localSeconds = days * 86_400 + hour * 3600 + minute * 60 + second
        let utcSeconds = localSeconds - offset
        self.init(nanosecondsSinceEpoch: utcSeconds * 1_000_000_000 + fraction, utcOffsetSeconds: Int32(offset))
    }

    /// The canonical RFC 3339 text: local date-time in the event's offset, fractional seconds
    /// only when non-zero (shortest exact digits), `Z` for a zero offset. An offset that is not a
    /// whole number of minutes (RFC 3339 cannot write it) is truncated to the minute; the instant
    /// is kept exactly.
    public var rfc3339: String {
        String(unsafeUninitializedCapacity: Self.maximumRFC3339Length) { writeRFC3339(to: $0.baseAddress!) }
    }

    /// Appends ``rfc3339`` to `out`.
    public func appendRFC3339(to out: inout String) {
        out += rfc3339
    }

    /// Appends ``rfc3339`` as UTF-8 to `out` without building a `String` (event lines, reports).
    public func appendRFC3339(to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumRFC3339Length) { buffer in
            let count = writeRFC3339(to: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// The most bytes ``writeRFC3339(to:)`` writes: a 4-digit year (any `Int32` offset keeps the
    /// local year within 1609...2330), nine fractional digits and an offset of up to 596,523 hours.
    package static let maximumRFC3339Length = 48

    /// Writes ``rfc3339`` to `out`, which has room for ``maximumRFC3339Length`` bytes, and
    /// returns how many it wrote: the one formatter every text and JSON writer shares.
    package func writeRFC3339(to out: UnsafeMutablePointer<UInt8>) -> Int {
        // RFC 3339 offsets are whole minutes: an offset with seconds is written truncated to the
        // minute, and the local time with that same offset, so the instant stays exact.
        let offset = Int64(utcOffsetSeconds) / 60 * 60
        let local = nanosecondsSinceEpoch + offset * 1_000_000_000
        let days = Self.floorDiv(local, 86_400_000_000_000)
        let nanosOfDay = local - days * 86_400_000_000_000
        let (year, month, day) = Self.civilFromDays(days)
        let secondsOfDay = nanosOfDay / 1_000_000_000
        var n = Self.writeDigits(year, width: 4, to: out)
        out[n] = UInt8(ascii: "-"); n += 1
        n += Self.writeDigits(month, width: 2, to: out + n)
        out[n] = UInt8(ascii: "-"); n += 1
        n += Self.writeDigits(day, width: 2, to: out + n)
        out[n] = UInt8(ascii: "T"); n += 1
        n += Self.writeDigits(secondsOfDay / 3600, width: 2, to: out + n)
        out[n] = UInt8(ascii: ":"); n += 1
        n += Self.writeDigits(secondsOfDay / 60 % 60, width: 2, to: out + n)
        out[n] = UInt8(ascii: ":"); n += 1
        n += Self.writeDigits(secondsOfDay % 60, width: 2, to: out + n)
        var fraction = nanosOfDay % 1_000_000_000
        if fraction != 0 {
            var width = 9
            while fraction % 10 == 0 { fraction /= 10; width -= 1 }
            out[n] = UInt8(ascii: "."); n += 1
            n += Self.writeDigits(fraction, width: width, to: out + n)
        }
        if offset == 0 {
            out[n] = UInt8(ascii: "Z"); n += 1
        } else {
            let magnitude = abs(offset)
            out[n] = offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"); n += 1
            n += Self.writeDigits(magnitude / 3600, width: 2, to: out + n)
            out[n] = UInt8(ascii: ":"); n += 1
            n += Self.writeDigits(magnitude / 60 % 60, width: 2, to: out + n)
        }
        return n
    }

    /// Writes `value` (>= 0) in decimal, zero-padded to at least `width` digits; returns the count.
    private static func writeDigits(_ value: Int64, width: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var count = width
        var rest = value
        for _ in 0..<width { rest /= 10 }
        while rest > 0 { rest /= 10; count += 1 }
        rest = value
        for k in stride(from: count - 1, through: 0, by: -1) {
            out[k] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
            rest /= 10
        }
        return count
    }

    /// The years a time may have: those whose instants in nanoseconds since 1970 fit an `Int64`
    /// (about 1677-09-21 to 2262-04-11), whole. The event format, importers and the C API check
    /// against this one range.
    package static let supportedYears: ClosedRange<Int64> = 1678...2261

    package static func isLeapYear(_ y: Int64) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    package static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    package static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date of a day number (inverse of ``daysFromCivil``).
    package static func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func pad2(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
