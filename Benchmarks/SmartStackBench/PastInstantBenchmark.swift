// What an answer at a past instant costs (docs/contract.md, "An instant"): the live answer
// against the one rebuilt from the log, in the same run, for several lengths of history.
import Foundation
import SmartStack

/// `smartstack-bench past-instants [--repeats N]`: one user's routine (the engine benchmark's),
/// recorded through `Engine` into a log on disk; then rankings and decisions at the newest
/// instant (live) and at the middle of the history (past: rebuilt from the log), median of N.
func runPastInstantBenchmark(_ arguments: [String]) throws {
    var repeats = 21
    if arguments.count == 2, arguments[0] == "--repeats", let n = Int(arguments[1]), n >= 3 { repeats = n }
    else if !arguments.isEmpty { throw PastInstantBenchFailure("usage: smartstack-bench past-instants [--repeats N>=3]") }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smartstack-past-bench-\(getpid())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    print("past-instant benchmark: one user, a 10-widget stack, policy contextual, reasons on; median of \(repeats)")
    print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, shared; figures are wall time\n")
    print("HISTORY   LIVE RANK   PAST RANK (middle)   RATIO   LIVE DECIDE   PAST DECIDE (middle)   RATIO   EVENTS REPLAYED")
    for history in [1_000, 10_000, 100_000] {
        var routine = EngineBenchRoutine(seed: 42)
        let events = routine.events(count: history)
        let engine = try Engine(path: "\(directory)/past-\(history).sqlite", policy: PolicySpec(parsing: "contextual"))
        var k = 0
        while k < events.count {
            try engine.record(Array(events[k..<min(events.count, k + 1000)]))
            k += 1000
        }
        try engine.flush()
        let user = EngineBenchRoutine.user
        let newest = events[events.count - 1].time.adding(seconds: 60)
        let middle = events[events.count / 2].time.adding(seconds: 1)
        func median(_ body: () throws -> Void) rethrows -> Double {
            var times: [Double] = []
            for _ in 0..<repeats {
                let start = engineMonotonic()
                try body()
                times.append(engineMonotonic() - start)
            }
            return times.sorted()[repeats / 2]
        }
        let liveRank = try median { _ = try engine.ranking(stack: "home", user: user, at: newest) }
        let pastRank = try median { _ = try engine.ranking(stack: "home", user: user, at: middle) }
        let liveDecide = try median { _ = try engine.decide(stack: "home", user: user, at: newest) }
        let pastDecide = try median { _ = try engine.decide(stack: "home", user: user, at: middle) }
        let replayed = try engine.ranking(stack: "home", user: user, before: middle).replayedEvents
        func time(_ seconds: Double) -> String {
            seconds < 1e-3 ? String(format: "%.1f µs", seconds * 1e6) : String(format: "%.2f ms", seconds * 1e3)
        }
        func column(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(1, width - text.count)) }
        print(column(String(history), 10) + column(time(liveRank), 12) + column(time(pastRank), 21)
              + column(String(format: "%.0fx", pastRank / liveRank), 8) + column(time(liveDecide), 14)
              + column(time(pastDecide), 23) + column(String(format: "%.0fx", pastDecide / liveDecide), 8) + String(replayed))
        try engine.close()
    }
    print("\npast rank: the saved state covers events after the middle, so the log before it is replayed from the start")
    print("past decide: always from the start of the user's log (the saved state carries live rotation)")
}

private struct PastInstantBenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
