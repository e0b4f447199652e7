import Foundation
import Synchronization

/// A snapshot of a running evaluation, for progress bars.
public struct ReplayProgress: Sendable, Hashable {
    /// What the evaluator is doing.
    public enum Phase: String, Sendable, Hashable {
        /// Reading the dataset once to count events and users.
        case scanning
        /// Replaying users through the policies.
        case replaying
        /// Computing bootstrap intervals.
        case bootstrapping
    }
    /// The current phase.
    public var phase: Phase
    /// Events handled so far in this phase.
    public var events: Int
    /// Events expected in this phase, when known (0 if not).
    public var totalEvents: Int
    /// Decision points replayed so far.
    public var decisionPoints: Int
    /// Seconds since the phase started.
    public var elapsed: Double

    /// Creates a snapshot.
    public init(phase: Phase, events: Int, totalEvents: Int, decisionPoints: Int, elapsed: Double) {
        self.phase = phase; self.events = events; self.totalEvents = totalEvents
        self.decisionPoints = decisionPoints; self.elapsed = elapsed
    }

    /// Events per second in this phase.
    public var rate: Double { elapsed > 0 ? Double(events) / elapsed : 0 }

    /// Estimated seconds left, when the total is known and some progress made.
    public var secondsLeft: Double? {
        guard totalEvents > 0, events > 0, rate > 0 else { return nil }
        return Double(max(0, totalEvents - events)) / rate
    }

    /// One line for a terminal: a bar, counts, rate and ETA (no newline).
    public func line(width: Int = 24) -> String {
        var s = phase.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)
        if totalEvents > 0 {
            let f = min(1, Double(events) / Double(totalEvents))
            let filled = Int((f * Double(width)).rounded(.down))
            s += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            s += String(format: "%3.0f%% ", f * 100)
        }
        s += "\(Self.compact(Double(events))) events"
        if phase == .replaying { s += ", \(Self.compact(Double(decisionPoints))) decisions" }
        s += ", \(Self.compact(rate))/s"
        if let left = secondsLeft { s += ", ETA \(Self.duration(left))" }
        return s
    }

    static func compact(_ v: Double) -> String {
        if v >= 1e6 { return String(format: "%.1fM", v / 1e6) }
        if v >= 1e3 { return String(format: "%.1fk", v / 1e3) }
        return String(format: "%.0f", v)
    }

    static func duration(_ s: Double) -> String {
        let t = Int(s.rounded())
        return t >= 3600 ? "\(t / 3600)h\(String(format: "%02d", t / 60 % 60))m" : "\(t / 60)m\(String(format: "%02d", t % 60))s"
    }
}

/// Counters shared by the workers and the progress reporter.
final class ProgressCounters: Sendable {
    let events = Atomic<Int>(0)
    let decisionPoints = Atomic<Int>(0)
    let total = Atomic<Int>(0)
    let phase = Atomic<Int>(0)
    let done = Atomic<Bool>(false)
}
