// The host engine's speed and memory (issue 3): ranking latency, its growth with history,
// recording rate, and cold start of a database holding 1M events in a separate process.
import Foundation
import SmartStack

/// `smartstack-bench engine [--events N] [--rankings N] [--prior] [--keep]`. With `--prior`, every
/// engine (the cold-start children too) runs with a population prior that names every widget and
/// app of the routine, with every cell filled (the most look-ups a prior can cost).
/// The hidden `--cold-start <db> <user> <report> [<prior>]` mode is the child process of the
/// cold-start figure, `--build-db <db> <events> [<prior>]` the one that builds its database.
func runEngineBenchmark(_ arguments: [String]) throws {
    if arguments.first == "--cold-start" {
        guard arguments.count == 4 || arguments.count == 5 else {
            throw EngineBenchFailure("usage: engine --cold-start <db> <user> <report> [<prior>]")
        }
        try engineColdStartChild(database: arguments[1], user: arguments[2], report: arguments[3],
                                 prior: arguments.count == 5 ? arguments[4] : nil)
        return
    }
    if arguments.first == "--build-db" {
        guard arguments.count == 3 || arguments.count == 4, let n = Int(arguments[2]) else {
            throw EngineBenchFailure("usage: engine --build-db <db> <events> [<prior>]")
        }
        try engineBuildDatabase(arguments[1], events: n, prior: arguments.count == 4 ? arguments[3] : nil)
        return
    }
    var large = 1_000_000
    var rankings = 20_000
    var keep = false
    var withPrior = false
    var i = 0
    while i < arguments.count {
        switch arguments[i] {
        case "--events" where i + 1 < arguments.count:
            guard let n = Int(arguments[i + 1]), n >= 20_000 else { throw EngineBenchFailure("--events takes a number >= 20000") }
            large = n; i += 1
        case "--rankings" where i + 1 < arguments.count:
            guard let n = Int(arguments[i + 1]), n >= 100 else { throw EngineBenchFailure("--rankings takes a number >= 100") }
            rankings = n; i += 1
        case "--keep": keep = true
        case "--prior": withPrior = true
        default:
            throw EngineBenchFailure("unknown argument '\(arguments[i])' (usage: smartstack-bench engine [--events N] [--rankings N] [--prior] [--keep])")
        }
        i += 1
    }
    let small = 10_000
    print("engine benchmark: one user, a 10-widget stack (and a 4-widget one), policy contextual, reasons on"
          + (withPrior ? ", with a population prior naming every widget and app, every cell filled" : ""))
    print("history: \(engineCount(large)) events (~\(large / EngineBenchRoutine.eventsPerDay) days) vs \(engineCount(small)); \(engineCount(rankings)) rankings per measurement")
    print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, shared; wall figures can be inflated by load, CPU-time figures less so\n")

    // Cold start first, while this process is small: a child builds the database (events and
    // saved state), then a fresh child opens it and ranks. On Linux a spawned child's ru_maxrss
    // starts at its parent's peak (exec keeps the high-water mark), so the child also reports
    // VmHWM from /proc/self/status, which counts only its own memory since exec.
    var rows: [EngineBenchRow] = []
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smartstack-engine-bench-\(getpid())").path
    try? FileManager.default.removeItem(atPath: directory)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { if !keep { try? FileManager.default.removeItem(atPath: directory) } }
    let database = directory + "/engine.sqlite"
    var priorFile: String?
    var prior: PopulationPrior?
    if withPrior {
        let file = directory + "/prior.jsonl"
        let full = try EngineBenchRoutine.fullPrior()
        try full.fileText.write(toFile: file, atomically: true, encoding: .utf8)
        priorFile = file
        prior = full
    }
    let buildStart = engineMonotonic()
    _ = try engineSpawnSelf(["engine", "--build-db", database, String(large)] + (priorFile.map { [$0] } ?? []))
    let size = (try? FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) ?? 0
    print("built \(database): \(engineCount(large)) events, \(size / 1_048_576) MiB, in \(String(format: "%.1f", engineMonotonic() - buildStart)) s (child process; state saved by close())")
    let child = try engineRunColdStartChild(database: database, directory: directory, prior: priorFile)
    let hwm = Double(child.hwmKiB) / 1024
    rows.append(EngineBenchRow("cold start: open + first ranking", String(format: "%.1f ms", child.firstRanking * 1000), "<= 50 ms",
                               child.firstRanking <= 0.050 ? "ok" : "MISSED",
                               String(format: "open %.1f ms; whole child process %.0f ms wall", child.open * 1000, child.processWall * 1000)))
    rows.append(EngineBenchRow("cold start: child peak RSS (VmHWM)", String(format: "%.1f MB", hwm), "<= 30 MB",
                               hwm <= 30 ? "ok" : "MISSED",
                               String(format: "wait4 ru_maxrss %.1f MB (includes this parent's %.1f MB at spawn)",
                                      Double(child.maxRSSKiB) / 1024, Double(child.parentRSSKiB) / 1024)))

    var routine = EngineBenchRoutine(seed: 42)
    let events = routine.events(count: large)

    // Recording into the in-memory state (UserEngine: what Engine does per event after the log).
    let stateOnly = try UserEngine(user: EngineBenchRoutine.user, policy: PolicySpec(parsing: "contextual"), prior: prior)
    let recordTiming = engineMeasure { for event in events { stateOnly.record(event) } }
    rows.append(EngineBenchRow(
        "record into in-memory state", engineRateText(events.count, recordTiming.wall), ">= 500k ev/s",
        engineRate(events.count, recordTiming.wall) >= 500_000 ? "ok"
            : (engineRate(events.count, recordTiming.cpu) >= 500_000 ? "ok/CPU" : "MISSED"),
        "CPU time: \(engineRateText(events.count, recordTiming.cpu))"))

    // Recording through the host Engine into an in-memory log (SQLite :memory:) + state.
    let logged = try Engine(path: ":memory:", policy: PolicySpec(parsing: "contextual"), prior: prior)
    let loggedTiming = try engineMeasureThrowing {
        var k = 0
        while k < events.count {
            try logged.record(Array(events[k..<min(events.count, k + 1000)]))
            k += 1000
        }
    }
    rows.append(EngineBenchRow(
        "Engine.record, batches of 1000, :memory: log", engineRateText(events.count, loggedTiming.wall), "(info)", "",
        "CPU time: \(engineRateText(events.count, loggedTiming.cpu)); includes the SQLite append"))

    // Ranking latency with 10k and with the full history.
    let smallEngine = try Engine(path: ":memory:", policy: PolicySpec(parsing: "contextual"), prior: prior)
    try smallEngine.record(Array(events.prefix(small)))
    let (smallLatency, largeLatency) = try engineRankingLatency(smallEngine, logged, small: events[small - 1].time,
                                                                large: events[events.count - 1].time, count: rankings, explained: true)
    for (label, latency) in [("10k", smallLatency), (engineCount(large), largeLatency)] {
        rows.append(EngineBenchRow("rank 10 widgets, median (\(label) history)", engineMicros(latency.median), "<= 20 µs",
                                   latency.median <= 20e-6 ? "ok" : "MISSED", "CPU time mean \(engineMicros(latency.cpuMean))"))
        rows.append(EngineBenchRow("rank 10 widgets, p99 (\(label) history)", engineMicros(latency.p99), "<= 100 µs",
                                   latency.p99 <= 100e-6 ? "ok" : "MISSED", "max \(engineMicros(latency.max))"))
    }
    let (_, bare) = try engineRankingLatency(smallEngine, logged, small: events[small - 1].time,
                                             large: events[events.count - 1].time, count: rankings, explained: false)
    rows.append(EngineBenchRow("rank without reasons, median (\(engineCount(large)))", engineMicros(bare.median), "(info)", "",
                               "p99 \(engineMicros(bare.p99)); CPU time mean \(engineMicros(bare.cpuMean))"))
    let growth = largeLatency.median / smallLatency.median
    let cpuGrowth = largeLatency.cpuMean / smallLatency.cpuMean
    rows.append(EngineBenchRow("median growth 10k -> \(engineCount(large))", String(format: "%.2fx", growth), "<= 1.5x",
                               growth <= 1.5 ? "ok" : "MISSED", String(format: "CPU-time mean growth %.2fx", cpuGrowth)))

    print("")
    engineTable(rows)
    print("\nok/CPU: met in CPU time but not in wall time (the machine was busy while measuring)")
    if keep { print("\nkept \(database)") }
}

// MARK: - The routine

/// One person's plausible routine: a 10-widget home stack and a 4-widget work stack, ~290
/// events a day of every kind (launches, screen on, impressions, taps, swipes, places, fixes
/// near three places, context, hints), in time order.
struct EngineBenchRoutine {
    static let user = "bench"
    static let eventsPerDay = 290
    static let home = (0..<10).map { WidgetConfig(id: "w\($0)", app: "com.app\($0)") }
    static let work = (10..<14).map { WidgetConfig(id: "w\($0)", app: "com.app\($0)") }
    static let places = [(40.7128, -74.0060), (40.7580, -73.9855), (40.6782, -73.9442)]

    private var state: UInt64

    /// A prior naming every widget of both stacks and every app of the routine, with a rate and
    /// every cell filled (lifts varying by hour, kind of day and place): the most a prior costs.
    static func fullPrior() throws -> PopulationPrior {
        let kinds = ["gym", "home", "work"]
        func entry(_ kind: PopulationPrior.Entry.Kind, _ id: String, app: String?, _ k: Int) -> PopulationPrior.Entry {
            func lift(_ d: Int, _ h: Int, _ q: Int) -> Double? {
                let step: Int = (k * 7 + h * 3 + d * 5 + q * 11) % 20
                return 0.5 + Double(step) / 10
            }
            return PopulationPrior.Entry(
                kind: kind, id: id, app: app, people: 50, rate: 0.5 + Double(k % 7), days: [lift(0, 0, 0), lift(1, 0, 0)],
                parts: (0..<2).map { d in (0..<4).map { lift(d, $0 * 6, 1) } }, hours: (0..<2).map { d in (0..<24).map { lift(d, $0, 2) } },
                places: (0..<kinds.count).map { q in (0..<2).map { d in (0..<24).map { lift(d, $0, 3 + q) } } })
        }
        let widgets = (home + work).enumerated().map { entry(.widget, $1.id, app: $1.app, $0) }
        let apps = (0..<20).map { entry(.app, "com.app\($0)", app: nil, $0) } + (0..<50).map { entry(.app, "com.other\($0)", app: nil, $0) }
        return try PopulationPrior(placeKinds: kinds, minimumPeople: 5, people: 500, shrinkage: 5, entries: widgets + apps)
    }

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    private mutating func next(_ n: Int) -> Int {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return Int(state % UInt64(n))
    }

    mutating func events(count: Int) -> [Event] {
        var events: [Event] = []
        events.reserveCapacity(count)
        var t: Int64 = 1_262_304_000  // 2010-01-01T00:00:00Z
        func add(_ payload: EventPayload) {
            events.append(Event(time: EventTime(nanosecondsSinceEpoch: t * 1_000_000_000, utcOffsetSeconds: -18_000),
                                user: Self.user, payload: payload))
        }
        add(.stackConfig(stack: "home", widgets: Self.home))
        add(.stackConfig(stack: "work", widgets: Self.work))
        while events.count < count {
            t += Int64(60 + next(540))   // 1-10 minutes apart: ~290 events a day
            let hour = Int((t - 18_000) % 86_400 / 3600)
            let habitual = (hour / 3) % 10  // a different favourite every 3 hours
            switch next(100) {
            case 0..<25: add(.appLaunch(app: "com.app\(next(3) == 0 ? next(20) : habitual)"))
            case 25..<40: add(.screenOn)
            case 40..<55: add(.widgetImpression(stack: "home", widget: "w\(next(10))", propensity: nil, policy: nil))
            case 55..<62: add(.widgetTap(widget: "w\(next(2) == 0 ? habitual : next(14))", stack: "home"))
            case 62..<65: add(.widgetSwipe(stack: "home", from: "w\(next(10))", to: "w\(habitual)"))
            case 65..<70: add(.place(["home", "work", "gym"][hour < 8 || hour > 18 ? 0 : (next(5) == 0 ? 2 : 1)]))
            case 70..<82:
                let p = Self.places[next(3)]
                add(.location(lat: p.0 + Double(next(200) - 100) * 1e-5, lon: p.1 + Double(next(200) - 100) * 1e-5,
                              accuracy: Double(5 + next(300))))
            case 82..<90:
                let pairs = [("charging", ["true", "false"]), ("headphones", ["connected", "disconnected"]),
                             ("motion", ["stationary", "walking", "driving"])]
                let (key, values) = pairs[next(3)]
                add(.context(key: key, value: values[next(values.count)]))
            case 90..<96: add(.relevance(widget: "w\(next(10))", score: Double(next(11)) / 10, duration: Double(600 + next(7200))))
            case 96..<98: add(.appLaunch(app: "com.other\(next(50))"))
            default: add(next(2) == 0 ? .widgetPin(stack: "work", widget: "w\(10 + next(4))") : .widgetUnpin(stack: "work", widget: "w\(10 + next(4))"))
            }
        }
        return events
    }
}

// MARK: - Measuring

private struct EngineBenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

private struct EngineTiming { var wall: Double; var cpu: Double }

private struct EngineLatency { var median: Double; var p99: Double; var max: Double; var cpuMean: Double }

private struct EngineBenchRow {
    var figure: String, value: String, target: String, verdict: String, note: String
    init(_ figure: String, _ value: String, _ target: String, _ verdict: String, _ note: String) {
        self.figure = figure; self.value = value; self.target = target; self.verdict = verdict; self.note = note
    }
}

func engineMonotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func engineThreadCPU() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

private func engineMeasure(_ body: () -> Void) -> EngineTiming {
    let w0 = engineMonotonic(), c0 = engineThreadCPU()
    body()
    return EngineTiming(wall: engineMonotonic() - w0, cpu: engineThreadCPU() - c0)
}

private func engineMeasureThrowing(_ body: () throws -> Void) throws -> EngineTiming {
    let w0 = engineMonotonic(), c0 = engineThreadCPU()
    try body()
    return EngineTiming(wall: engineMonotonic() - w0, cpu: engineThreadCPU() - c0)
}

/// Per-ranking wall latency percentiles (each call timed alone) and CPU-time means, ranking the
/// 10-widget stack of two engines alternately (so machine load hits both alike) at instants
/// spread over the day after each one's last event.
private func engineRankingLatency(_ a: Engine, _ b: Engine, small: EventTime, large: EventTime, count: Int,
                                  explained: Bool) throws -> (EngineLatency, EngineLatency) {
    let user = EngineBenchRoutine.user
    for k in 0..<500 {  // warm up
        _ = try a.ranking(stack: "home", user: user, at: small.adding(seconds: Double(k * 431)), explained: explained)
        _ = try b.ranking(stack: "home", user: user, at: large.adding(seconds: Double(k * 431)), explained: explained)
    }
    var samples = [[Double](repeating: 0, count: count), [Double](repeating: 0, count: count)]
    var cpu = [0.0, 0.0]
    var checksum = 0.0
    for k in 0..<count {
        for (side, engine, after) in [(0, a, small), (1, b, large)] {
            let at = after.adding(seconds: Double(60 + (k * 613) % 86_400))
            let c0 = engineThreadCPU()
            let t0 = engineMonotonic()
            let ranking = try engine.ranking(stack: "home", user: user, at: at, explained: explained)
            samples[side][k] = engineMonotonic() - t0
            cpu[side] += engineThreadCPU() - c0
            checksum += ranking.widgets[0].score
        }
    }
    if checksum.isNaN { print("(a ranking had a NaN top score)") }
    func summary(_ side: Int) -> EngineLatency {
        let sorted = samples[side].sorted()
        return EngineLatency(median: sorted[count / 2], p99: sorted[min(count - 1, count * 99 / 100)],
                             max: sorted[count - 1], cpuMean: cpu[side] / Double(count))
    }
    return (summary(0), summary(1))
}

// MARK: - Cold start in a child process

/// Runs this executable with `arguments` and waits; returns its resource usage.
private func engineSpawnSelf(_ arguments: [String]) throws -> rusage {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, nil, nil, argv, environ)
    guard spawned == 0 else { throw EngineBenchFailure("cannot run \(executable): error \(spawned)") }
    var status: Int32 = 0
    var usage = rusage()
    guard wait4(pid, &status, 0, &usage) == pid else { throw EngineBenchFailure("wait4 failed") }
    guard status == 0 else { throw EngineBenchFailure("child \(arguments.prefix(2).joined(separator: " ")) failed (status \(status))") }
    return usage
}

private struct EngineColdStart {
    var open: Double, firstRanking: Double, hwmKiB: Int, maxRSSKiB: Int, parentRSSKiB: Int, processWall: Double
}

/// Runs `engine --cold-start` in a child and reads its report file and its rusage.
private func engineRunColdStartChild(database: String, directory: String, prior: String?) throws -> EngineColdStart {
    let report = directory + "/cold-start.txt"
    var own = rusage()
    getrusage(RUSAGE_SELF.rawValue, &own)
    let start = engineMonotonic()
    let usage = try engineSpawnSelf(["engine", "--cold-start", database, EngineBenchRoutine.user, report] + (prior.map { [$0] } ?? []))
    let wall = engineMonotonic() - start
    let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
    var fields: [String: Double] = [:]
    for part in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
        let pair = part.split(separator: "=")
        if pair.count == 2, let v = Double(pair[1]) { fields[String(pair[0])] = v }
    }
    guard let open = fields["open_s"], let first = fields["first_ranking_s"], let hwm = fields["vmhwm_kib"] else {
        throw EngineBenchFailure("cold-start child wrote an unexpected report: '\(text)'")
    }
    return EngineColdStart(open: open, firstRanking: first, hwmKiB: Int(hwm), maxRSSKiB: Int(usage.ru_maxrss),
                           parentRSSKiB: Int(own.ru_maxrss), processWall: wall)
}

/// The build child: writes `events` events of the routine through `Engine` and closes it.
private func engineBuildDatabase(_ path: String, events count: Int, prior: String?) throws {
    var routine = EngineBenchRoutine(seed: 42)
    let events = routine.events(count: count)
    let engine = try Engine(path: path, policy: PolicySpec(parsing: "contextual"),
                            prior: try prior.map { try PopulationPrior(contentsOfFile: $0) })
    var k = 0
    while k < events.count {
        try engine.record(Array(events[k..<min(events.count, k + 10_000)]))
        k += 10_000
    }
    try engine.close()
}

/// The cold-start child: opens the database, produces one ranking, writes times and memory.
/// With `prior`, the prior file is read as part of the open (a host reads it at start).
private func engineColdStartChild(database: String, user: String, report: String, prior: String?) throws {
    let t0 = engineMonotonic()
    let engine = try Engine(path: database, policy: PolicySpec(parsing: "contextual"),
                            prior: try prior.map { try PopulationPrior(contentsOfFile: $0) })
    let t1 = engineMonotonic()
    let at = EventTime(nanosecondsSinceEpoch: 4_000_000_000 * 1_000_000_000, utcOffsetSeconds: -18_000)
    let ranking = try engine.ranking(stack: "home", user: user, at: at)
    let t2 = engineMonotonic()
    guard ranking.widgets.count == 10, engine.notices.isEmpty else {
        throw EngineBenchFailure("cold start: \(ranking.widgets.count) widgets, notices \(engine.notices)")
    }
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let hwm = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?
        .split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? -1
    let text = "open_s=\(t1 - t0) first_ranking_s=\(t2 - t0) vmhwm_kib=\(hwm)\n"
    try text.write(toFile: report, atomically: true, encoding: .utf8)
}

// MARK: - Printing

private func engineCount(_ n: Int) -> String {
    n >= 1_000_000 && n % 1_000_000 == 0 ? "\(n / 1_000_000)M" : (n >= 1000 && n % 1000 == 0 ? "\(n / 1000)k" : "\(n)")
}

private func engineRate(_ n: Int, _ seconds: Double) -> Double { Double(n) / seconds }

private func engineRateText(_ n: Int, _ seconds: Double) -> String {
    String(format: "%.0fk ev/s", Double(n) / seconds / 1000)
}

private func engineMicros(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }

private func engineTable(_ rows: [EngineBenchRow]) {
    let widths = [rows.map(\.figure.count).max() ?? 0, rows.map(\.value.count).max() ?? 0, rows.map(\.target.count).max() ?? 0, 6]
    func pad(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(0, w - s.count)) }
    print(pad("FIGURE", widths[0]) + "  " + pad("MEASURED", widths[1]) + "  " + pad("TARGET", widths[2]) + "  " + pad("", widths[3]) + "  NOTE")
    for r in rows {
        print(pad(r.figure, widths[0]) + "  " + pad(r.value, widths[1]) + "  " + pad(r.target, widths[2]) + "  " + pad(r.verdict, widths[3]) + "  " + r.note)
    }
}
