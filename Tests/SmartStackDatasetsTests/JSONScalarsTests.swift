import Testing
@testable import SmartStackDatasets

/// The string and number readers of the ground-truth and partial-result lines: a string without
/// escapes is read in place, one with escapes byte by byte, and a number has the value
/// `Double(String)` gives its text, however it is read.
@Suite struct JSONScalarsTests {
    func string(_ text: String) -> (Result<String, JSONScalars.Failure>, Int) {
        let bytes = Array(text.utf8)
        var i = 1   // just after the opening quote
        let result = JSONScalars.string(bytes, at: &i)
        return (result, i)
    }

    @Test func stringsWithAndWithoutEscapes() throws {
        let (plain, end) = string("\"calendar\",1")
        #expect(try plain.get() == "calendar")
        #expect(end == 10)
        #expect(try string("\"caf\u{e9} \u{1F600}\"").0.get() == "caf\u{e9} \u{1F600}")
        #expect(try string("\"a\\\"b\\\\c\\n\\u00e9\"").0.get() == "a\"b\\c\n\u{e9}")
        #expect(try string("\"\"").0.get() == "")
        #expect(throws: JSONScalars.Failure.self) { try string("\"unterminated").0.get() }
        #expect(throws: JSONScalars.Failure.self) { try string("\"bad \\u12\"").0.get() }
    }

    @Test(arguments: ["0.4665", "1", "0", "-0", "0.1", "0.0001", "12.5e-3", "1E2", "-3.25", "123456789012345678901234",
                      "0.30000000000000004", "4.9e-324", "2.2250738585072011e-308", "1.7976931348623157e308",
                      "+1", "01", "1.", ".5", "1e", "1-2", "1e400", "--1"])
    func numbersAreWhatDoubleParsingGives(text: String) {
        let bytes = Array((text + ",").utf8)
        var i = 0
        let value = JSONScalars.number(bytes, at: &i)
        let expected = Double(text).flatMap { $0.isFinite ? $0 : nil }
        #expect(value?.bitPattern == expected?.bitPattern, "\(text)")
        #expect(i == text.utf8.count)
        // The same inside a larger buffer (a slice not starting at 0).
        let slice = Array(("x:" + text + ",").utf8)[2...]
        var j = slice.startIndex
        #expect(JSONScalars.number(slice, at: &j)?.bitPattern == expected?.bitPattern, "\(text) in a slice")
    }
}
