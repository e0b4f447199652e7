import Testing
@testable import SmartStack

/// The phrase pieces reasons are written with: the same text whether a piece is made as a
/// `String` or written into a reason's byte buffer, in the forms a reader sees.
@Suite struct ReasonTextTests {
    /// The text `append` writes into a buffer that already holds `"x "`, less that prefix.
    func written(_ append: (inout [UInt8]) -> Void) -> String {
        var bytes = Array("x ".utf8)
        append(&bytes)
        return String(decoding: bytes.dropFirst(2), as: UTF8.self)
    }

    @Test(arguments: [
        (0.0, "0"), (0.004, "0"), (0.006, "0.01"), (0.05, "0.05"), (0.1, "0.1"), (0.25, "0.25"), (0.9, "0.9"),
        (1.0, "1"), (12.0, "12"), (12.346, "12.35"), (-0.3, "-0.3"), (-0.001, "0"), (-7.08, "-7.08"), (1e16, "1e+16"),
        (Double.infinity, "inf"), (-Double.infinity, "-inf"),
    ])
    func numbersHaveAtMostTwoDecimals(value: Double, text: String) {
        #expect(ReasonText.number(value) == text)
        #expect(written { ReasonText.appendNumber(value, to: &$0) } == text)
    }

    @Test(arguments: [0, 7, 10, 99, 100, 123_456, -1, -42, Int.max, Int.min])
    func integersAreWrittenAsStringWritesThem(n: Int) {
        #expect(written { ReasonText.appendInteger(n, to: &$0) } == String(n))
    }

    @Test func countsAgesDurationsAndClocks() {
        #expect(ReasonText.times(1) == "1 time")
        #expect(ReasonText.times(0.6) == "1 time")
        #expect(ReasonText.times(12.4) == "12 times")
        #expect(ReasonText.times(0) == "0 times")
        #expect(ReasonText.ago(30) == "just now")
        #expect(ReasonText.ago(600) == "10 min ago")
        #expect(ReasonText.ago(7200) == "2 h ago")
        #expect(ReasonText.ago(3 * 86_400) == "3 days ago")
        #expect(ReasonText.duration(1200) == "20 min")
        #expect(ReasonText.duration(3 * 3600) == "3 h")
        #expect(ReasonText.clock(secondOfDay: 8 * 3600 + 5 * 60) == "08:05")
        #expect(ReasonText.clock(secondOfDay: -60) == "23:59")
        #expect(ReasonText.clock(secondOfDay: 86_400 + 3600) == "01:00")
        // 2013-03-27T12:05:00Z at UTC-4.
        #expect(ReasonText.clock(1_364_385_900, offset: -14_400) == "08:05")
        #expect(ReasonText.clock(1e300, offset: 0) == "--:--")
        #expect(written { ReasonText.appendClock(1_364_385_900, offset: -14_400, to: &$0) } == "08:05")
        #expect(written { ReasonText.appendTimes(3, to: &$0); ReasonText.append(" around ", to: &$0) } == "3 times around ")
    }
}
