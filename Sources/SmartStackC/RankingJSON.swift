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
        raw("{\"stack\":"); string(ranking.stack)
        raw(",\"user\":"); string(ranking.user)
        raw(",\"at\":\""); time(ranking.at)
        raw("\",\"policy\":"); string(ranking.policy)
        if let decision {
            raw(",\"top\":")
            if let top = decision.top { string(top) } else { raw("null") }
            raw(decision.didRotate ? ",\"rotated\":true,\"propensity\":" : ",\"rotated\":false,\"propensity\":")
            number(decision.propensity)
        }
        raw(",\"ranking\":[")
        for (w, widget) in ranking.widgets.enumerated() {
            raw(w == 0 ? "{\"widget\":" : ",{\"widget\":"); string(widget.widget)
            raw(",\"score\":"); number(widget.score)
            raw(widget.isEligible ? ",\"eligible\":true" : ",\"eligible\":false")
            if explained {
                raw(",\"reasons\":[")
                for (r, reason) in widget.reasons.enumerated() {
                    raw(r == 0 ? "{\"text\":" : ",{\"text\":"); string(reason.text)
                    raw(",\"contribution\":"); number(reason.contribution)
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
        reserve(bytes.count)
        if let base = bytes.baseAddress { memcpy(text + count, base, bytes.count) }
        count += bytes.count
    }

    /// Room for `extra` more bytes.
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity {
            capacity = max(capacity * 2, count + extra)
            text = realloc(text, capacity)!.assumingMemoryBound(to: UInt8.self)
        }
    }

    private mutating func append(_ string: String) {
        var string = string
        string.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    private mutating func raw(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A string literal escaped as event lines are; widget ids and reasons seldom need escaping,
    /// so those are copied as they are.
    private mutating func string(_ value: String) {
        let plain = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for c in bytes where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return false }
            reserve(bytes.count + 2)
            text[count] = UInt8(ascii: "\"")
            if let base = bytes.baseAddress { memcpy(text + count + 1, base, bytes.count) }
            text[count + 1 + bytes.count] = UInt8(ascii: "\"")
            count += bytes.count + 2
            return true
        }
        if plain != true { append(JSONLWriter.string(value)) }
    }

    /// The instant as `EventTime.rfc3339` writes it (the tests hold the two to the same bytes),
    /// straight into the buffer: that `String` costs a third of the rest of a ranking's JSON.
    private mutating func time(_ time: EventTime) {
        let offset = Int64(time.utcOffsetSeconds) / 60 * 60   // whole minutes, as RFC 3339 writes them
        let local = time.nanosecondsSinceEpoch + offset * 1_000_000_000
        let days = EventTime.floorDiv(local, 86_400_000_000_000)
        let nanoseconds = local - days * 86_400_000_000_000
        let (year, month, day) = EventTime.civilFromDays(days)
        let seconds = nanoseconds / 1_000_000_000
        reserve(40)
        digits(year, 4); byte("-"); digits(month, 2); byte("-"); digits(day, 2); byte("T")
        digits(seconds / 3600, 2); byte(":"); digits(seconds / 60 % 60, 2); byte(":"); digits(seconds % 60, 2)
        var fraction = nanoseconds % 1_000_000_000
        if fraction != 0 {
            var width = 9
            while fraction % 10 == 0 { fraction /= 10; width -= 1 }
            byte("."); digits(fraction, width)
        }
        if offset == 0 {
            byte("Z")
        } else {
            byte(offset < 0 ? "-" : "+"); digits(abs(offset) / 3600, 2); byte(":"); digits(abs(offset) / 60 % 60, 2)
        }
    }

    /// `value` (>= 0) in decimal, zero-padded to `width` digits; room reserved by the caller.
    private mutating func digits(_ value: Int64, _ width: Int) {
        var value = value
        for k in stride(from: width - 1, through: 0, by: -1) {
            text[count + k] = UInt8(truncatingIfNeeded: value % 10) + UInt8(ascii: "0")
            value /= 10
        }
        count += width
    }

    private mutating func byte(_ c: Unicode.Scalar) {
        text[count] = UInt8(ascii: c)
        count += 1
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
