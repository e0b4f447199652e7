import SmartStack

/// Imports the LSApp app-usage log (Aliannejadi et al., "Context-Aware Target Apps Selection
/// and Recommendation for Enhancing Personal Mobile Assistants", ACM TOIS 2021): a TSV (or
/// CSV) with `user_id, session_id, timestamp, app_name, event_type`.
///
/// Rows whose `event_type` is `Opened` (any case) become `app_launch` with `app` = the app
/// name as written (LSApp names apps, e.g. `Google Chrome`); other types (`Closed`, ...)
/// are counted as skipped. A row repeating the previous row's user, time and app is a
/// duplicate. LSApp timestamps (`2018-01-16 06:01:05`) carry no offset: they are read as
/// local time with ``ImportOptions/timeRule`` (default UTC, stated in the report — pass
/// `--utc-offset` or `--timezone` when you know the participants' zone). Timestamps with an
/// offset, or Unix seconds, are accepted too. Users keep their `user_id`.
///
/// ```swift
/// let result = try LSAppImporter().importFiles(["lsapp.tsv"])
/// ```
public struct LSAppImporter: Sendable {
    /// The options in effect.
    public var options: ImportOptions

    /// Creates an importer.
    public init(options: ImportOptions = ImportOptions()) {
        self.options = options
    }

    /// Reads the files and returns their events with stacks and ids.
    ///
    /// - Throws: ``ImportError`` for missing files, missing columns, bad times.
    /// - Complexity: O(n log n).
    public func importFiles(_ paths: [String]) throws(ImportError) -> ImportResult {
        guard !paths.isEmpty else { throw ImportError(file: "", message: "no input files") }
        var collector = EventCollector(format: "lsapp", idPrefix: "ls")
        let rule = options.timeRule ?? .utc
        collector.report.notes.append("timestamps without offset read as local time in \(rule)"
            + (options.timeRule == nil ? " (default; set --utc-offset or --timezone)" : ""))
        for path in paths {
            let bytes = try GzipReader.contents(ofFile: path)
            let firstLine = bytes.prefix { $0 != UInt8(ascii: "\n") }
            let delimiter = firstLine.contains(UInt8(ascii: "\t")) ? UInt8(ascii: "\t") : UInt8(ascii: ",")
            var table = try CSVTable(bytes: bytes, name: path, delimiter: delimiter)
            collector.report.files.append(path)
            let userColumn = try table.column("user_id", "user")
            let timeColumn = try table.column("timestamp", "time")
            let appColumn = try table.column("app_name", "app")
            let typeColumn = try table.column("event_type")
            var previous: (String, String, String)?
            while true {
                do throws(ImportError) {
                    guard try table.nextRow() else { break }
                    collector.report.rowsRead += 1
                    let type = table.string(typeColumn).trimmingSpaces()
                    guard type.lowercased() == "opened" else {
                        collector.report.skip("event_type '\(type)' (only 'Opened' is an app launch)")
                        continue
                    }
                    let user = options.user ?? table.string(userColumn).trimmingSpaces()
                    let app = table.string(appColumn).trimmingSpaces()
                    let rawTime = table.string(timeColumn)
                    guard !user.isEmpty else { collector.report.skip("row without user_id"); continue }
                    guard !app.isEmpty else { collector.report.skip("row without app_name"); continue }
                    if options.excludedApps.contains(app) { collector.report.skip("excluded app (--exclude-app)"); continue }
                    let key = (user, rawTime, app)
                    if let p = previous, p == key { collector.report.skip("duplicate of the previous row"); continue }
                    previous = key
                    let format: ImportTimeFormat = rawTime.contains("-") && rawTime.count > 10 ? .rfc3339 : .unix
                    let time: EventTime
                    do { time = try ImportTime.parse(rawTime, format: format, rule: rule) } catch {
                        throw table.error(timeColumn, error.message)
                    }
                    collector.add(Event(time: time, user: user, payload: .appLaunch(app: app)))
                } catch {
                    try collector.invalidRow(error, skipping: options.skipInvalidRows)
                }
            }
        }
        return collector.finish(stackRule: options.stackRule, stackName: options.stackName)
    }
}
