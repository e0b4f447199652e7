import Foundation

extension RotationParameters: CustomStringConvertible {
    /// The names accepted by ``init(parsing:)``, in the order ``description`` writes them.
    public static let parameterNames = ["margin", "dwell", "cap", "swipe_hold", "confidence", "new_confidence"]

    /// Parses `key=value` pairs separated by commas, starting from the defaults:
    /// `margin` (hysteresis, 0...1), `dwell` and `swipe_hold` (durations such as `90s`, `5m`,
    /// `1h`), `cap` (rotations per stack per local day, or `none`), `confidence` (0.5...1, or
    /// `off` = 1: the evidence needed to rotate inside the dwell; `off` is the fixed dwell) and
    /// `new_confidence` (the same for a challenger that is not the widget the top replaced).
    ///
    /// ```swift
    /// let calm = try RotationParameters(parsing: "margin=0.3,dwell=15m")
    /// calm.description   // "margin=0.3,dwell=15m,cap=48,swipe_hold=10m,confidence=0.95,new_confidence=0.8"
    /// ```
    ///
    /// - Throws: ``EngineError`` of kind ``EngineError/Kind/invalidParameter`` naming the
    ///   parameter and the accepted names or range.
    public init(parsing text: String) throws(EngineError) {
        self.init()
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed != "default" else { return }
        var seen: Set<String> = []
        for item in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = pair[0].trimmingCharacters(in: .whitespaces)
            guard pair.count == 2 else {
                throw EngineError(.invalidParameter, "rotation parameter '\(item)' must be key=value (keys: \(Self.parameterNames.joined(separator: ", ")))")
            }
            let value = pair[1].trimmingCharacters(in: .whitespaces)
            guard seen.insert(key).inserted else { throw EngineError(.invalidParameter, "rotation parameter '\(key)' is given twice") }
            func fail(_ why: String) -> EngineError { EngineError(.invalidParameter, "rotation parameter \(key)=\(value) \(why)") }
            switch key {
            case "margin":
                guard let m = Double(value), m.isFinite, m >= 0, m <= 1 else { throw fail("must be a number in 0...1") }
                hysteresisMargin = m
            case "dwell":
                guard let d = TimeSpan(parsing: value)?.seconds else { throw fail("must be a duration such as 90s, 5m or 1h") }
                minimumDwell = d
            case "swipe_hold":
                guard let d = TimeSpan(parsing: value)?.seconds else { throw fail("must be a duration such as 30m or 1h") }
                swipeHold = d
            case "cap":
                if value == "none" {
                    maximumRotationsPerDay = Int.max
                } else {
                    guard let c = Int(value), c >= 0 else { throw fail("must be a whole number >= 0 or 'none'") }
                    maximumRotationsPerDay = c
                }
            case "confidence", "new_confidence":
                var c = 1.0
                if value != "off" {
                    guard let v = Double(value), v.isFinite, v >= 0.5, v <= 1 else { throw fail("must be a number in 0.5...1 or 'off'") }
                    c = v
                }
                if key == "confidence" { earlyRotationConfidence = c } else { newChallengerConfidence = c }
            default:
                throw EngineError(.invalidParameter, "unknown rotation parameter '\(key)' (valid: \(Self.parameterNames.joined(separator: ", ")))")
            }
        }
    }

    /// The canonical `key=value` form, e.g.
    /// `margin=0.1,dwell=15m,cap=48,swipe_hold=10m,confidence=0.95,new_confidence=0.8`.
    public var description: String {
        let cap = maximumRotationsPerDay == Int.max ? "none" : String(maximumRotationsPerDay)
        func confidence(_ c: Double) -> String { c >= 1 ? "off" : "\(c)" }
        return "margin=\(hysteresisMargin),dwell=\(TimeSpan(seconds: minimumDwell)),"
            + "cap=\(cap),swipe_hold=\(TimeSpan(seconds: swipeHold)),"
            + "confidence=\(confidence(earlyRotationConfidence)),new_confidence=\(confidence(newChallengerConfidence))"
    }
}
