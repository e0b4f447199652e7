#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(Darwin)
import Darwin
#endif

/// The JSON of a ranking, as `smartstack rank --json` prints it and `smartstack_rank` returns
/// it, and of a decision (`smartstack_decide`: the same object with the decision's `top`,
/// `rotated` and `propensity` before the ranking). One encoder for both, written straight into
/// bytes: it is on the path of every decision a host asks for through the C API.
///
/// ```swift
/// RankingJSON.string(ranking)
/// // {"stack":"home","user":"me","at":"2026-03-02T08:10:00-05:00","policy":"contextual",
/// //  "ranking":[{"widget":"calendar","score":1.25,"eligible":true,"reasons":[{"text":"at work","contribution":0.8}]}]}
/// ```
///
/// Keys come in a fixed order; strings are escaped as event lines are (``JSONLWriter``); a number
/// is `null` when not finite, an integer without a fraction below 10^15, else the shortest text
/// that reads back to the same `Double` (Swift's `description`).
package struct RankingJSON: ~Copyable {
    /// The JSON of `ranking` with every widget's reasons.
    ///
    /// - Complexity: O(widgets · reasons).
    package static func string(_ ranking: Ranking) -> String {
        var json = RankingJSON()
        var ranking = ranking
        json.write(&ranking, decision: nil, explained: true)
        return json.string()
    }

    /// The JSON of `decision`, with each widget's reasons when `explained` (else no `reasons` keys).
    ///
    /// - Complexity: O(widgets · reasons).
    package static func string(_ decision: RotationDecision, explained: Bool) -> String {
        var json = RankingJSON()
        var ranking = decision.ranking
        json.write(&ranking, decision: Fields(decision), explained: explained)
        return json.string()
    }

    /// ``string(_:)`` in memory from `malloc`, NUL-terminated, for a C caller to release with
    /// `free`; and its length without the NUL; without `reasons` keys unless `explained`. The
    /// ranking is used up: its widgets are moved out as they are written (read as owned values,
    /// their strings need no retaining).
    package static func cString(_ ranking: consuming Ranking,
                                explained: Bool = true) -> (text: UnsafeMutablePointer<CChar>, length: Int) {
        var json = RankingJSON()
        json.write(&ranking, decision: nil, explained: explained)
        return json.cString()
    }

    /// ``string(_:explained:)`` as ``cString(_:)`` gives it, using the decision up likewise.
    package static func cString(_ decision: consuming RotationDecision,
                                explained: Bool) -> (text: UnsafeMutablePointer<CChar>, length: Int) {
        var json = RankingJSON()
        let fields = Fields(decision)
        json.write(&decision.ranking, decision: fields, explained: explained)
        return json.cString()
    }

    /// A decision's own fields (copying the whole decision into an optional would retain every
    /// string of its ranking).
    private struct Fields {
        var top: String?
        var didRotate: Bool
        var propensity: Double
        init(_ decision: borrowing RotationDecision) {
            top = decision.top
            didRotate = decision.didRotate
            propensity = decision.propensity
        }
    }

    /// The text so far: `count` bytes of `capacity` from `malloc`.
    private var text: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    private init() {
        // Room for a typical 10-widget decision with reasons (4.1-5 KB since issue 14's longer
        // explanations) in one allocation: at 4 KB nearly every decision paid a realloc and copy.
        capacity = 8192
        text = malloc(capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    deinit { free(text) }

    /// Hands the text over as a C string (`free` releases it).
    private consuming func cString() -> (text: UnsafeMutablePointer<CChar>, length: Int) {
        reserve(1)
        text[count] = 0
        let result = (UnsafeMutableRawPointer(text).assumingMemoryBound(to: CChar.self), count)
        discard self
        return result
    }

    private consuming func string() -> String {
        String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Writes `ranking`, with `decision`'s fields before the ranking when given, and each
    /// widget's reasons when `explained`. Each widget and reason is moved out of `ranking` as it
    /// is written, and an empty one left in its place: reading them in place instead would
    /// retain and release every string (about 90 atomic operations for a ranking with reasons).
    private mutating func write(_ ranking: inout Ranking, decision: Fields?, explained: Bool) {
        raw("{\"stack\":"); string(&ranking.stack)
        raw(",\"user\":"); string(&ranking.user)
        raw(",\"at\":\"")
        reserve(EventTime.maximumRFC3339Length)
        count += ranking.at.writeRFC3339(to: text + count)
        raw("\",\"policy\":"); string(&ranking.policy)
        if let decision {
            raw(",\"top\":")
            if var top = decision.top { string(&top) } else { raw("null") }
            raw(decision.didRotate ? ",\"rotated\":true,\"propensity\":" : ",\"rotated\":false,\"propensity\":")
            number(decision.propensity)
        }
        raw(",\"ranking\":[")
        ranking.widgets.withUnsafeMutableBufferPointer { widgets in
            let widgetCount = widgets.count
            guard let widgets = widgets.baseAddress else { return }
            for w in 0..<widgetCount {
                var widget = (widgets + w).move()
                (widgets + w).initialize(to: RankedWidget(widget: "", score: 0, isEligible: false, reasons: []))
                raw(w == 0 ? "{\"widget\":" : ",{\"widget\":"); string(&widget.widget)
                raw(",\"score\":"); number(widget.score)
                raw(widget.isEligible ? ",\"eligible\":true" : ",\"eligible\":false")
                guard explained else { raw("}"); continue }
                raw(",\"reasons\":[")
                let reasonCount = widget.reasons.count
                widget.reasons.withUnsafeMutableBufferPointer { reasons in
                    guard let reasons = reasons.baseAddress else { return }
                    for r in 0..<reasonCount {
                        var reason = (reasons + r).move()
                        (reasons + r).initialize(to: Reason(text: "", contribution: 0))
                        raw(r == 0 ? "{\"text\":" : "},{\"text\":"); string(&reason.text)
                        raw(",\"contribution\":"); number(reason.contribution)
                    }
                }
                raw(reasonCount == 0 ? "]}" : "}]}")
            }
        }
        raw("]}")
    }

    /// Room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private mutating func grow(_ needed: Int) {
        capacity = max(capacity * 2, needed)
        text = realloc(text, capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count)
        if let base = bytes.baseAddress { memcpy(text + count, base, bytes.count) }
        count += bytes.count
    }

    /// A literal: inlined, so that each copy is a few moves of a known size, not a call.
    @inline(__always)
    private mutating func raw(_ literal: StaticString) {
        reserve(literal.utf8CodeUnitCount)
        memcpy(text + count, literal.utf8Start, literal.utf8CodeUnitCount)
        count += literal.utf8CodeUnitCount
    }

    /// A string literal escaped as event lines are. Widget ids and reasons seldom need escaping:
    /// they are copied eight bytes at a time while checking for `"`, `\` and control characters.
    /// `inout` because `withUTF8` on the caller's own variable reads the bytes in place, where a
    /// `utf8` view of a borrowed string would retain it.
    @inline(__always)
    private mutating func string(_ value: inout String) {
        let isPlain = value.withUTF8 { bytes -> Bool in
            reserve(bytes.count + 2)
            text[count] = UInt8(ascii: "\"")
            if let source = bytes.baseAddress, !Self.copyPlain(source, bytes.count, to: text + count + 1) { return false }
            text[count + 1 + bytes.count] = UInt8(ascii: "\"")
            count += bytes.count + 2
            return true
        }
        if !isPlain { escaped(value) }
    }

    private mutating func escaped(_ value: String) {
        var escaped = JSONLWriter.string(value)
        escaped.withUTF8 { append($0) }
    }

    /// Copies `length` bytes; `false` (having copied part) when one of them must be escaped.
    private static func copyPlain(_ source: UnsafePointer<UInt8>, _ length: Int, to target: UnsafeMutablePointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i + 8 <= length {
            let word = UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self)
            // A byte below 0x20, or equal to `"` or `\` (bit tricks: a zero byte of x ^ c).
            let control = (word &- ones &* 0x20) & ~word
            let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
            if (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs != 0 { return false }
            UnsafeMutableRawPointer(target + i).storeBytes(of: word, as: UInt64.self)
            i += 8
        }
        while i < length {
            let c = source[i]
            if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return false }
            target[i] = c
            i += 1
        }
        return true
    }

    /// `null` when not finite; an integer below 10^15 without a fraction; else the shortest
    /// text that reads back to the same value, as Swift's `description` writes it.
    private mutating func number(_ x: Double) {
        reserve(Self.maximumNumberLength)
        if abs(x) < 1e15, Double(Int64(x)) == x {   // integral (-0.0 too, written 0)
            count += Self.writeInteger(Int64(x), to: text + count)
        } else if !x.isFinite {
            raw("null")
        } else if let written = Self.writeShortest(x, to: text + count) {
            count += written
        } else {
            var description = x.description   // outside the fast formatter's range: rare in rankings
            description.withUTF8 { append($0) }
        }
    }
}
