// The C interface against the Swift API it wraps (issue 15), in one process so machine load hits
// both alike: decision latency (`smartstack_decide` vs `Engine.decide`, with and without the
// reasons) and the rate of recording
// a 10,000-event JSONL batch (`smartstack_record` vs `Engine.record` of parsed events). It also
// writes the history and instants that the Python and Java benchmarks replay
// (Benchmarks/bindings/run.sh runs them all).
import CSmartStack
import Foundation
import SmartStack
import SmartStackC

/// `smartstack-bench bindings [--decisions N] [--rounds N] [--out DIR]`.
func runBindingsBenchmark(_ arguments: [String]) throws {
    var decisions = 20_000
    var rounds = 15
    var directory = FileManager.default.temporaryDirectory.appendingPathComponent("smartstack-bindings-bench").path
    var i = 0
    while i < arguments.count {
        switch arguments[i] {
        case "--decisions" where i + 1 < arguments.count:
            guard let n = Int(arguments[i + 1]), n >= 100 else { throw BindingsBenchFailure("--decisions takes a number >= 100") }
            decisions = n; i += 1
        case "--rounds" where i + 1 < arguments.count:
            guard let n = Int(arguments[i + 1]), n >= 1 else { throw BindingsBenchFailure("--rounds takes a number >= 1") }
            rounds = n; i += 1
        case "--out" where i + 1 < arguments.count:
            directory = arguments[i + 1]; i += 1
        default:
            throw BindingsBenchFailure("unknown argument '\(arguments[i])' (usage: smartstack-bench bindings [--decisions N] [--rounds N] [--out DIR])")
        }
        i += 1
    }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var routine = EngineBenchRoutine(seed: 42)
    let events = routine.events(count: BindingsBench.historyCount)
    var jsonl: [UInt8] = []
    for event in events { JSONLWriter.append(event, to: &jsonl) }
    try Data(jsonl).write(to: URL(fileURLWithPath: directory + "/history.jsonl"))
    let first = events[events.count - 1].time.nanosecondsSinceEpoch + BindingsBench.stepNanoseconds
    print("bindings benchmark: \(events.count)-event history (\(directory)/history.jsonl), user '\(EngineBenchRoutine.user)', "
          + "10-widget stack 'home', policy contextual")
    print("decisions at \(first) + k·\(BindingsBench.stepNanoseconds) ns, offset \(BindingsBench.offset) s; "
          + "\(BindingsBench.warmup) warm-up, \(decisions) timed, Swift and C in turn (which goes first alternates)")

    // Recording: a fresh database file per run, Swift and C back to back in each round, which of
    // the two goes first alternating from round to round (the second write of a round may find
    // the disk busy with the first).
    var swiftRates: [Double] = [], cRates: [Double] = []
    for round in 0..<rounds {
        let swiftPath = directory + "/record-swift-\(round).sqlite", cPath = directory + "/record-c-\(round).sqlite"
        for path in [swiftPath, cPath] { BindingsBench.remove(path) }
        for side in round % 2 == 0 ? ["swift", "c"] : ["c", "swift"] {
            if side == "swift" {
                let swiftEngine = try Engine(path: swiftPath, policy: PolicySpec(parsing: "contextual"))
                let t0 = engineMonotonic()
                try swiftEngine.record(events)
                swiftRates.append(Double(events.count) / (engineMonotonic() - t0))
                try swiftEngine.close()
            } else {
                let cEngine = try BindingsBench.open(cPath)
                var inserted: UInt64 = 0
                let t0 = engineMonotonic()
                let status = jsonl.withUnsafeBytes {
                    smartstack_record(cEngine, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count, &inserted, nil)
                }
                cRates.append(Double(events.count) / (engineMonotonic() - t0))
                try BindingsBench.check(status, cEngine, "smartstack_record")
                guard inserted == UInt64(events.count) else { throw BindingsBenchFailure("smartstack_record stored \(inserted) events") }
                try BindingsBench.check(smartstack_close(cEngine), nil, "smartstack_close")
            }
        }
        for path in [swiftPath, cPath] { BindingsBench.remove(path) }
    }

    // Deciding: six engines holding the same history decide at the same instants, in turn:
    // Swift, C JSON and C packed with reasons, Swift and C JSON without, then C packed without.
    // Each side's time includes releasing what it returned (the Swift decision, the C JSON with
    // smartstack_free, the packed decision with smartstack_free_decision), as a host does.
    let paths = ["swift", "c", "swift-bare", "c-bare", "c-packed", "c-packed-bare"].map { directory + "/decide-\($0).sqlite" }
    for path in paths { BindingsBench.remove(path) }
    let swiftEngines = try [paths[0], paths[2]].map { path in
        let engine = try Engine(path: path, policy: PolicySpec(parsing: "contextual"))
        try engine.record(events)
        return engine
    }
    let cEngines = try [paths[1], paths[3], paths[4], paths[5]].map { path in
        let engine = try BindingsBench.open(path)
        try BindingsBench.check(jsonl.withUnsafeBytes { smartstack_record(engine, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count, nil, nil) },
                                engine, "smartstack_record")
        return engine
    }
    var samples = [[Double]](repeating: [Double](repeating: 0, count: decisions), count: 6)
    var checksum = 0
    for k in 0..<(BindingsBench.warmup + decisions) {
        let at = first + Int64(k) * BindingsBench.stepNanoseconds
        let time = EventTime(nanosecondsSinceEpoch: at, utcOffsetSeconds: BindingsBench.offset)
        for (side, explained) in [(0, true), (2, false)] {
            // Which goes first rotates, so none always finds the caches warmed by another's engine.
            let routes = [side, side + 1, side / 2 + 4]
            for j in 0..<3 {
                let route = routes[(j + k) % 3]
                let t0 = engineMonotonic()
                if route == side {
                    let decision = try swiftEngines[side / 2].decide(stack: "home", user: EngineBenchRoutine.user, at: time,
                                                                     explained: explained)
                    checksum &+= (decision.top?.utf8.count ?? 0) + decision.ranking.widgets.count
                } else if route >= 4 {
                    var packed: UnsafeMutablePointer<smartstack_decision>?
                    let status = smartstack_decide_packed(cEngines[route - 2], "home", EngineBenchRoutine.user, at, BindingsBench.offset,
                                                          explained ? 1 : 0, &packed)
                    checksum &+= packed.map { $0.pointee.widget_count + $0.pointee.reason_count } ?? 0
                    smartstack_free_decision(packed)
                    try BindingsBench.check(status, cEngines[route - 2], "smartstack_decide_packed")
                } else {
                    var json: UnsafeMutablePointer<CChar>?
                    var length = 0
                    let status = smartstack_decide(cEngines[side / 2], "home", EngineBenchRoutine.user, at, BindingsBench.offset,
                                                   explained ? 1 : 0, &json, &length)
                    smartstack_free(json)
                    try BindingsBench.check(status, cEngines[side / 2], "smartstack_decide")
                    checksum &+= length
                }
                let t1 = engineMonotonic()
                if k >= BindingsBench.warmup { samples[route][k - BindingsBench.warmup] = t1 - t0 }
            }
        }
    }
    for engine in swiftEngines { try engine.close() }
    for engine in cEngines { try BindingsBench.check(smartstack_close(engine), nil, "smartstack_close") }
    for path in paths { BindingsBench.remove(path) }

    let swift = BindingsBench.Latency(samples[0]), c = BindingsBench.Latency(samples[1])
    let swiftBare = BindingsBench.Latency(samples[2]), bare = BindingsBench.Latency(samples[3])
    let packed = BindingsBench.Latency(samples[4]), packedBare = BindingsBench.Latency(samples[5])
    let swiftRate = BindingsBench.median(swiftRates), cRate = BindingsBench.median(cRates)
    // Each round's two runs are back to back, so their ratio is less exposed to the machine's drift.
    let ratio = BindingsBench.median(zip(cRates, swiftRates).map { $0 / $1 })
    print("")
    print("| measure | Swift API | C API | C − Swift or C ÷ Swift | target |")
    print("|---|---:|---:|---:|---|")
    for (label, swift, latency) in [("decide with reasons (JSON)", swift, c), ("decide with reasons (packed)", swift, packed),
                                    ("decide without reasons (explained: false, explain 0; JSON)", swiftBare, bare),
                                    ("decide without reasons (packed)", swiftBare, packedBare)] {
        print(String(format: "| %@, median | %.2f µs | %.2f µs | %+.2f µs | ≤ +2 µs%@ |", label, swift.median * 1e6, latency.median * 1e6,
                     (latency.median - swift.median) * 1e6, latency.median - swift.median <= 2e-6 ? "" : " (MISSED)"))
        print(String(format: "| %@, p99 | %.2f µs | %.2f µs | %+.2f µs | (info) |", label, swift.p99 * 1e6, latency.p99 * 1e6,
                     (latency.p99 - swift.p99) * 1e6))
    }
    print(String(format: "| record a 10,000-event batch, median of %d rounds (of the rounds' ratios) | %.0fk events/s | %.0fk events/s | %.3f× | ≥ 0.80×%@ |",
                 rounds, swiftRate / 1000, cRate / 1000, ratio, ratio >= 0.8 ? "" : " (MISSED)"))
    print(String(format: "(record rates per round: Swift %@; C %@; checksum %d)",
                 swiftRates.map { String(format: "%.0fk", $0 / 1000) }.joined(separator: " "),
                 cRates.map { String(format: "%.0fk", $0 / 1000) }.joined(separator: " "), checksum))
    // One line for Benchmarks/bindings/run.sh.
    print(String(format: "RESULT swift_decide_median_us=%.3f c_decide_median_us=%.3f c_decide_packed_median_us=%.3f swift_decide_bare_median_us=%.3f c_decide_bare_median_us=%.3f c_decide_packed_bare_median_us=%.3f swift_record_rate=%.0f c_record_rate=%.0f record_ratio=%.3f first_ns=%lld step_ns=%lld offset=%d warmup=%d",
                 swift.median * 1e6, c.median * 1e6, packed.median * 1e6, swiftBare.median * 1e6, bare.median * 1e6,
                 packedBare.median * 1e6, swiftRate, cRate, ratio, first,
                 BindingsBench.stepNanoseconds, BindingsBench.offset, BindingsBench.warmup))
}

/// The benchmark's fixed inputs and small helpers.
private enum BindingsBench {
    static let historyCount = 10_000
    static let stepNanoseconds: Int64 = 60_000_000_000
    static let offset: Int32 = -18_000
    static let warmup = 500

    struct Latency {
        var median: Double, p99: Double
        init(_ samples: [Double]) {
            let sorted = samples.sorted()
            median = sorted[sorted.count / 2]
            p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        }
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    static func open(_ path: String) throws -> OpaquePointer {
        var engine: OpaquePointer?
        try check(smartstack_open(path, "contextual", nil, 0, &engine), nil, "smartstack_open")
        return engine!
    }

    static func check(_ status: smartstack_status, _ engine: OpaquePointer?, _ function: String) throws {
        guard status != SMARTSTACK_OK else { return }
        throw BindingsBenchFailure("\(function) failed (\(status.rawValue)): \(String(cString: smartstack_last_error(engine)))")
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

private struct BindingsBenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
