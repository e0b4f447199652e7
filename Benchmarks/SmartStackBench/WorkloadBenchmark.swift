// smartstack-bench workload <name>: one fixed, deterministic workload of the engine's per-event
// paths, meant to be run under callgrind by `Benchmarks/perf/record.py` (the CI performance
// record), which counts the instructions inside the engine's own function for it:
//   replay     the evaluator's replay of simulated users (`UserReplay.run`), one thread;
//   record     the routine's events recorded into one person's in-memory state (`UserEngine.record(_:)`);
//   rank       a 10-widget stack ranked with reasons (`UserEngine.ranking(stack:at:)`);
//   rank-bare  the same rankings without reasons.
// Everything else (generating the events, the history a ranking reads) happens outside those
// functions and is not counted. Instruction counts of a workload do not move with the machine's
// load, only with the code (and the toolchain).
//
// SMARTSTACK_BENCH_EXTRA_WORK=<percent> makes the workload do that much more of its measured work
// (more events replayed or recorded, more rankings), so that the record's test can check that a
// slowdown of that size is caught. Nothing else reads it.
import Foundation
import SmartStack
import SmartStackEvaluation

/// The workloads by name, with the function whose instructions are counted (a pattern for
/// callgrind's `--toggle-collect`, matched against the binary's symbols) and the unit of one
/// count per unit.
let workloads: [(name: String, counted: String, unit: String)] = [
    ("replay", "$s20SmartStackEvaluation10UserReplayV3run4user6events8policies18collectImpressions5truth8progress6closedAA0dE6ResultVSS_s10ArraySlice*", "event"),
    ("record", "$s10SmartStack10UserEngineC6recordyyAA5EventVF", "event"),
    ("rank", "$s10SmartStack10UserEngineC7ranking5stack2at*", "ranking"),
    ("rank-bare", "$s10SmartStack10UserEngineC7ranking5stack2at*", "ranking"),
]

/// `smartstack-bench workload <name>` runs it and prints `units=<n>` (the units of the nominal
/// workload, not counting extra work) and what it did; `smartstack-bench workload --list`
/// prints `<name> <counted symbol pattern> <unit>` per line.
func runWorkloadBenchmark(_ arguments: [String]) throws {
    if arguments == ["--list"] {
        for w in workloads { print("\(w.name) \(w.counted) \(w.unit)") }
        return
    }
    guard arguments.count == 1, let name = arguments.first, workloads.contains(where: { $0.name == name }) else {
        throw EvaluationError("usage: smartstack-bench workload <\(workloads.map(\.name).joined(separator: "|"))> | --list")
    }
    let extra = try extraWorkPercent()
    switch name {
    case "replay": try replayWorkload(extraPercent: extra)
    case "record": try recordWorkload(extraPercent: extra)
    default: try rankWorkload(explained: name == "rank", extraPercent: extra)
    }
}

/// Simulated users (the five original personas in turn) and days of the replay workload.
private let replayUsers = 5, replayDays = 21
/// Events of the record workload; history and rankings of the rank workloads.
private let recordEvents = 20_000, rankHistory = 10_000, rankings = 500

private func extraWorkPercent() throws -> Int {
    guard let text = ProcessInfo.processInfo.environment["SMARTSTACK_BENCH_EXTRA_WORK"] else { return 0 }
    guard let percent = Int(text), (0...1000).contains(percent) else {
        throw EvaluationError("SMARTSTACK_BENCH_EXTRA_WORK must be a percentage 0...1000, not '\(text)'")
    }
    return percent
}

/// `count` increased by `percent`, rounded down.
private func extended(_ count: Int, by percent: Int) -> Int { count + count * percent / 100 }

private func replayWorkload(extraPercent: Int) throws {
    var events: [Event] = []
    var users: [[Event]] = []
    for u in 0..<replayUsers { users.append(simulatedUser(u, days: replayDays, seed: 42)) }
    for user in users { events += user }
    let spec = try PolicySpec(parsing: PolicyRegistry.defaultPolicy)
    var options = ReplayOptions()
    options.offPolicyEstimates = false
    options.threads = 1
    options.bootstrapResamples = 0
    options.warmupDays = 0
    let report = try Evaluator(options: options).evaluate(.events(events, name: "workload"), policies: [.engine(spec)])
    if extraPercent > 0 {
        // The first `extraPercent` of each user's events, replayed again.
        var more: [Event] = []
        for user in users { more += user.prefix(user.count * extraPercent / 100) }
        _ = try Evaluator(options: options).evaluate(.events(more, name: "workload-extra"), policies: [.engine(spec)])
    }
    print("units=\(events.count)")
    print("replayed \(events.count) events of \(replayUsers) users x \(replayDays) days, \(report.dataset.decisionPoints) decision points, policy '\(spec)'")
}

private func recordWorkload(extraPercent: Int) throws {
    var routine = EngineBenchRoutine(seed: 42)
    let events = routine.events(count: extended(recordEvents, by: extraPercent))
    let engine = try UserEngine(user: EngineBenchRoutine.user, policy: PolicySpec(parsing: "contextual"))
    for event in events { engine.record(event) }
    print("units=\(recordEvents)")
    print("recorded \(events.count) events into one person's in-memory state, policy 'contextual'")
}

private func rankWorkload(explained: Bool, extraPercent: Int) throws {
    var routine = EngineBenchRoutine(seed: 42)
    let events = routine.events(count: rankHistory)
    let engine = try UserEngine(user: EngineBenchRoutine.user, policy: PolicySpec(parsing: "contextual"))
    for event in events { engine.record(event) }
    engine.explainsRankings = explained
    let last = events[events.count - 1].time
    var checksum = 0.0
    for k in 0..<extended(rankings, by: extraPercent) {
        // Instants spread over the day after the last event, as in `smartstack-bench engine`.
        let ranking = try engine.ranking(stack: "home", at: last.adding(seconds: Double(60 + (k * 613) % 86_400)))
        checksum += ranking.widgets[0].score
    }
    print("units=\(rankings)")
    print("ranked the 10-widget stack \(extended(rankings, by: extraPercent)) times \(explained ? "with" : "without") reasons after \(rankHistory) events (checksum \(checksum))")
}
