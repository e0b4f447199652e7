import Foundation
import Testing
@testable import SmartStack

@Suite struct RotationParsingTests {
    @Test func emptyAndDefaultGiveTheDocumentedDefaults() throws {
        #expect(try RotationParameters(parsing: "") == RotationParameters())
        #expect(try RotationParameters(parsing: "default") == RotationParameters())
        #expect(RotationParameters().description == "margin=0.1,dwell=15m,cap=48,swipe_hold=10m,confidence=0.95,new_confidence=0.8")
    }

    @Test func everyParameterIsRead() throws {
        let r = try RotationParameters(parsing: "margin=0.25, dwell=90s,cap=none,swipe_hold=2h,confidence=off,new_confidence=0.9")
        #expect(r.hysteresisMargin == 0.25)
        #expect(r.minimumDwell == 90)
        #expect(r.maximumRotationsPerDay == Int.max)
        #expect(r.swipeHold == 7200)
        #expect(r.earlyRotationConfidence == 1)
        #expect(r.newChallengerConfidence == 0.9)
        #expect(r.description == "margin=0.25,dwell=90s,cap=none,swipe_hold=2h,confidence=off,new_confidence=0.9")
        #expect(try RotationParameters(parsing: r.description) == r)
    }

    @Test(arguments: [
        ("margin=2", "margin=2 must be a number in 0...1"),
        ("margin=abc", "margin=abc must be a number in 0...1"),
        ("dwell=5", "dwell=5 must be a duration"),
        ("cap=-1", "cap=-1 must be a whole number"),
        ("speed=3", "unknown rotation parameter 'speed' (valid: margin, dwell, cap, swipe_hold, confidence, new_confidence)"),
        ("new_confidence=0.4", "new_confidence=0.4 must be a number in 0.5...1 or 'off'"),
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

    @Test func aNewChallengerNeedsLessProofThanAReturnButNeverMoreThanConfidenceSays() throws {
        let r = RotationParameters()
        #expect(r.confidence(isReturn: true) == 0.95)
        #expect(r.confidence(isReturn: false) == 0.8)
        // `confidence=off` is the fixed dwell for every challenger.
        #expect(try RotationParameters(parsing: "confidence=off").confidence(isReturn: false) == 1)
        // `new_confidence=off` holds new challengers to `confidence`; a lower `confidence` caps it.
        #expect(try RotationParameters(parsing: "new_confidence=off").confidence(isReturn: false) == 0.95)
        #expect(try RotationParameters(parsing: "confidence=0.7").confidence(isReturn: false) == 0.7)
    }

    @Test func parametersSavedBeforeNewConfidenceExistedStillDecode() throws {
        let old = #"{"hysteresisMargin":0.2,"minimumDwell":600,"maximumRotationsPerDay":12,"swipeHold":60,"earlyRotationConfidence":0.9}"#
        let r = try JSONDecoder().decode(RotationParameters.self, from: Data(old.utf8))
        #expect(r.hysteresisMargin == 0.2 && r.minimumDwell == 600 && r.maximumRotationsPerDay == 12 && r.swipeHold == 60)
        #expect(r.earlyRotationConfidence == 0.9)
        #expect(r.newChallengerConfidence == RotationParameters().newChallengerConfidence)
        #expect(try JSONDecoder().decode(RotationParameters.self, from: JSONEncoder().encode(r)) == r)
    }
}
