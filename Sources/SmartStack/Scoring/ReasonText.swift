/// Small formatters for explanation phrases, in the person's local time, without Foundation
/// formatters (which would read the current locale or time zone).
enum ReasonText {
    /// `HH:MM` of an instant in a given UTC offset.
    static func clock(_ ts: Double, offset: Int32) -> String {
        // Instants a reason names are those of recorded events: finite and within Int64 nanoseconds.
        let nanoseconds = (ts * 1_000_000_000).rounded()
        guard nanoseconds.magnitude < 9.2e18 else { return "--:--" }
        return clock(secondOfDay: EventTime(nanosecondsSinceEpoch: Int64(nanoseconds), utcOffsetSeconds: offset).localSecondsOfDay)
    }

    /// `HH:MM` of a local second of day (wrapping around midnight).
    static func clock(secondOfDay s: Int) -> String {
        let m = ((s / 60) % 1440 + 1440) % 1440
        let h = m / 60, mm = m % 60
        // Five ASCII bytes written in place: no intermediate strings (reasons name many times).
        return String(unsafeUninitializedCapacity: 5) { b in
            b[0] = UInt8(48 + h / 10); b[1] = UInt8(48 + h % 10); b[2] = UInt8(ascii: ":")
            b[3] = UInt8(48 + mm / 10); b[4] = UInt8(48 + mm % 10)
            return 5
        }
    }

    /// `12 min ago`, `3 h ago`, `2 days ago`.
    static func ago(_ seconds: Double) -> String {
        if seconds < 90 { return "just now" }
        if seconds < 5400 { return String(Int((seconds / 60).rounded())) + " min ago" }
        if seconds < 172_800 { return String(Int((seconds / 3600).rounded())) + " h ago" }
        return String(Int((seconds / 86_400).rounded())) + " days ago"
    }

    /// `20 min`, `3 h` (rounded).
    static func duration(_ seconds: Double) -> String {
        if seconds < 5400 { return String(Int((seconds / 60).rounded())) + " min" }
        return String(Int((seconds / 3600).rounded())) + " h"
    }

    /// A number with at most two decimals, trailing zeros removed (`0.9`, `12`, `0.25`).
    static func number(_ x: Double) -> String {
        guard x.isFinite else { return String(x) }
        let scaled = (abs(x) * 100).rounded()
        if scaled > 1e15 { return String(x) }
        let whole = Int(scaled) / 100, frac = Int(scaled) % 100
        var s = (x < 0 && scaled > 0 ? "-" : "") + String(whole)
        if frac != 0 {
            s += frac % 10 == 0 ? "." + String(frac / 10) : (frac < 10 ? ".0" : ".") + String(frac)
        }
        return s
    }

    /// `1 time`, `3 times` (fractional counts rounded).
    static func times(_ x: Double) -> String {
        let n = Int(x.rounded())
        return n == 1 ? "1 time" : String(n) + " times"
    }
}
