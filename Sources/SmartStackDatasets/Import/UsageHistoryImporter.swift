import SmartStack

/// Imports a phone's app-use history (format `usage-history`): the app launches a host reads
/// from the system before the stack existed (Android `UsageStatsManager.queryEvents`, an iOS
/// host's own log), to backfill with ``Engine/backfill(_:user:)`` or write as JSONL.
///
/// Input: CSV with a header, or JSONL (one object per line; detected by a first `{`), plain or
/// gzip, with these columns / keys (names case-insensitive):
/// - `timestamp` (Unix milliseconds, as `UsageEvents.Event.getTimeStamp()` gives it) or `time`
///   (RFC 3339, `2026-01-05T08:02:11-05:00`; without an offset it is local time);
/// - `utc_offset` (optional, `±HH:MM`): the phone's offset then; otherwise the offset of `time`,
///   or ``ImportOptions/timeRule`` (`--timezone`, `--utc-offset`). A time with no offset from any
///   of them is an error: a history read in the wrong zone teaches the wrong hours;
/// - `package` (or `app`): the app;
/// - `event_type` (optional): `1`, `ACTIVITY_RESUMED` or `MOVE_TO_FOREGROUND` is an app coming to
///   the foreground, a launch; `16`/`SCREEN_NON_INTERACTIVE`, `17`/`KEYGUARD_SHOWN` and
///   `26`/`DEVICE_SHUTDOWN` end a use (the next resume of the same app is a new launch); every
///   other type is skipped and counted. Without the column every row is a launch;
/// - `user` (optional): else ``ImportOptions/user``, else `default`.
///
/// Each launch becomes an `app_launch` of the app ``ImportOptions/appMap`` gives the package
/// (the package itself when unmapped, or skipped with ``ImportOptions/onlyMapped``), with the id
/// `usage-<Unix ms>-<package>`: importing the same or an overlapping export again stores nothing
/// twice. Per user, rows are put in time order (counted when they were not); a resume of the app
/// resumed last, with no end of use between (another activity of the same app), and a row
/// repeating another (same user, millisecond and package) are skipped and counted.
///
/// ```swift
/// var options = ImportOptions()
/// options.timeRule = try LocalTimeRule(timeZone: "America/New_York")
/// options.appMap = ["com.google.android.calendar": "calendar"]
/// let result = try UsageHistoryImporter(options: options).importFiles(["usage.csv"])
/// ```
public struct UsageHistoryImporter: Sendable {
    /// The options in effect.
    public var options: ImportOptions

    /// Creates an importer.
    public init(options: ImportOptions = ImportOptions()) {
        self.options = options
    }

    /// What a row of the history is.
    enum Kind: Equatable {
        /// An app came to the foreground.
        case resumed
        /// The use ended (screen off, keyguard, shutdown).
        case ended
        /// Anything else (skipped).
        case other(String)
    }

    /// One row read: where, whose, when, what.
    struct Row {
        var file: String
        var line: Int
        var user: String
        var time: EventTime
        var package: String
        var kind: Kind
    }

    /// The event types of `UsageEvents.Event` the importer names.
    static let eventTypes: [String: Int] = [
        "activity_resumed": 1, "move_to_foreground": 1, "activity_paused": 2, "move_to_background": 2,
        "configuration_change": 5, "user_interaction": 7, "shortcut_invocation": 8, "standby_bucket_changed": 11,
        "notification_interruption": 12, "screen_interactive": 15, "screen_non_interactive": 16,
        "keyguard_shown": 17, "keyguard_hidden": 18, "foreground_service_start": 19, "foreground_service_stop": 20,
        "activity_stopped": 23, "device_shutdown": 26, "device_startup": 27,
    ]

    /// Reads the files and returns the launches per user (users in ascending order, each in time
    /// order) with their ids, where each was read (``ImportResult/origins``), and the report.
    ///
    /// - Throws: ``ImportError`` naming the file, line and column of the first bad row (unless
    ///   ``ImportOptions/skipInvalidRows``), a missing file or column.
    /// - Complexity: O(n log n) in the rows read.
    public func importFiles(_ paths: [String]) throws(ImportError) -> ImportResult {
        guard !paths.isEmpty else { throw ImportError(file: "", message: "no input files") }
        var report = ImportReport(format: "usage-history")
        var rows: [Row] = []
        var firstInvalid: ImportError?
        for path in paths {
            let bytes = try GzipReader.contents(ofFile: path)
            report.files.append(path)
            let isJSONL = bytes.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D } == UInt8(ascii: "{")
            let fields = isJSONL ? try Self.jsonlFields(bytes, name: path) : try Self.csvFields(bytes, name: path)
            for record in fields {
                report.rowsRead += 1
                do throws(ImportError) {
                    if let row = try self.row(record, file: path) { rows.append(row) }
                } catch {
                    guard options.skipInvalidRows else { throw error }
                    report.skip("invalid value" + (error.column.map { " in column '\($0)'" } ?? " (malformed row)"))
                    if firstInvalid == nil { firstInvalid = error; report.notes.append("first invalid row skipped: \(error)") }
                }
            }
        }
        return assemble(rows, report: report)
    }

    /// A row's fields by lower-cased column name, with its line.
    typealias Record = (line: Int, fields: [String: String])

    static func csvFields(_ bytes: [UInt8], name: String) throws(ImportError) -> [Record] {
        var table = try CSVTable(bytes: bytes, name: name)
        let columns = table.header.map(CSVTable.normalize)
        guard columns.contains("package") || columns.contains("app") else {
            throw ImportError(file: name, line: 1, message: "missing column 'package' or 'app'; found columns: \(table.describeHeader())")
        }
        guard columns.contains("timestamp") || columns.contains("time") else {
            throw ImportError(file: name, line: 1, message: "missing column 'timestamp' (Unix ms) or 'time' (RFC 3339); found columns: \(table.describeHeader())")
        }
        var out: [Record] = []
        while try table.nextRow() {
            var fields: [String: String] = [:]
            for (i, c) in columns.enumerated() where !table.isEmpty(i) { fields[c] = table.string(i).trimmingSpaces() }
            out.append((table.line, fields))
        }
        return out
    }

    static func jsonlFields(_ bytes: [UInt8], name: String) throws(ImportError) -> [Record] {
        var out: [Record] = []
        var line = 0
        for raw in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            line += 1
            let text = Array(raw.last == 0x0D ? raw.dropLast() : raw[...])
            guard text.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            switch flatObject(text) {
            case .success(let fields): out.append((line, fields))
            case .failure(let failure): throw ImportError(file: name, line: line, column: failure.key, message: failure.message)
            }
        }
        return out
    }

    /// Why a JSONL line is not a flat object of strings and numbers.
    struct LineFailure: Error {
        var key: String?
        var message: String
    }

    /// The keys (lower-cased) of a flat JSON object and their values as text: strings decoded
    /// and trimmed, numbers as written; `null` values left out.
    static func flatObject(_ b: [UInt8]) -> Result<[String: String], LineFailure> {
        var i = 0
        func skip() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 } }
        func expect(_ c: Unicode.Scalar) -> Bool {
            skip()
            guard i < b.count, b[i] == UInt8(ascii: c) else { return false }
            i += 1
            return true
        }
        guard expect("{") else { return .failure(LineFailure(message: "not a JSON object")) }
        var fields: [String: String] = [:]
        if expect("}") { return .success(fields) }
        repeat {
            guard expect("\"") else { return .failure(LineFailure(message: "expected a key in quotes")) }
            guard case .success(let key) = JSONScalars.string(b, at: &i) else { return .failure(LineFailure(message: "a malformed key")) }
            guard expect(":") else { return .failure(LineFailure(key: key, message: "expected ':' after the key")) }
            skip()
            guard i < b.count else { return .failure(LineFailure(key: key, message: "the line ends before the value")) }
            if b[i] == UInt8(ascii: "\"") {
                i += 1
                switch JSONScalars.string(b, at: &i) {
                case .success(let v): fields[key.lowercased()] = v.trimmingSpaces()
                case .failure(let f): return .failure(LineFailure(key: key, message: f.message))
                }
            } else if b[i...].starts(with: Array("null".utf8)) {
                i += 4
            } else {
                let start = i
                guard JSONScalars.number(b, at: &i) != nil else {
                    return .failure(LineFailure(key: key, message: "expected a string, a number or null"))
                }
                fields[key.lowercased()] = String(decoding: b[start..<i], as: UTF8.self)
            }
        } while expect(",")
        guard expect("}") else { return .failure(LineFailure(message: "expected ',' or '}'")) }
        skip()
        guard i == b.count else { return .failure(LineFailure(message: "unexpected text after the object")) }
        return .success(fields)
    }

    /// The row of `record`, `nil` when it is not a resume nor an end of use (counted by `assemble`).
    private func row(_ record: Record, file: String) throws(ImportError) -> Row? {
        let f = record.fields
        func error(_ column: String?, _ message: String) -> ImportError {
            ImportError(file: file, line: record.line, column: column, message: message)
        }
        var kind = Kind.resumed
        if let type = f["event_type"] {
            let code = Int(type) ?? Self.eventTypes[type.lowercased()]
            guard let code else {
                throw error("event_type", "unknown event type '\(type)' (expected a UsageEvents.Event number or name, e.g. 1 or ACTIVITY_RESUMED)")
            }
            switch code {
            case 1: kind = .resumed
            case 16, 17, 26: kind = .ended
            default: kind = .other(type)
            }
        }
        let user = options.user ?? f["user"] ?? Event.defaultUser
        guard !user.isEmpty else { throw error("user", "empty user") }
        let package = f["package"] ?? f["app"] ?? ""
        if package.isEmpty, kind == .resumed { throw error("package", "empty package (or app)") }
        let time = try self.time(f, fail: error)
        return Row(file: file, line: record.line, user: user, time: time, package: package, kind: kind)
    }

    /// The row's instant with the phone's UTC offset then.
    private func time(_ f: [String: String], fail: (String?, String) -> ImportError) throws(ImportError) -> EventTime {
        if f["time"] != nil, f["timestamp"] != nil { throw fail("time", "give either 'time' or 'timestamp', not both") }
        var offset: Int32?
        if let text = f["utc_offset"] {
            guard case .fixed(let seconds)? = try? LocalTimeRule(utcOffset: text) else {
                throw fail("utc_offset", "invalid UTC offset '\(text)' (expected ±HH:MM, e.g. -05:00)")
            }
            offset = seconds
        }
        if let text = f["timestamp"] {
            guard let ns = ImportTime.unixNanoseconds(text, scale: 1_000_000) else {
                throw fail("timestamp", "not a Unix time in milliseconds: '\(text)'")
            }
            if let offset { return EventTime(nanosecondsSinceEpoch: ns, utcOffsetSeconds: offset) }
            guard let rule = options.timeRule else { throw fail("timestamp", Self.noOffset) }
            return ImportTime.instant(nanoseconds: ns, rule: rule)
        }
        guard let text = f["time"] else { throw fail("timestamp", "no time: give 'timestamp' (Unix ms) or 'time' (RFC 3339)") }
        if let own = try? EventTime(rfc3339: text) {
            if let offset, offset != own.utcOffsetSeconds {
                throw fail("utc_offset", "the offset of 'time' (\(text)) and utc_offset disagree")
            }
            return own
        }
        // A local time: the row's offset, else the rule's at that wall-clock time.
        let rule: LocalTimeRule
        if let offset { rule = .fixed(seconds: offset) } else if let given = options.timeRule { rule = given } else {
            throw fail("time", Self.noOffset)
        }
        do { return try ImportTime.parse(text, format: .rfc3339, rule: rule) } catch {
            throw fail("time", error.message)
        }
    }

    static let noOffset = "the time has no UTC offset: give the row a utc_offset, or the phone's zone with --timezone (or --utc-offset); a history read in the wrong zone teaches the wrong hours"

    /// The launches of `rows`, per user in time order, with repeats and duplicates skipped.
    private func assemble(_ rows: [Row], report input: ImportReport) -> ImportResult {
        var report = input
        var byUser: [String: [Int]] = [:]
        for (i, r) in rows.enumerated() { byUser[r.user, default: []].append(i) }
        var events: [Event] = []
        var origins: [String: String] = [:]
        let mapped = options.appMap
        for user in byUser.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            let indices = byUser[user]!
            let ordered = indices.sorted {
                let a = rows[$0].time.nanosecondsSinceEpoch, b = rows[$1].time.nanosecondsSinceEpoch
                return a != b ? a < b : $0 < $1
            }
            let late = zip(indices, indices.dropFirst()).filter { rows[$1].time.nanosecondsSinceEpoch < rows[$0].time.nanosecondsSinceEpoch }.count
            if late > 0 { report.notes.append("\(late) row(s) of user '\(user)' came before an earlier one: put in time order") }
            var lastPackage: String?
            var seen: Set<String> = []
            for i in ordered {
                let r = rows[i]
                switch r.kind {
                case .other(let type):
                    report.skip("event type \(type) (not an app coming to the foreground)")
                    continue
                case .ended:
                    lastPackage = nil
                    report.skip("end of use (screen off, keyguard, shutdown: separates launches)")
                    continue
                case .resumed:
                    break
                }
                let millis = r.time.nanosecondsSinceEpoch >= 0 ? r.time.nanosecondsSinceEpoch / 1_000_000
                    : -((-r.time.nanosecondsSinceEpoch + 999_999) / 1_000_000)
                let id = "usage-\(millis)-\(r.package)"
                guard seen.insert(id).inserted else { report.skip("duplicate row (same user, millisecond and package)"); continue }
                guard r.package != lastPackage else { report.skip("repeated resume of the app resumed last (no other app or end of use between)"); continue }
                lastPackage = r.package
                if options.excludedApps.contains(r.package) || mapped[r.package].map(options.excludedApps.contains) == true {
                    report.skip("excluded app (--exclude-app)")
                    continue
                }
                let app: String
                if let m = mapped[r.package] { app = m } else if options.onlyMapped {
                    report.skip("package not in the map (--only-mapped)")
                    continue
                } else {
                    app = r.package
                }
                events.append(Event(time: r.time, user: user, id: id, payload: .appLaunch(app: app)))
                origins[user + "\u{0}" + id] = "\(r.file):\(r.line)"
                report.eventsByType[.appLaunch, default: 0] += 1
            }
        }
        if mapped.isEmpty {
            report.notes.append("no package map: each launch names its package (a widget counts the launches of the app its configuration names)")
        } else {
            let used = Set(events.map { if case .appLaunch(let a) = $0.payload { return a } else { return "" } })
            report.notes.append("\(mapped.count) package(s) mapped to \(Set(mapped.values).count) app(s), \(Set(mapped.values).intersection(used).count) of them launched")
        }
        var result = ImportResult(events: events, report: report)
        result.origins = origins
        return result
    }

    /// Reads a package map: CSV with columns `package` and `app` (others ignored), one package
    /// per row.
    ///
    /// - Throws: ``ImportError`` naming the file and line of a missing column, an empty value
    ///   or a package mapped twice.
    public static func map(path: String) throws(ImportError) -> [String: String] {
        var table = try CSVTable(path: path)
        let package = try table.column("package"), app = try table.column("app", "widget_app")
        var map: [String: String] = [:]
        while try table.nextRow() {
            let p = table.string(package).trimmingSpaces(), a = table.string(app).trimmingSpaces()
            guard !p.isEmpty else { throw table.error(package, "empty package") }
            guard !a.isEmpty else { throw table.error(app, "empty app") }
            guard map[p] == nil else { throw table.error(package, "package '\(p)' is mapped twice") }
            map[p] = a
        }
        return map
    }
}
