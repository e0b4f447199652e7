import SmartStack

/// Imports AWARE framework screen events (`time` in Unix seconds or `timestamp` in
/// milliseconds, `screen_status`: 0 off, 1 on, 2 locked, 3 unlocked) as `screen_on`.
///
/// Rule: a status 1 (screen on) or 3 (unlocked) is a moment the person looks at the phone
/// and becomes one `screen_on`, except when it comes less than
/// ``ImportOptions/screenMergeSeconds`` (default 30 s) after the previous emitted
/// `screen_on` with no screen-off (0) in between: the usual on → unlock pair of one look is
/// one event, at the first of the two. Statuses 0 and 2 make no event (counted as skipped).
/// Only a stack given as a list (``ImportStackRule/fixed(apps:)``) is emitted: there are no
/// launches to choose one from. The user is ``ImportOptions/user``, else the `device_id` column, else `default`; offsets
/// come from ``ImportOptions/timeRule`` (default UTC: AWARE stores UTC instants only).
///
/// ```swift
/// let result = try AwareScreenImporter().importFiles(["AwareScreen_1month.csv.gz"])
/// ```
public struct AwareScreenImporter: Sendable {
    /// The options in effect.
    public var options: ImportOptions

    /// Creates an importer.
    public init(options: ImportOptions = ImportOptions()) {
        self.options = options
    }

    private struct Change { var user: String; var nanoseconds: Int64; var status: Int }

    /// Reads the files and returns `screen_on` events (plus stacks if the rule asks; with no
    /// app launches there are none).
    ///
    /// - Throws: ``ImportError`` for missing/truncated files, missing columns, bad numbers.
    /// - Complexity: O(n log n).
    public func importFiles(_ paths: [String]) throws(ImportError) -> ImportResult {
        guard !paths.isEmpty else { throw ImportError(file: "", message: "no input files") }
        var collector = EventCollector(format: "aware-screen", idPrefix: "aw")
        let rule = options.timeRule ?? .utc
        collector.report.notes.append("local offsets from \(rule)" + (options.timeRule == nil ? " (default; set --timezone or --utc-offset)" : ""))
        var changes: [Change] = []
        for path in paths {
            var table = try CSVTable(path: path)
            collector.report.files.append(path)
            let statusColumn = try table.column("screen_status")
            let secondsColumn = table.optionalColumn("time")
            let millisColumn = secondsColumn == nil ? table.optionalColumn("timestamp") : nil
            guard let timeColumn = secondsColumn ?? millisColumn else {
                _ = try table.column("time", "timestamp")
                continue
            }
            let deviceColumn = table.optionalColumn("device_id", "user")
            while true {
                do throws(ImportError) {
                    guard try table.nextRow() else { break }
                    collector.report.rowsRead += 1
                    let text = table.string(timeColumn).trimmingSpaces()
                    guard let nanoseconds = ImportTime.unixNanoseconds(text, scale: secondsColumn == nil ? 1_000_000 : 1_000_000_000)
                    else {
                        throw table.error(timeColumn, text.isEmpty ? "empty value, expected a Unix time"
                            : "not a Unix time in \(secondsColumn == nil ? "milliseconds" : "seconds"): '\(text)'")
                    }
                    let status = try table.integer(statusColumn)
                    let user = options.user ?? deviceColumn.map { table.string($0).trimmingSpaces() } ?? Event.defaultUser
                    changes.append(Change(user: user.isEmpty ? Event.defaultUser : user, nanoseconds: nanoseconds, status: status))
                } catch {
                    try collector.invalidRow(error, skipping: options.skipInvalidRows)
                }
            }
        }
        let order = changes.indices.sorted { a, b in
            let x = changes[a], y = changes[b]
            if x.user != y.user { return x.user < y.user }
            return x.nanoseconds != y.nanoseconds ? x.nanoseconds < y.nanoseconds : a < b
        }
        var lastOn: (user: String, nanoseconds: Int64)?
        var offSinceLastOn = true
        for i in order {
            let c = changes[i]
            if lastOn?.user != c.user { lastOn = nil; offSinceLastOn = true }
            switch c.status {
            case 0:
                offSinceLastOn = true
                collector.report.skip("screen off (status 0)")
            case 2:
                collector.report.skip("screen locked (status 2)")
            case 1, 3:
                if let last = lastOn, !offSinceLastOn, Double(c.nanoseconds - last.nanoseconds) < options.screenMergeSeconds * 1e9 {
                    collector.report.skip("screen on/unlock within \(formatSeconds(options.screenMergeSeconds)) s of the previous "
                        + "screen_on without screen off (same look)")
                    continue
                }
                lastOn = (c.user, c.nanoseconds)
                offSinceLastOn = false
                collector.add(Event(time: ImportTime.instant(nanoseconds: c.nanoseconds, rule: rule), user: c.user, payload: .screenOn))
            default:
                collector.report.skip("unknown screen_status \(c.status)")
            }
        }
        // Screen events hold no app launches: only a stack given with --widgets makes sense.
        let stackRule: ImportStackRule = if case .fixed = options.stackRule { options.stackRule } else { .none }
        return collector.finish(stackRule: stackRule, stackName: options.stackName)
    }

    private func formatSeconds(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(s) }
}
