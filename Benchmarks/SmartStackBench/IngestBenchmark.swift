// smartstack-bench ingest [--events N] [--seed S] [--phases parse,e2e,append] [--repeat R]
//   (build it in release: swift build -c release --product smartstack-bench)
//
// Issue 2's ingest figures, measured in one run on generated events:
//   parse   JSONL parse alone (JSONLReader over a file)            target >= 1M lines/s
//   e2e     JSONL -> EventStore, as `smartstack ingest` does it     target >= 300k events/s
//   append  EventStore.append of parsed events vs raw SQLite        target ratio >= 0.5
// Each phase can run alone (`--phases parse`), so one can be checked while another is unfinished.
import CSQLite
import Foundation
import SmartStack
import SmartStackSQLite

func runIngestBenchmark(_ arguments: [String]) throws {
    let options = try IngestBenchmarkOptions(arguments)
    // As the store's connection does, and before anything initializes SQLite: the raw baseline
    // and the store then run with the same process-wide configuration, whichever opens first.
    _ = smartstack_sqlite3_disable_memory_statistics()
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("smartstack-bench-ingest-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    print("smartstack-bench ingest: \(options.events) events, seed \(options.seed); best of \(options.parseRepeats) run(s) "
        + "for parse, \(options.storeRepeats) for the SQLite phases")
    var results: [BenchmarkFigure] = []

    // Generate and write the JSONL file (not a target, reported for context).
    var generator = EventGenerator(seed: options.seed)
    var events: [Event] = []
    events.reserveCapacity(options.events)
    for _ in 0..<options.events { events.append(generator.next()) }
    let jsonlPath = directory.appendingPathComponent("events.jsonl").path
    let writing = try measure {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(options.events * 160)
        for event in events { JSONLWriter.append(event, to: &buffer) }
        try Data(buffer).write(to: URL(fileURLWithPath: jsonlPath))
    }
    let fileSize = (try FileManager.default.attributesOfItem(atPath: jsonlPath)[.size] as? Int) ?? 0
    print("wrote \(formatted(Double(fileSize) / 1_048_576, decimals: 1)) MiB of JSONL "
        + "(\(formatted(Double(fileSize) / Double(max(1, options.events)), decimals: 0)) bytes/line) "
        + "in \(formatted(writing.wall, decimals: 2)) s")

    if options.phases.contains("parse") {
        var best = Timing.none
        for _ in 0..<options.parseRepeats {
            var count = 0
            let timing = try measure {
                var reader = try JSONLReader(path: jsonlPath)
                while let _ = try reader.next() { count += 1 }
            }
            guard count == events.count else {
                throw BenchmarkFailure("parse read \(count) events, expected \(events.count)")
            }
            best = best.better(timing)
        }
        let figure = BenchmarkFigure(name: "JSONL parse", count: events.count, timing: best, unit: "lines/s", target: 1_000_000)
        report(figure)
        results.append(figure)
    }

    if options.phases.contains("e2e") {
        var best = Timing.none
        for run in 0..<options.storeRepeats {
            let path = directory.appendingPathComponent("e2e-\(run).sqlite").path
            var reading = Timing.none
            let timing = try measure {
                // What `smartstack ingest` does: read every line, then store the file in one append.
                var parsed: [Event] = []
                reading = try measure {
                    var reader = try JSONLReader(path: jsonlPath)
                    while let event = try reader.next() { parsed.append(event) }
                }
                let store = try EventStore(path: path)
                let result = try store.append(parsed)
                guard result.inserted == events.count else {
                    throw BenchmarkFailure("end to end stored \(result.inserted) events, expected \(events.count)")
                }
            }
            FileHandle.standardError.write(Data(("  end to end run \(run + 1): \(formatted(timing.wall, decimals: 2)) s, of which "
                + "reading \(formatted(reading.wall, decimals: 2)) s and storing \(formatted(timing.wall - reading.wall, decimals: 2)) s\n").utf8))
            best = best.better(timing)
            removeDatabase(path)
        }
        let figure = BenchmarkFigure(name: "JSONL -> store (end to end)", count: events.count, timing: best,
                                     unit: "events/s", target: 300_000)
        report(figure)
        results.append(figure)
    }

    if options.phases.contains("append") {
        var bestStore = Timing.none
        var bestRaw = Timing.none
        for run in 0..<options.storeRepeats {
            let rawPath = directory.appendingPathComponent("raw-\(run).sqlite").path
            let baseline = try RawSQLiteBaseline(path: rawPath)
            bestRaw = bestRaw.better(try measure {
                let inserted = try baseline.insert(events)
                guard inserted == events.count else {
                    throw BenchmarkFailure("raw SQLite inserted \(inserted) rows, expected \(events.count)")
                }
            })
            baseline.close()
            removeDatabase(rawPath)

            let storePath = directory.appendingPathComponent("append-\(run).sqlite").path
            let timing = try { () throws -> Timing in
                let store = try EventStore(path: storePath)   // opening (schema creation) is not timed
                return try measure {
                    let result = try store.append(events)
                    guard result.inserted == events.count else {
                        throw BenchmarkFailure("store append stored \(result.inserted) events, expected \(events.count)")
                    }
                }
            }()
            bestStore = bestStore.better(timing)
            removeDatabase(storePath)
        }
        let store = BenchmarkFigure(name: "store append (parsed events)", count: events.count, timing: bestStore,
                                    unit: "events/s", target: nil)
        let raw = BenchmarkFigure(name: "raw SQLite baseline", count: events.count, timing: bestRaw, unit: "rows/s", target: nil)
        report(raw)
        report(store)
        results.append(store)
        results.append(raw)
        results.append(BenchmarkFigure(ratioOf: store, to: raw, name: "store append / raw SQLite", target: 0.5))
    }

    printTable(results)
}

/// Wall-clock and CPU seconds of one measured run.
private struct Timing {
    var wall: Double
    var cpu: Double

    static let none = Timing(wall: .infinity, cpu: .infinity)

    /// The faster of two runs (by wall clock).
    func better(_ other: Timing) -> Timing { other.wall < wall ? other : self }
}

/// Parsed `smartstack-bench ingest` options.
private struct IngestBenchmarkOptions {
    var events = 1_000_000
    var seed: UInt64 = 42
    /// `--repeat`: runs per phase; by default 3 for parse (short) and 1 for the SQLite phases.
    var repeats: Int?
    var parseRepeats: Int { repeats ?? 3 }
    var storeRepeats: Int { repeats ?? 1 }
    var phases: Set<String> = ["parse", "e2e", "append"]

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ name: String) throws -> String {
            guard let v = rest.popFirst() else { throw BenchmarkFailure("\(name) needs a value") }
            return v
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--events":
                guard let n = Int(try value(argument)), n > 0 else { throw BenchmarkFailure("--events needs a positive integer") }
                events = n
            case "--seed":
                guard let s = UInt64(try value(argument)) else { throw BenchmarkFailure("--seed needs an unsigned integer") }
                seed = s
            case "--repeat":
                guard let r = Int(try value(argument)), r > 0 else { throw BenchmarkFailure("--repeat needs a positive integer") }
                repeats = r
            case "--phases":
                let list = Set(try value(argument).split(separator: ",").map(String.init))
                let known: Set<String> = ["parse", "e2e", "append"]
                guard !list.isEmpty, list.isSubset(of: known) else {
                    throw BenchmarkFailure("--phases takes a comma-separated list of: parse, e2e, append")
                }
                phases = list
            case "-h", "--help":
                print("""
                    USAGE: smartstack-bench ingest [--events N] [--seed S] [--repeat R] [--phases parse,e2e,append]

                    Generates N varied events (default 1000000) and measures JSONL parse, JSONL -> store
                    end to end, and store append against a raw SQLite baseline. Build in release first:
                      swift build -c release --product smartstack-bench
                    """)
                exit(0)
            default:
                throw BenchmarkFailure("unknown option '\(argument)' (see 'smartstack-bench ingest --help')")
            }
        }
    }
}

/// A benchmark that could not run or produced a wrong result.
private struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One line of the results table: a rate by wall clock and by CPU time (the CPU figure is what
/// one idle core would do when the machine is shared), or a ratio.
private struct BenchmarkFigure {
    var name: String
    var value: Double
    var cpuValue: Double?
    var unit: String
    var target: Double?
    var seconds: Double?

    init(name: String, count: Int, timing: Timing, unit: String, target: Double?) {
        self.name = name
        value = Double(count) / timing.wall
        cpuValue = timing.cpu > 0 ? Double(count) / timing.cpu : nil
        self.unit = unit
        self.target = target
        seconds = timing.wall
    }

    init(ratioOf numerator: BenchmarkFigure, to denominator: BenchmarkFigure, name: String, target: Double) {
        self.name = name
        value = numerator.value / denominator.value
        if let a = numerator.cpuValue, let b = denominator.cpuValue { cpuValue = a / b }
        unit = "ratio"
        self.target = target
    }
}

private func measure(_ body: () throws -> Void) throws -> Timing {
    let clock = ContinuousClock()
    var failure: (any Error)?
    let cpuBefore = processCPUSeconds()
    let elapsed = clock.measure {
        do { try body() } catch { failure = error }
    }
    let cpu = processCPUSeconds() - cpuBefore
    if let failure { throw failure }
    return Timing(wall: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, cpu: cpu)
}

/// CPU seconds (user + system) used by this process so far.
private func processCPUSeconds() -> Double {
    var now = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 else { return 0 }
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Prints a figure as soon as it is measured (stderr), so a phase that fails later loses nothing.
private func report(_ figure: BenchmarkFigure) {
    fflush(nil)   // all C output streams: keep stdout and stderr in order
    let cpu = figure.cpuValue.map { " (\(formatted($0, decimals: 0)) by CPU time)" } ?? ""
    FileHandle.standardError.write(Data("  \(figure.name): \(formatted(figure.value, decimals: 0)) \(figure.unit)\(cpu)\n".utf8))
}

private func removeDatabase(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// `1234567.8` → `1,234,568` (grouped, fixed decimals).
private func formatted(_ value: Double, decimals: Int) -> String {
    let text = String(format: "%.\(decimals)f", value)
    let parts = text.split(separator: ".", maxSplits: 1)
    var integer = String(parts[0])
    let negative = integer.hasPrefix("-")
    if negative { integer.removeFirst() }
    var grouped = ""
    for (index, character) in integer.reversed().enumerated() {
        if index > 0 && index % 3 == 0 { grouped.append(",") }
        grouped.append(character)
    }
    let result = (negative ? "-" : "") + String(grouped.reversed())
    return parts.count > 1 ? result + "." + parts[1] : result
}

private func printTable(_ figures: [BenchmarkFigure]) {
    func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return right ? fill + s : s + fill
    }
    func number(_ value: Double, _ unit: String) -> String {
        unit == "ratio" ? formatted(value, decimals: 2) : formatted(value, decimals: 0)
    }
    print("")
    print(pad("measure", 29) + pad("wall clock", 12, right: true) + pad("CPU time", 12, right: true) + "  "
        + pad("unit", 9) + pad("time", 9, right: true) + "  " + pad("target", 15) + "result")
    print(String(repeating: "-", count: 98))
    var busy = false
    for figure in figures {
        let time = figure.seconds.map { formatted($0, decimals: 2) + " s" } ?? ""
        var target = ""
        var verdict = ""
        if let goal = figure.target {
            target = ">= " + number(goal, figure.unit)
            verdict = figure.value >= goal ? "met" : "NOT MET"
            if figure.value < goal, let cpu = figure.cpuValue, cpu >= goal { verdict += " (met by CPU time)" }
        }
        if let cpu = figure.cpuValue, figure.unit != "ratio", cpu > figure.value * 1.25 { busy = true }
        print(pad(figure.name, 29) + pad(number(figure.value, figure.unit), 12, right: true)
            + pad(figure.cpuValue.map { number($0, figure.unit) } ?? "", 12, right: true) + "  "
            + pad(figure.unit, 9) + pad(time, 9, right: true) + "  " + pad(target, 15) + verdict)
    }
    print("")
    print("Rates are events over the best run's wall-clock time; the CPU-time column divides by the CPU")
    print("seconds the process used instead (what one idle core would give). Release build:")
    print("  swift build -c release --product smartstack-bench && .build/release/smartstack-bench ingest")
    if busy {
        print("Note: wall-clock rates are well below CPU-time rates: the machine was busy during this run.")
    }
}

/// The same rows as `EventStore.append`, inserted with raw SQLite calls: one prepared
/// statement, one transaction. It uses the store's own schema (`StoreSchema.createEvents`), insert
/// (`StoreSchema.insertEvent`) and row values (`StoreSchema.insertValues`), and the store's
/// connection settings (no SQLite mutex, WAL, synchronous=NORMAL, 16 MiB page cache), so the
/// only difference left is the store's own code: this is the ceiling its append is compared with.
private final class RawSQLiteBaseline {
    private var db: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            throw BenchmarkFailure("raw SQLite: cannot open \(path)")
        }
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL; PRAGMA secure_delete=ON; PRAGMA foreign_keys=ON")
        try execute("PRAGMA cache_size = -16384")   // StoreSchema.cacheKiB
        try execute(StoreSchema.createEvents)
    }

    func close() {
        sqlite3_close_v2(db)
        db = nil
    }

    private func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw BenchmarkFailure("raw SQLite: \(text) in \(sql)")
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK else {
            throw BenchmarkFailure("raw SQLite: cannot prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }

    /// Inserts `events` in one transaction through one prepared statement (plus one row per
    /// new user in `users`, as the store does).
    /// - Returns: how many rows were inserted (duplicates of a (user, id) are skipped).
    @discardableResult
    func insert(_ events: [Event]) throws -> Int {
        try execute("BEGIN IMMEDIATE")
        let insert = try prepare(StoreSchema.insertEvent)
        defer { sqlite3_finalize(insert) }
        let insertUser = try prepare("INSERT INTO users(name) VALUES (?1)")
        defer { sqlite3_finalize(insertUser) }
        var userKeys: [String: Int64] = [:]
        var sequence: Int64 = 1
        for event in events {
            let userKey: Int64
            if let known = userKeys[event.user] {
                userKey = known
            } else {
                bind(.text(event.user), to: insertUser, at: 1)
                guard sqlite3_step(insertUser) == SQLITE_DONE else {
                    throw BenchmarkFailure("raw SQLite: user insert failed: \(String(cString: sqlite3_errmsg(db)))")
                }
                sqlite3_reset(insertUser)
                userKey = sqlite3_last_insert_rowid(db)
                userKeys[event.user] = userKey
            }
            for (index, value) in StoreSchema.insertValues(for: event, sequence: sequence, userKey: userKey).enumerated() {
                bind(value, to: insert, at: Int32(index + 1))
            }
            guard sqlite3_step(insert) == SQLITE_DONE else {
                throw BenchmarkFailure("raw SQLite: insert failed: \(String(cString: sqlite3_errmsg(db)))")
            }
            sqlite3_reset(insert)
            if sqlite3_changes(db) > 0 { sequence += 1 }
        }
        try execute("COMMIT")
        return Int(sequence - 1)
    }

    private func bind(_ value: SQLiteValue, to statement: OpaquePointer?, at index: Int32) {
        switch value {
        case .null:
            sqlite3_bind_null(statement, index)
        case .integer(let v):
            sqlite3_bind_int64(statement, index, v)
        case .real(let v):
            sqlite3_bind_double(statement, index, v)
        case .text(var text):
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    _ = smartstack_sqlite3_bind_text_copy(statement, index, chars.baseAddress, Int32(chars.count))
                }
            }
        case .blob(let bytes):
            bytes.withUnsafeBytes { raw in
                _ = smartstack_sqlite3_bind_blob_copy(statement, index, raw.baseAddress, Int32(raw.count))
            }
        }
    }
}
