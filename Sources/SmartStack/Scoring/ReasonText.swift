/// Small formatters for explanation phrases, in the person's local time, without Foundation
/// formatters (which would read the current locale or time zone).
///
/// Each phrase piece is written as UTF-8 bytes into a buffer (`append...`), so an explanation's
/// text is built in one buffer and becomes one `String` (a ranking explains every widget: strings
/// concatenated piece by piece would allocate several times per reason). The `String` forms are
/// the same bytes.
enum ReasonText {
    /// `HH:MM` of an instant in a given UTC offset.
    static func clock(_ ts: Double, offset: Int32) -> String { text { appendClock(ts, offset: offset, to: &$0) } }

    /// `HH:MM` of a local second of day (wrapping around midnight).
    static func clock(secondOfDay s: Int) -> String { text { appendClock(secondOfDay: s, to: &$0) } }

    /// `12 min ago`, `3 h ago`, `2 days ago`.
    static func ago(_ seconds: Double) -> String { text { appendAgo(seconds, to: &$0) } }

    /// `20 min`, `3 h` (rounded).
    static func duration(_ seconds: Double) -> String { text { appendDuration(seconds, to: &$0) } }

    /// A number with at most two decimals, trailing zeros removed (`0.9`, `12`, `0.25`).
    static func number(_ x: Double) -> String { text { appendNumber(x, to: &$0) } }

    /// `1 time`, `3 times` (fractional counts rounded).
    static func times(_ x: Double) -> String { text { appendTimes(x, to: &$0) } }

    /// The text `build` writes.
    static func text(_ build: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        build(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Pieces written into a buffer

    /// `HH:MM` of an instant in a given UTC offset.
    static func appendClock(_ ts: Double, offset: Int32, to out: inout [UInt8]) {
        // Instants a reason names are those of recorded events: finite and within Int64 nanoseconds.
        let nanoseconds = (ts * 1_000_000_000).rounded()
        guard nanoseconds.magnitude < 9.2e18 else { append("--:--", to: &out); return }
        appendClock(secondOfDay: EventTime(nanosecondsSinceEpoch: Int64(nanoseconds), utcOffsetSeconds: offset).localSecondsOfDay,
                    to: &out)
    }

    /// `HH:MM` of a local second of day (wrapping around midnight).
    static func appendClock(secondOfDay s: Int, to out: inout [UInt8]) {
        let m = ((s / 60) % 1440 + 1440) % 1440
        let h = m / 60, mm = m % 60
        out.append(UInt8(48 + h / 10)); out.append(UInt8(48 + h % 10)); out.append(UInt8(ascii: ":"))
        out.append(UInt8(48 + mm / 10)); out.append(UInt8(48 + mm % 10))
    }

    /// `12 min ago`, `3 h ago`, `2 days ago`.
    static func appendAgo(_ seconds: Double, to out: inout [UInt8]) {
        if seconds < 90 { append("just now", to: &out); return }
        if seconds < 5400 { appendInteger(Int((seconds / 60).rounded()), to: &out); append(" min ago", to: &out); return }
        if seconds < 172_800 { appendInteger(Int((seconds / 3600).rounded()), to: &out); append(" h ago", to: &out); return }
        appendInteger(Int((seconds / 86_400).rounded()), to: &out)
        append(" days ago", to: &out)
    }

    /// `20 min`, `3 h` (rounded).
    static func appendDuration(_ seconds: Double, to out: inout [UInt8]) {
        if seconds < 5400 { appendInteger(Int((seconds / 60).rounded()), to: &out); append(" min", to: &out); return }
        appendInteger(Int((seconds / 3600).rounded()), to: &out)
        append(" h", to: &out)
    }

    /// A number with at most two decimals, trailing zeros removed (`0.9`, `12`, `0.25`).
    static func appendNumber(_ x: Double, to out: inout [UInt8]) {
        guard x.isFinite else { append(string: String(x), to: &out); return }
        let scaled = (abs(x) * 100).rounded()
        if scaled > 1e15 { append(string: String(x), to: &out); return }
        let whole = Int(scaled) / 100, frac = Int(scaled) % 100
        if x < 0 && scaled > 0 { out.append(UInt8(ascii: "-")) }
        appendInteger(whole, to: &out)
        if frac != 0 {
            out.append(UInt8(ascii: "."))
            if frac % 10 == 0 {
                out.append(UInt8(48 + frac / 10))
            } else {
                out.append(UInt8(48 + frac / 10)); out.append(UInt8(48 + frac % 10))
            }
        }
    }

    /// `1 time`, `3 times` (fractional counts rounded).
    static func appendTimes(_ x: Double, to out: inout [UInt8]) {
        let n = Int(x.rounded())
        if n == 1 { append("1 time", to: &out); return }
        appendInteger(n, to: &out)
        append(" times", to: &out)
    }

    /// The decimal digits of `n` (with `-` when negative), as `String(n)` writes them.
    static func appendInteger(_ n: Int, to out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = n.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(48 + magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for k in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[k]) }
        }
    }

    /// The UTF-8 bytes of a literal (copied as one block).
    @inline(__always) static func append(_ literal: StaticString, to out: inout [UInt8]) {
        literal.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// The UTF-8 bytes of `text` (copied as one block).
    @inline(__always) static func append(string text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }
}
