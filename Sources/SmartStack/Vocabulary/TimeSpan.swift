/// A length of time as the engine's parameters take it, written with a unit: `45s`, `30m`,
/// `2h`, `14d`, `1w` (fractions allowed, e.g. `1.5h`).
///
/// ```swift
/// let halfLife = TimeSpan.days(7)
/// halfLife.seconds                       // 604800
/// halfLife.description                   // "1w"
/// TimeSpan(parsing: "90m")?.seconds      // 5400
/// ```
public struct TimeSpan: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The length in seconds.
    public var seconds: Double

    /// A span of `seconds` seconds.
    public init(seconds: Double) { self.seconds = seconds }

    /// `n` seconds.
    public static func seconds(_ n: Double) -> TimeSpan { TimeSpan(seconds: n) }
    /// `n` minutes.
    public static func minutes(_ n: Double) -> TimeSpan { TimeSpan(seconds: n * 60) }
    /// `n` hours.
    public static func hours(_ n: Double) -> TimeSpan { TimeSpan(seconds: n * 3600) }
    /// `n` days of 24 hours.
    public static func days(_ n: Double) -> TimeSpan { TimeSpan(seconds: n * 86_400) }
    /// `n` weeks of 7 days.
    public static func weeks(_ n: Double) -> TimeSpan { TimeSpan(seconds: n * 7 * 86_400) }

    /// Parses a number followed by a unit (`s`, `m`, `h`, `d`, `w`); `nil` for anything else or
    /// a negative or infinite length.
    public init?(parsing text: String) {
        guard let unit = text.last else { return nil }
        let scale: Double
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86_400
        case "w": scale = 7 * 86_400
        default: return nil
        }
        guard let n = Double(text.dropLast()), n.isFinite, n >= 0 else { return nil }
        self.init(seconds: n * scale)
    }

    /// The span with the largest unit that divides it, e.g. `14d`, `90m`, `45s`.
    public var description: String {
        // Whole numbers beyond 1e15 are written as decimals: `Int` could not hold them.
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds)s" }
        for (unit, scale) in [("w", 604_800.0), ("d", 86_400), ("h", 3600), ("m", 60)] where seconds >= scale {
            let n = seconds / scale
            if n == n.rounded() { return "\(Int(n))\(unit)" }
        }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }

    public static func < (a: TimeSpan, b: TimeSpan) -> Bool { a.seconds < b.seconds }
}
