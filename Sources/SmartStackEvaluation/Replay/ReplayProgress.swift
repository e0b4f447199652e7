import Foundation
import Synchronization

/// A snapshot of a running evaluation, for progress bars.
public struct ReplayProgress: Sendable, Hashable {
    /// What the evaluator is doing.
    public enum Phase: String, Sendable, Hashable {
        /// Reading the dataset to count events and users (files not grouped by user).
        case scanning
        /// Replaying users through the policies (while reading files grouped by user).
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
    /// Bytes of the dataset files read so far (compressed bytes for gzip files), and their
    /// total size; 0 when the events do not come from files read once.
    public var bytes: Int
    /// The dataset files' total size in bytes (0 when unknown or not reading files).
    public var totalBytes: Int

    /// Creates a snapshot.
    public init(phase: Phase, events: Int, totalEvents: Int, decisionPoints: Int, elapsed: Double,
                bytes: Int = 0, totalBytes: Int = 0) {
        self.phase = phase; self.events = events; self.totalEvents = totalEvents
        self.decisionPoints = decisionPoints; self.elapsed = elapsed
        self.bytes = bytes; self.totalBytes = totalBytes
    }

    /// Events per second in this phase (0 while bootstrapping, which handles no events).
    public var rate: Double { phase != .bootstrapping && elapsed > 0 ? Double(events) / elapsed : 0 }

    /// How far this phase is, 0...1: by events when their total is known, else by bytes read.
    public var fraction: Double? {
        guard phase != .bootstrapping else { return nil }
        if totalEvents > 0 { return min(1, Double(events) / Double(totalEvents)) }
        if totalBytes > 0 { return min(1, Double(bytes) / Double(totalBytes)) }
        return nil
    }

    /// Estimated seconds left, when the total is known and some progress made.
    public var secondsLeft: Double? {
        guard let f = fraction, f > 0, elapsed > 0 else { return nil }
        return elapsed * (1 - f) / f
    }

    /// One line for a terminal: a bar, counts, rate and ETA (no newline). Bootstrapping shows
    /// what is resampled and the time spent, not an event rate.
    public func line(width: Int = 24) -> String {
        var s = phase.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)
        if phase == .bootstrapping {
            return s + "intervals over user-days of \(Self.compact(Double(decisionPoints))) decisions, \(Self.duration(elapsed))"
        }
        if let f = fraction {
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
    /// Bytes of the dataset files read, and their total (0 when not reading files).
    let bytes = Atomic<Int>(0)
    let totalBytes = Atomic<Int>(0)
    let decisionPoints = Atomic<Int>(0)
    let total = Atomic<Int>(0)
    let phase = Atomic<Int>(0)
    let done = Atomic<Bool>(false)
}
