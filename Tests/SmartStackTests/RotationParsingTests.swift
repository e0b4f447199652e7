import Testing
@testable import SmartStack

@Suite struct RotationParsingTests {
    @Test func emptyAndDefaultGiveTheDocumentedDefaults() throws {
        #expect(try RotationParameters(parsing: "") == RotationParameters())
        #expect(try RotationParameters(parsing: "default") == RotationParameters())
        #expect(RotationParameters().description == "margin=0.1,dwell=15m,cap=48,swipe_hold=10m,confidence=0.95")
    }

    @Test func everyParameterIsRead() throws {
        let r = try RotationParameters(parsing: "margin=0.25, dwell=90s,cap=none,swipe_hold=2h,confidence=off")
        #expect(r.hysteresisMargin == 0.25)
        #expect(r.minimumDwell == 90)
        #expect(r.maximumRotationsPerDay == Int.max)
        #expect(r.swipeHold == 7200)
        #expect(r.earlyRotationConfidence == 1)
        #expect(r.description == "margin=0.25,dwell=90s,cap=none,swipe_hold=2h,confidence=off")
        #expect(try RotationParameters(parsing: r.description) == r)
    }

    @Test(arguments: [
        ("margin=2", "margin=2 must be a number in 0...1"),
        ("margin=abc", "margin=abc must be a number in 0...1"),
        ("dwell=5", "dwell=5 must be a duration"),
        ("cap=-1", "cap=-1 must be a whole number"),
        ("speed=3", "unknown rotation parameter 'speed' (valid: margin, dwell, cap, swipe_hold, confidence)"),
        ("margin", "must be key=value"),
        ("margin=0.1,margin=0.2", "'margin' is given twice"),
    ])
    func badParametersAreNamed(text: String, message: String) {
        #expect {
            _ = try RotationParameters(parsing: text)
        } throws: { error in
            (error as? EngineError).map { $0.kind == .invalidParameter && $0.message.contains(message) } == true
        }
    }
}
