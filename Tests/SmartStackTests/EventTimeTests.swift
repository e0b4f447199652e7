import Testing
@testable import SmartStack

@Suite struct EventTimeTests {
    private func parse(_ text: String) throws -> EventTime { try EventTime(rfc3339: text) }

    private func failure(_ text: String) -> TimeFormatError? {
        do {
            _ = try EventTime(rfc3339: text)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Parsing

    @Test func parsesInstantAndKeepsTheOffset() throws {
        let t = try parse("2013-03-27T08:05:00-04:00")
        #expect(t.nanosecondsSinceEpoch == 1_364_385_900 * 1_000_000_000)
        #expect(t.utcOffsetSeconds == -14_400)
        let utc = try parse("2013-03-27T12:05:00Z")
        #expect(utc.nanosecondsSinceEpoch == t.nanosecondsSinceEpoch)
        #expect(utc != t, "same instant, different offset: not equal")
        #expect(utc > t, "ties on the instant are ordered by offset")
    }

    @Test(arguments: [
        ("1970-01-01T00:00:00Z", Int64(0), Int32(0)),
        ("1970-01-01t00:00:00z", 0, 0),
        ("1970-01-01 00:00:00+00:00", 0, 0),
        ("1970-01-01T05:30:00+05:30", 0, 19_800),
        ("1969-12-31T23:59:59Z", -1_000_000_000, 0),
        ("2000-01-01T00:00:00.000000001Z", 946_684_800_000_000_001, 0),
        ("2038-01-19T03:14:08+00:00", 2_147_483_648_000_000_000, 0),
        ("2013-03-27T08:05:00.5-04:00", 1_364_385_900_500_000_000, -14_400),
        ("1678-01-01T00:00:00Z", -9_214_560_000_000_000_000, 0),
        ("2261-12-31T23:59:59.999999999+23:59", 9_214_560_059_999_999_999, 86_340),
    ])
    func parsesKnownInstants(text: String, nanoseconds: Int64, offset: Int32) throws {
        let t = try parse(text)
        #expect(t.nanosecondsSinceEpoch == nanoseconds)
        #expect(t.utcOffsetSeconds == offset)
    }

    @Test func fractionalSecondsKeepEveryDigit() throws {
        #expect(try parse("2013-03-27T12:05:00.1Z").nanosecondsSinceEpoch % 1_000_000_000 == 100_000_000)
        #expect(try parse("2013-03-27T12:05:00.123Z").nanosecondsSinceEpoch % 1_000_000_000 == 123_000_000)
        #expect(try parse("2013-03-27T12:05:00.123456789Z").nanosecondsSinceEpoch % 1_000_000_000 == 123_456_789)
        #expect(try parse("2013-03-27T12:05:00.000000Z") == parse("2013-03-27T12:05:00Z"))
    }

    @Test func leapYears() throws {
        for valid in ["2000-02-29", "2012-02-29", "2204-02-29", "1996-02-29"] {
            #expect(failure("\(valid)T00:00:00Z") == nil, "\(valid)")
        }
        for invalid in ["1900-02-29", "2013-02-29", "2100-02-29", "2012-02-30"] {
            #expect(failure("\(invalid)T00:00:00Z")?.message.contains("does not exist") == true, "\(invalid)")
        }
        #expect(try parse("2012-03-01T00:00:00Z").seconds(since: parse("2012-02-28T00:00:00Z")) == 2 * 86_400)
        #expect(try parse("2013-03-01T00:00:00Z").seconds(since: parse("2013-02-28T00:00:00Z")) == 86_400)
    }

    @Test(arguments: [
        ("2013-03-27T08:05:00", "time has no UTC offset (add Z or +HH:MM)", 19),
        ("2013-03-27T08:05:00.25", "time has no UTC offset (add Z or +HH:MM)", 22),
        ("2013-03-27", "time has a date but no time of day", 10),
        ("2013-00-10T08:05:00Z", "month 0 does not exist", 5),
        ("2013-13-10T08:05:00Z", "month 13 does not exist", 5),
        ("2013-04-31T08:05:00Z", "day 31 does not exist in 2013-04", 8),
        ("2013-04-00T08:05:00Z", "day 0 does not exist in 2013-04", 8),
        ("2013-04-10T24:00:00Z", "hour 24 does not exist", 11),
        ("2013-04-10T23:60:00Z", "minute 60 does not exist", 14),
        ("2013-04-10T23:59:60Z", "second 60 is not supported (no leap seconds)", 17),
        ("2013-04-10T23:59:59+24:00", "UTC offset out of range", 19),
        ("2013-04-10T23:59:59+0400", "expected ':' in the UTC offset in time", 22),
        ("2013-04-10T23:59:59.Z", "expected digits after '.' in time", 20),
        ("2013-04-10T23:59:59.1234567891Z", "more than 9 fractional digits in time", 29),
        ("2013-04-10T23:59:59Zjunk", "unexpected characters after the time", 20),
        ("2013-4-10T23:59:59Z", "expected a digit in time, found '-'", 6),
        ("13-04-10T23:59:59Z", "expected a digit in time, found '-'", 2),
        ("2013/04/10T23:59:59Z", "expected '-' after the year in time", 4),
        ("2013-04-10X23:59:59Z", "expected 'T' between date and time", 10),
        ("2013-04-10T23:59:59 UTC", "expected Z or +HH:MM offset in time", 19),
        ("", "time is truncated", 0),
        ("1677-12-31T23:59:59Z", "year 1677 is outside the supported range 1678...2261", 0),
        ("2262-01-01T00:00:00Z", "year 2262 is outside the supported range 1678...2261", 0),
        ("9999-12-31T23:59:59Z", "year 9999 is outside the supported range 1678...2261", 0),
    ])
    func rejectsWithMessageAndPosition(text: String, message: String, offset: Int) {
        let error = failure(text)
        #expect(error?.message == message, "\(text)")
        #expect(error?.offset == offset, "\(text)")
    }

    @Test func nonASCIIBytesAreShownAsBytes() {
        #expect(failure("2013-0é-10T23:59:59Z")?.message == "expected a digit in time, found byte 0xC3")
    }

    // MARK: - Formatting

    @Test(arguments: [
        "2013-03-27T08:05:00-04:00", "2013-03-27T12:05:00Z", "2013-03-27T12:05:00.5Z",
        "2013-03-27T12:05:00.000000001+05:30", "2013-03-27T12:05:00.12345+14:00", "1969-12-31T23:59:59.9-00:30",
        "1678-01-01T00:00:00-23:59", "2261-12-31T23:59:59.999999999+23:59", "2000-02-29T23:59:59+23:59",
    ])
    func formatsCanonicalTextUnchanged(text: String) throws {
        #expect(try parse(text).rfc3339 == text)
    }

    @Test func formatsShortestFractionAndZuluOffset() throws {
        #expect(try parse("2013-03-27T12:05:00.500000Z").rfc3339 == "2013-03-27T12:05:00.5Z")
        #expect(try parse("2013-03-27T12:05:00.000Z").rfc3339 == "2013-03-27T12:05:00Z")
        #expect(try parse("2013-03-27t12:05:00+00:00").rfc3339 == "2013-03-27T12:05:00Z")
        #expect(try parse("2013-03-27 12:05:00-00:00").rfc3339 == "2013-03-27T12:05:00Z")
        var out = "at "
        try parse("2013-03-27T08:05:00-04:00").appendRFC3339(to: &out)
        #expect(out == "at 2013-03-27T08:05:00-04:00")
    }

    @Test func formatsLocalDateAcrossMidnight() {
        // 2013-03-28T02:30:00Z seen from -04:00 is still the 27th locally.
        let t = EventTime(nanosecondsSinceEpoch: 1_364_437_800 * 1_000_000_000, utcOffsetSeconds: -14_400)
        #expect(t.rfc3339 == "2013-03-27T22:30:00-04:00")
    }

    @Test func offsetWithSecondsKeepsTheInstant() throws {
        let odd = EventTime(nanosecondsSinceEpoch: 1_364_385_900_000_000_000, utcOffsetSeconds: -(4 * 3600 + 56 * 60 + 2))
        #expect(odd.rfc3339 == "2013-03-27T07:09:00-04:56")
        #expect(try parse(odd.rfc3339).nanosecondsSinceEpoch == odd.nanosecondsSinceEpoch)
        let small = EventTime(nanosecondsSinceEpoch: 0, utcOffsetSeconds: 30)
        #expect(small.rfc3339 == "1970-01-01T00:00:00Z")
    }

    /// Every writer of times (event lines, reports, ground truth, the ranking JSON) uses the byte
    /// writer: over the whole range of instants, offsets with seconds and offsets no phone has,
    /// it writes what a plain field-by-field formatting writes, and the text reads back.
    @Test func theByteWriterWritesTheCanonicalText() throws {
        var generator = SeededGenerator(seed: 7)
        let span = UInt64(Int64.max) - 200 * 86_400 * 1_000_000_000   // room for any offset below
        for k in 0..<20_000 {
            var nanoseconds = Int64(bitPattern: generator.next() % (2 * span) &- span)
            if k % 4 == 0 { nanoseconds = nanoseconds / 1_000_000_000 * 1_000_000_000 }
            if k % 4 == 1 { nanoseconds = nanoseconds / 1_000 * 1_000 }
            let offset: Int32 = switch k % 5 {
            case 0: 0
            case 1: Int32(Int64(generator.next() % 2879) - 1439) * 60               // whole minutes, ±23:59
            case 2: Int32(Int64(generator.next() % 172_799) - 86_399)              // with seconds
            case 3: Int32(Int64(generator.next() % 20_000_000) - 10_000_000)       // hours of 3 and more digits
            default: Int32(Int64(generator.next() % 3601) - 1800)
            }
            let time = EventTime(nanosecondsSinceEpoch: nanoseconds, utcOffsetSeconds: offset)
            var bytes: [UInt8] = [0x2A]
            time.appendRFC3339(to: &bytes)
            #expect(bytes.count - 1 <= EventTime.maximumRFC3339Length)
            #expect(String(decoding: bytes.dropFirst(), as: UTF8.self) == Self.reference(time))
            #expect(time.rfc3339 == Self.reference(time))
            if abs(offset) < 86_400, EventTime.supportedYears.contains(Int64(time.rfc3339.prefix(4))!) {
                #expect(try parse(time.rfc3339).nanosecondsSinceEpoch == nanoseconds)
            }
        }
    }

    /// RFC 3339 written field by field with `String`s: the formatting the byte writer replaced.
    private static func reference(_ time: EventTime) -> String {
        func padded(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let offset = Int64(time.utcOffsetSeconds) / 60 * 60
        let local = time.nanosecondsSinceEpoch + offset * 1_000_000_000
        let days = EventTime.floorDiv(local, 86_400_000_000_000)
        let (year, month, day) = EventTime.civilFromDays(days)
        let nanosecondsOfDay = local - days * 86_400_000_000_000
        let seconds = nanosecondsOfDay / 1_000_000_000
        var text = "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T"
            + "\(padded(seconds / 3600, 2)):\(padded(seconds / 60 % 60, 2)):\(padded(seconds % 60, 2))"
        if nanosecondsOfDay % 1_000_000_000 != 0 {
            var fraction = padded(nanosecondsOfDay % 1_000_000_000, 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        if offset == 0 { return text + "Z" }
        return text + (offset < 0 ? "-" : "+") + "\(padded(abs(offset) / 3600, 2)):\(padded(abs(offset) / 60 % 60, 2))"
    }

    @Test func civilDaysRoundTrip() {
        for day in stride(from: Int64(-800_000), through: 2_950_000, by: 997) {
            let (y, m, d) = EventTime.civilFromDays(day)
            #expect(EventTime.daysFromCivil(year: y, month: m, day: d) == day)
            #expect(d >= 1 && d <= EventTime.daysInMonth(year: y, month: m))
        }
    }

    // MARK: - Local time

    @Test func localTimeOfDayIsTheEventsOwn() throws {
        let t = try parse("2013-03-27T23:30:00-04:00")   // 03:30 UTC the next day
        #expect(t.localSecondsOfDay == 23 * 3600 + 30 * 60)
        #expect(t.localHour == 23)
        let utc = try parse("2013-03-28T03:30:00Z")
        #expect(utc.localHour == 3)
        #expect(t.nanosecondsSinceEpoch == utc.nanosecondsSinceEpoch)
        #expect(t.localDayNumber == utc.localDayNumber - 1)
    }

    @Test func localTimeIsCircularBeforeTheEpoch() throws {
        let t = try parse("1969-12-31T23:59:59.5Z")
        #expect(t.localSecondsOfDay == 86_399)
        #expect(t.localDayNumber == -1)
        let east = try parse("1970-01-01T00:30:00+01:00")   // 23:30 UTC the day before
        #expect(east.localSecondsOfDay == 1800)
        #expect(east.localDayNumber == 0)
        #expect(east.adding(seconds: -3600).localHour == 23)
        #expect(east.adding(seconds: -3600).localDayNumber == -1)
    }

    @Test func weekdaysAndWeekends() throws {
        #expect(try parse("1970-01-01T00:00:00Z").localWeekday == 4)      // Thursday
        #expect(try parse("1969-12-31T12:00:00Z").localWeekday == 3)      // Wednesday
        #expect(try parse("2013-03-27T08:05:00-04:00").localWeekday == 3) // Wednesday
        #expect(try parse("2013-03-30T08:05:00-04:00").isWeekend)         // Saturday
        #expect(try parse("2013-03-31T23:59:59-04:00").localWeekday == 7) // Sunday, Monday in UTC
        #expect(try parse("2013-04-01T03:59:59Z").localWeekday == 1)
        #expect(try !parse("2013-04-01T00:00:00+14:00").isWeekend)        // Monday locally, Sunday in UTC
    }

    @Test func arithmetic() throws {
        let t = try parse("2013-03-27T08:05:00-04:00")
        let later = t.adding(seconds: 90.25)
        #expect(later.rfc3339 == "2013-03-27T08:06:30.25-04:00")
        #expect(later.seconds(since: t) == 90.25)
        #expect(try EventTime(secondsSinceEpoch: 1.5, utcOffsetSeconds: 3600).rfc3339 == "1970-01-01T01:00:01.5+01:00")
        #expect(t.secondsSinceEpoch == 1_364_385_900)
    }
}
