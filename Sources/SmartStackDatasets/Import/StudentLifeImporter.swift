import SmartStack

/// Imports StudentLife phone logs (Wang et al., UbiComp 2014): foreground apps become
/// `app_launch`, GPS fixes become `location`.
///
/// Inputs are recognised by their header, in any order, plain or gzip:
/// - running-apps snapshots (`user, timestamp, ..., task_id, ..., top_package, ...`): rows with
///   the same user and timestamp form one snapshot whose first row is the foreground task;
/// - foreground snapshots (`user, timestamp, top_package, ...`): one row per snapshot
///   (give either this or the running-apps file, they hold the same snapshots);
/// - GPS (`user, timestamp, latitude, longitude, accuracy, ...`).
///
/// A snapshot becomes an `app_launch` only when its foreground app differs from the user's
/// previous snapshot: the phone is sampled about every 20 minutes, so consecutive snapshots
/// with the same app are one use, not new launches. The comparison is made on the raw
/// sequence (excluded apps included), so mail → launcher → mail is two mail launches.
/// The study's survey app, launchers and system UI (``systemApps``, and any package with a
/// `launcher` component) are dropped unless ``ImportOptions/keepSystemApps`` is set.
/// Users `00` become `u00`. Offsets: America/New_York with US daylight saving (computed,
/// ``LocalTimeRule/newYork``) unless ``ImportOptions/timeRule`` says otherwise.
///
/// ```swift
/// let result = try StudentLifeImporter().importFiles(["foreground.csv", "gps.csv"])
/// ```
public struct StudentLifeImporter: Sendable {
    /// Packages excluded by default: the study's survey app (PACO), launchers, system UI.
    public static let systemApps: Set<String> = [
        "com.google.android.apps.paco", "com.android.launcher", "com.android.launcher2", "com.android.launcher3",
        "com.google.android.launcher", "com.sec.android.app.launcher", "com.android.systemui",
        "com.android.keyguard", "android", "com.android.packageinstaller",
    ]

    /// The options in effect.
    public var options: ImportOptions

    /// Creates an importer.
    public init(options: ImportOptions = ImportOptions()) {
        self.options = options
    }

    /// Whether `app` is dropped under the current options.
    public func isExcluded(_ app: String) -> Bool {
        if options.excludedApps.contains(app) { return true }
        guard !options.keepSystemApps else { return false }
        if StudentLifeImporter.systemApps.contains(app) { return true }
        return app.split(separator: ".").contains { $0.lowercased().contains("launcher") }
    }

    /// StudentLife user ids `00` → `u00`; ids already starting with a letter are kept.
    public static func userName(_ raw: String) -> String {
        let t = raw.trimmingSpaces()
        guard let first = t.unicodeScalars.first, first.properties.numericType != nil else { return t }
        return "u" + t
    }

    private enum Kind { case runningApps, foreground, gps }

    private struct Snapshot { var user: String; var time: EventTime; var app: String }

    /// Reads the files and returns their events in order, with stacks and ids.
    ///
    /// - Throws: ``ImportError`` for a missing, truncated or unrecognised file, or a bad value
    ///   (file, line, column) unless ``ImportOptions/skipInvalidRows``.
    /// - Complexity: O(n log n) in the rows read.
    public func importFiles(_ paths: [String]) throws(ImportError) -> ImportResult {
        guard !paths.isEmpty else { throw ImportError(file: "", message: "no input files") }
        var collector = EventCollector(format: "studentlife", idPrefix: "sl")
        let rule = options.timeRule ?? .newYork
        var snapshots: [Snapshot] = []
        var snapshotSource: (Kind, String)?
        collector.report.notes.append("local offsets from \(rule)")
        for path in paths {
            var table = try CSVTable(path: path)
            collector.report.files.append(path)
            let kind: Kind
            if table.hasColumn("latitude") || table.hasColumn("longitude") {
                kind = .gps
            } else if table.hasColumn("top_package") {
                kind = table.hasColumn("task_id") || table.hasColumn("num_running") ? .runningApps : .foreground
            } else {
                throw ImportError(file: path, line: 1, message:
                    "not a StudentLife file: expected running-apps columns (user, timestamp, task_id, top_package, ...), "
                    + "foreground columns (user, timestamp, top_package) or GPS columns (user, timestamp, latitude, "
                    + "longitude, accuracy); found columns: \(table.describeHeader())")
            }
            switch kind {
            case .gps:
                try readGPS(&table, rule: rule, into: &collector)
            case .runningApps, .foreground:
                if let (other, otherPath) = snapshotSource {
                    throw ImportError(file: path, message: "give one snapshot file only: this \(kind == .foreground ? "foreground" : "running-apps") file "
                        + "and '\(otherPath)' (\(other == .foreground ? "foreground" : "running-apps")) hold the same snapshots")
                }
                snapshotSource = (kind, path)
                try readSnapshots(&table, runningApps: kind == .runningApps, rule: rule, into: &snapshots, collector: &collector)
            }
        }
        emitLaunches(snapshots, into: &collector)
        if !options.keepSystemApps {
            collector.report.notes.append("survey app, launchers and system UI excluded (--keep-system-apps keeps them)")
        }
        return collector.finish(stackRule: options.stackRule, stackName: options.stackName)
    }

    private func readGPS(_ table: inout CSVTable, rule: LocalTimeRule, into collector: inout EventCollector) throws(ImportError) {
        let userColumn = try table.column("user")
        let timeColumn = try table.column("timestamp", "time")
        let latColumn = try table.column("latitude")
        let lonColumn = try table.column("longitude")
        let accuracyColumn = table.optionalColumn("accuracy")
        while true {
            do throws(ImportError) {
                guard try table.nextRow() else { break }
                collector.report.rowsRead += 1
                let user = StudentLifeImporter.userName(table.string(userColumn))
                guard !user.isEmpty else { collector.report.skip("GPS row without user"); continue }
                let nanoseconds = try table.unixNanoseconds(timeColumn)
                let lat = try table.double(latColumn), lon = try table.double(lonColumn)
                guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                    collector.report.skip("GPS fix with coordinates out of range")
                    continue
                }
                var accuracy = try accuracyColumn.flatMap { c throws(ImportError) in try table.optionalDouble(c) }
                if let a = accuracy, a < 0 { accuracy = nil }
                collector.add(Event(time: ImportTime.instant(nanoseconds: nanoseconds, rule: rule), user: user,
                                    payload: .location(lat: lat, lon: lon, accuracy: accuracy)))
            } catch {
                try collector.invalidRow(error, skipping: options.skipInvalidRows)
            }
        }
    }

    private func readSnapshots(_ table: inout CSVTable, runningApps: Bool, rule: LocalTimeRule,
                               into snapshots: inout [Snapshot], collector: inout EventCollector) throws(ImportError) {
        let userColumn = try table.column("user")
        let timeColumn = try table.column("timestamp", "time")
        let appColumn = try table.column("top_package")
        var previousKey: (String, String)?
        var seen: Set<String> = []
        while true {
            do throws(ImportError) {
                guard try table.nextRow() else { break }
                collector.report.rowsRead += 1
                let rawUser = table.string(userColumn), rawTime = table.string(timeColumn)
                if runningApps, let (u, t) = previousKey, u == rawUser, t == rawTime {
                    collector.report.skip("background task of a running-apps snapshot (only its first row is the foreground app)")
                    continue
                }
                previousKey = (rawUser, rawTime)
                let user = StudentLifeImporter.userName(rawUser)
                guard !user.isEmpty else { collector.report.skip("snapshot without user"); continue }
                let nanoseconds = try table.unixNanoseconds(timeColumn)
                guard seen.insert(user + "\u{0}" + rawTime).inserted else {
                    collector.report.skip("repeated snapshot (same user and timestamp as an earlier one)")
                    continue
                }
                let app = table.string(appColumn).trimmingSpaces()
                guard !app.isEmpty else { collector.report.skip("snapshot without foreground package"); continue }
                snapshots.append(Snapshot(user: user, time: ImportTime.instant(nanoseconds: nanoseconds, rule: rule), app: app))
            } catch {
                try collector.invalidRow(error, skipping: options.skipInvalidRows)
            }
        }
    }

    private func emitLaunches(_ snapshots: [Snapshot], into collector: inout EventCollector) {
        let order = snapshots.indices.sorted { a, b in
            let x = snapshots[a], y = snapshots[b]
            if x.user != y.user { return x.user < y.user }
            if x.time != y.time { return x.time.nanosecondsSinceEpoch < y.time.nanosecondsSinceEpoch }
            return a < b
        }
        var previous: (user: String, app: String)?
        for i in order {
            let s = snapshots[i]
            defer { previous = (s.user, s.app) }
            if let p = previous, p.user == s.user, p.app == s.app {
                collector.report.skip("same foreground app as the previous snapshot (not a new launch)")
                continue
            }
            if isExcluded(s.app) {
                collector.report.skip("excluded app (survey app, launcher, system UI or --exclude-app)")
                continue
            }
            collector.add(Event(time: s.time, user: s.user, payload: .appLaunch(app: s.app)))
        }
    }
}
