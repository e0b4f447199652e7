import SmartStack

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(Darwin)
import Darwin
#endif

/// The JSON of `smartstack_rank` (the object `smartstack rank --json` prints) and of
/// `smartstack_decide` (the same with the decision's `top`, `rotated` and `propensity`), written
/// straight into bytes: this is on the path of every decision a host asks for.
///
/// ```swift
/// let (text, length) = RankingJSON.cString(ranking, decision: nil, explained: true)
/// // {"stack":"home","user":"me","at":"2026-03-02T08:10:00-05:00","policy":"contextual","ranking":[...]}
/// ```
struct RankingJSON: TextOutputStream {
    /// The JSON of `ranking` (and `decision`) in memory from `malloc`, NUL-terminated, for the
    /// caller to release with `smartstack_free`; and its length without the NUL.
    ///
    /// - Complexity: O(widgets · reasons).
    static func cString(_ ranking: Ranking, decision: RotationDecision?,
                        explained: Bool) -> (text: UnsafeMutablePointer<CChar>, length: Int) {
        var json = RankingJSON()
        json.write(ranking, decision: decision, explained: explained)
        json.raw("\0")
        return (UnsafeMutableRawPointer(json.text).assumingMemoryBound(to: CChar.self), json.count - 1)
    }

    /// The text so far, in memory from `malloc` that ``cString()`` hands over to the caller.
    private var text: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity = 4096

    private init() { text = malloc(capacity)!.assumingMemoryBound(to: UInt8.self) }

    /// Writes `ranking`, with `decision`'s fields before the ranking when given, and each
    /// widget's reasons when `explained`.
    private mutating func write(_ ranking: Ranking, decision: RotationDecision?, explained: Bool) {
        key("stack", first: true); string(ranking.stack)
        key("user"); string(ranking.user)
        key("at"); string(ranking.at.rfc3339)
        key("policy"); string(ranking.policy)
        if let decision {
            key("top")
            if let top = decision.top { string(top) } else { raw("null") }
            key("rotated"); raw(decision.didRotate ? "true" : "false")
            key("propensity"); number(decision.propensity)
        }
        raw(",\"ranking\":[")
        for (w, widget) in ranking.widgets.enumerated() {
            if w > 0 { raw(",") }
            key("widget", first: true); string(widget.widget)
            key("score"); number(widget.score)
            key("eligible"); raw(widget.isEligible ? "true" : "false")
            if explained {
                raw(",\"reasons\":[")
                for (r, reason) in widget.reasons.enumerated() {
                    if r > 0 { raw(",") }
                    key("text", first: true); string(reason.text)
                    key("contribution"); number(reason.contribution)
                    raw("}")
                }
                raw("]")
            }
            raw("}")
        }
        raw("]}")
    }

    // `Double.write(to:)` formats into a buffer on the stack and hands it over here, where
    // `description` would allocate a `String` for each of the ~50 numbers of a ranking.
    mutating func write(_ string: String) { append(string) }
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { append(UnsafeRawBufferPointer(buffer)) }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if count + bytes.count > capacity {
            capacity = max(capacity * 2, count + bytes.count)
            text = realloc(text, capacity)!.assumingMemoryBound(to: UInt8.self)
        }
        if let base = bytes.baseAddress { memcpy(text + count, base, bytes.count) }
        count += bytes.count
    }

    private mutating func append(_ string: String) {
        var string = string
        string.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// `{"name":` for the first key of an object, `,"name":` for the others.
    private mutating func key(_ name: StaticString, first: Bool = false) {
        raw(first ? "{\"" : ",\"")
        raw(name)
        raw("\":")
    }

    private mutating func raw(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A string literal escaped as event lines are; widget ids and reasons seldom need escaping,
    /// so those are copied as they are.
    private mutating func string(_ value: String) {
        var value = value
        let plain = value.withUTF8 { bytes in
            for c in bytes where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return false }
            raw("\"")
            append(UnsafeRawBufferPointer(bytes))
            raw("\"")
            return true
        }
        if !plain { append(JSONLWriter.string(value)) }
    }

    /// As `smartstack rank --json`: `null` when not finite, integers without a fraction, else the
    /// shortest text that reads back to the same value.
    private mutating func number(_ x: Double) {
        if !x.isFinite {
            raw("null")
        } else if x == x.rounded(), abs(x) < 1e15 {
            append(String(Int64(x)))
        } else {
            x.write(to: &self)
        }
    }
}
