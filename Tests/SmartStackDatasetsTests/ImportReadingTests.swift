import Foundation
import SmartStack
import SmartStackDatasets
import Testing

@Suite struct ImportCSVReaderTests {
    private func records(_ text: String, delimiter: UInt8 = UInt8(ascii: ",")) throws -> [(Int, [String])] {
        var reader = CSVReader(bytes: Array(text.utf8), name: "t.csv", delimiter: delimiter)
        var out: [(Int, [String])] = []
        while try reader.nextRecord() { out.append((reader.line, reader.fields)) }
        return out
    }

    @Test func quotesEscapedQuotesAndDelimitersInsideQuotes() throws {
        let rows = try records("a,b,c\n\"x, y\",\"say \"\"hi\"\"\",\"\"\nplain,\"\",last\n")
        #expect(rows.map(\.1) == [["a", "b", "c"], ["x, y", "say \"hi\"", ""], ["plain", "", "last"]])
    }

    @Test func crlfAndLineBreaksInsideQuotesKeepLineNumbers() throws {
        let rows = try records("h1,h2\r\n\"multi\r\nline\",2\r\n\r\nnext,3\r\n")
        #expect(rows.map(\.1) == [["h1", "h2"], ["multi\r\nline", "2"], ["next", "3"]])
        #expect(rows.map(\.0) == [1, 2, 5])
    }

    @Test func byteOrderMarkAndMissingFinalNewlineAndEmptyTrailingField() throws {
        let rows = try records("\u{FEFF}a,b\n1,")
        #expect(rows.map(\.1) == [["a", "b"], ["1", ""]])
    }

    @Test func tabDelimited() throws {
        let rows = try records("a\tb\nx,y\tz\n", delimiter: UInt8(ascii: "\t"))
        #expect(rows.map(\.1) == [["a", "b"], ["x,y", "z"]])
    }

    @Test func unterminatedQuoteNamesTheLineWhereItOpened() {
        let error = importError { () throws(ImportError) in try records2("a,b\n1,\"open\n2,3\n") }
        #expect(error?.line == 2)
        #expect(error?.description.contains("t.csv:2") == true)
        #expect(error?.message.contains("unterminated") == true)
    }

    @Test func textAfterAClosingQuoteIsAnError() {
        let error = importError { () throws(ImportError) in try records2("a,b\n\"x\"y,2\n") }
        #expect(error?.line == 2)
    }

    @Test func rowWithTheWrongNumberOfFieldsIsAnErrorWithItsLine() throws {
        var table = try CSVTable(bytes: Array("a,b\n1,2\n3\n".utf8), name: "f.csv")
        #expect(try table.nextRow())
        let error = importError { () throws(ImportError) in try table.nextRow() }
        #expect(error?.description == "f.csv:3: row has 1 fields but the header has 2")
    }

    @Test func missingColumnSaysWhatWasExpectedAndFound() throws {
        let table = try CSVTable(bytes: Array("user,when\n".utf8), name: "f.csv")
        let error = importError { () throws(ImportError) in try table.column("timestamp", "time") }
        #expect(error?.description == "f.csv:1: missing column 'timestamp' or 'time'; found columns: user, when")
    }

    @Test func badNumberNamesFileLineAndColumn() throws {
        var table = try CSVTable(bytes: Array("lat,lon\n1.5,2\nabc,3\n".utf8), name: "g.csv")
        let lat = try table.column("LAT")
        #expect(try table.nextRow())
        #expect(try table.double(lat) == 1.5)
        #expect(try table.nextRow())
        let error = importError { () throws(ImportError) in try table.double(lat) }
        #expect(error?.description == "g.csv:3: column 'lat': not a number: 'abc'")
    }

    private func records2(_ text: String) throws(ImportError) {
        var reader = CSVReader(bytes: Array(text.utf8), name: "t.csv")
        while try reader.nextRecord() {}
    }
}

@Suite struct ImportGzipTests {
    @Test func gzipIsDetectedByContentAndDecompressed() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("screen.csv", bytes: gzipScreenFixture)  // no .gz suffix on purpose
        let text = String(decoding: try GzipReader.contents(ofFile: path), as: UTF8.self)
        #expect(text == "time,screen_status\n100,1\n200,0\n")
    }

    @Test func concatenatedMembersAreReadLikeGzipDoes() throws {
        let bytes = try GzipReader.inflate(gzipScreenFixture + gzipScreenFixture, name: "two.gz")
        #expect(String(decoding: bytes, as: UTF8.self) == String(repeating: "time,screen_status\n100,1\n200,0\n", count: 2))
    }

    @Test(arguments: [10, 30, 45])
    func truncatedGzipIsAClearErrorNamingTheFile(keep: Int) {
        let dir = ImportFixtureDirectory()
        let path = dir.write("cut.csv.gz", bytes: Array(gzipScreenFixture.prefix(keep)))
        let error = importError { () throws(ImportError) in try GzipReader.contents(ofFile: path) }
        #expect(error?.file == path)
        #expect(error?.message.contains("truncated gzip") == true)
    }

    @Test func corruptGzipIsAnError() {
        var bytes = gzipScreenFixture
        bytes[12] ^= 0xff
        bytes[13] ^= 0xff
        let error = importError { () throws(ImportError) in try GzipReader.inflate(bytes, name: "bad.gz") }
        #expect(error?.file == "bad.gz")
        #expect(error != nil)
    }

    @Test func missingFileIsAnErrorNamingIt() {
        let error = importError { () throws(ImportError) in try GzipReader.contents(ofFile: "/nonexistent/x.csv") }
        #expect(error?.description == "/nonexistent/x.csv: no such file")
    }
}

@Suite struct ImportTimeTests {
    private func offset(_ text: String, _ rule: LocalTimeRule = .newYork) throws -> Int32 {
        rule.utcOffset(atUnixSeconds: try EventTime(rfc3339: text).nanosecondsSinceEpoch / 1_000_000_000)
    }

    @Test func newYorkSpringForwardAt2amOnTheSecondSundayOfMarch() throws {
        #expect(try offset("2013-03-10T06:59:59Z") == -18_000)
        #expect(try offset("2013-03-10T07:00:00Z") == -14_400)
        #expect(try offset("2026-03-08T06:59:59Z") == -18_000)
        #expect(try offset("2026-03-08T07:00:00Z") == -14_400)
    }

    @Test func newYorkFallBackAt2amOnTheFirstSundayOfNovember() throws {
        #expect(try offset("2013-11-03T05:59:59Z") == -14_400)
        #expect(try offset("2013-11-03T06:00:00Z") == -18_000)
        #expect(try offset("2007-11-04T05:59:59Z") == -14_400)
        #expect(try offset("2007-11-04T06:00:00Z") == -18_000)
    }

    @Test func olderUSRulesBefore2007() throws {
        // 2006: first Sunday of April (2 April) to last Sunday of October (29 October).
        #expect(try offset("2006-03-15T12:00:00Z") == -18_000)
        #expect(try offset("2006-04-02T06:59:59Z") == -18_000)
        #expect(try offset("2006-04-02T07:00:00Z") == -14_400)
        #expect(try offset("2006-10-29T05:59:59Z") == -14_400)
        #expect(try offset("2006-10-29T06:00:00Z") == -18_000)
    }

    @Test(.enabled(if: TimeZone(identifier: "America/New_York") != nil, "system tz data has no America/New_York"))
    func builtInRuleAgreesWithTheTzDatabaseEveryHourFrom1990To2035() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let start = try EventTime(rfc3339: "1990-01-01T00:00:00Z").nanosecondsSinceEpoch / 1_000_000_000
        let end = try EventTime(rfc3339: "2035-12-31T00:00:00Z").nanosecondsSinceEpoch / 1_000_000_000
        var mismatches = 0
        for t in stride(from: start, to: end, by: 1800) {
            let expected = Int32(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(t))))
            if LocalTimeRule.newYork.utcOffset(atUnixSeconds: t) != expected { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func localTimesInTheGapAndTheRepeatedHour() throws {
        // 02:30 does not exist on 2013-03-10: read with the offset before the change.
        #expect(try ImportTime.parse("2013-03-10 02:30:00", format: .rfc3339, rule: .newYork).rfc3339
            == "2013-03-10T03:30:00-04:00")
        // 01:30 happens twice on 2013-11-03: the first (daylight) one.
        #expect(try ImportTime.parse("2013-11-03 01:30:00", format: .rfc3339, rule: .newYork).rfc3339
            == "2013-11-03T01:30:00-04:00")
        #expect(try ImportTime.parse("2013-11-03 02:30:00", format: .rfc3339, rule: .newYork).rfc3339
            == "2013-11-03T02:30:00-05:00")
        #expect(try ImportTime.parse("2013-07-01T08:00:00", format: .rfc3339, rule: .newYork).rfc3339
            == "2013-07-01T08:00:00-04:00")
    }

    @Test func textsWithTheirOwnOffsetKeepIt() throws {
        let t = try ImportTime.parse("2019-11-24 00:00:34.762830+00:00", format: .rfc3339, rule: .newYork)
        #expect(t.rfc3339 == "2019-11-24T00:00:34.76283Z")
        #expect(try ImportTime.parse("2013-03-27T08:05:00-0400", format: .rfc3339, rule: .utc).rfc3339
            == "2013-03-27T08:05:00-04:00")
    }

    @Test func unixSecondsAndMilliseconds() throws {
        #expect(try ImportTime.parse("1364095883", format: .unix, rule: .newYork).rfc3339 == "2013-03-23T23:31:23-04:00")
        #expect(try ImportTime.parse("1364095883500", format: .unixMilliseconds, rule: .utc).rfc3339
            == "2013-03-24T03:31:23.5Z")
        let error = importError { () throws(ImportError) in try ImportTime.parse("1364095883500", format: .unix, rule: .utc) }
        #expect(error?.message.contains("unix-ms") == true)
        #expect(importError { () throws(ImportError) in try ImportTime.parse("2013-02-30 10:00", format: .rfc3339, rule: .utc) } != nil)
        #expect(importError { () throws(ImportError) in try ImportTime.parse("yesterday", format: .rfc3339, rule: .utc) } != nil)
    }

    @Test func fractionalUnixSecondsAreReadExactly() throws {
        #expect(try ImportTime.parse("1488346471.195", format: .unix, rule: .utc).nanosecondsSinceEpoch == 1_488_346_471_195_000_000)
        #expect(try ImportTime.parse("-1.5", format: .unix, rule: .utc).rfc3339 == "1969-12-31T23:59:58.5Z")
        #expect(try ImportTime.parse("1.4e9", format: .unix, rule: .utc).rfc3339 == "2014-05-13T16:53:20Z")
        #expect(try ImportTime.parse("1488346471195.5", format: .unixMilliseconds, rule: .utc).nanosecondsSinceEpoch
            == 1_488_346_471_195_500_000)
    }

    @Test(arguments: [("+05:30", Int32(19_800)), ("-0500", -18_000), ("+2", 7_200), ("Z", 0), ("UTC", 0), ("-03:30", -12_600)])
    func utcOffsetTexts(text: String, seconds: Int32) throws {
        #expect(try LocalTimeRule(utcOffset: text) == .fixed(seconds: seconds))
    }

    @Test(arguments: ["5", "+25:00", "+05:60", "EST", ""])
    func invalidUTCOffsets(text: String) {
        #expect(importError { () throws(ImportError) in try LocalTimeRule(utcOffset: text) } != nil)
    }

    @Test func timeZoneNames() throws {
        #expect(try LocalTimeRule(timeZone: "America/New_York") == .newYork)
        #expect(try LocalTimeRule(timeZone: "US/Eastern") == .newYork)
        #expect(try LocalTimeRule(timeZone: "-05:00") == .fixed(seconds: -18_000))
        let error = importError { () throws(ImportError) in try LocalTimeRule(timeZone: "Mars/Olympus_Mons") }
        #expect(error?.message.contains("unknown time zone") == true)
    }
}
