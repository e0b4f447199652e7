import SmartStack

/// Imports a person's own CSV log with a column mapping (format `csv`): each row with an app
/// becomes an `app_launch`, each row with coordinates a `location` (a row with both gives
/// both, launch first).
///
/// Columns are named by ``CSVColumnMapping`` (header names, case-insensitive): time
/// (required), user (else ``ImportOptions/user`` or `default`), app, latitude + longitude,
/// accuracy; at least app or latitude + longitude. Times are written as in
/// ``CSVColumnMapping/timeFormat``; instants without their own offset get
/// ``ImportOptions/timeRule`` (default UTC). Quoted fields, doubled quotes, CRLF are handled.
///
/// ```swift
/// var options = ImportOptions()
/// options.columns.time = "ts"; options.columns.app = "package"
/// let result = try CSVLogImporter(options: options).importFiles(["mylog.csv"])
/// ```
public struct CSVLogImporter: Sendable {
    /// The options in effect.
    public var options: ImportOptions

    /// Creates an importer.
    public init(options: ImportOptions = ImportOptions()) {
        self.options = options
    }

    /// Reads the files and returns their events with stacks and ids.
    ///
    /// - Throws: ``ImportError`` for an incomplete mapping, missing files or columns, bad values.
    /// - Complexity: O(n log n).
    public func importFiles(_ paths: [String]) throws(ImportError) -> ImportResult {
        guard !paths.isEmpty else { throw ImportError(file: "", message: "no input files") }
        let mapping = options.columns
        guard let timeName = mapping.time else {
            throw ImportError(file: "", message: "the csv format needs the time column (--time-column)")
        }
        guard mapping.app != nil || (mapping.latitude != nil && mapping.longitude != nil) else {
            throw ImportError(file: "", message: "the csv format needs --app-column, or --lat-column and --lon-column")
        }
        guard (mapping.latitude == nil) == (mapping.longitude == nil) else {
            throw ImportError(file: "", message: "--lat-column and --lon-column go together")
        }
        var collector = EventCollector(format: "csv", idPrefix: "csv")
        let rule = options.timeRule ?? .utc
        collector.report.notes.append("times without offset use \(rule)" + (options.timeRule == nil ? " (default)" : ""))
        for path in paths {
            var table = try CSVTable(path: path, delimiter: mapping.delimiter)
            collector.report.files.append(path)
            let timeColumn = try table.column(timeName)
            let userColumn = try mapping.user.map { name throws(ImportError) in try table.column(name) }
            let appColumn = try mapping.app.map { name throws(ImportError) in try table.column(name) }
            let latColumn = try mapping.latitude.map { name throws(ImportError) in try table.column(name) }
            let lonColumn = try mapping.longitude.map { name throws(ImportError) in try table.column(name) }
            let accuracyColumn = try mapping.accuracy.map { name throws(ImportError) in try table.column(name) }
            while true {
                do throws(ImportError) {
                    guard try table.nextRow() else { break }
                    collector.report.rowsRead += 1
                    let time: EventTime
                    do { time = try ImportTime.parse(table.string(timeColumn), format: mapping.timeFormat, rule: rule) } catch {
                        throw table.error(timeColumn, error.message)
                    }
                    var user = options.user ?? userColumn.map { table.string($0).trimmingSpaces() } ?? Event.defaultUser
                    if user.isEmpty {
                        collector.report.skip("row without user")
                        continue
                    }
                    if userColumn == nil, options.user == nil { user = Event.defaultUser }
                    var produced = false
                    if let appColumn {
                        let app = table.string(appColumn).trimmingSpaces()
                        if !app.isEmpty {
                            if options.excludedApps.contains(app) {
                                collector.report.skip("excluded app (--exclude-app)")
                                continue
                            }
                            collector.add(Event(time: time, user: user, payload: .appLaunch(app: app)))
                            produced = true
                        }
                    }
                    if let latColumn, let lonColumn, !table.isEmpty(latColumn) || !table.isEmpty(lonColumn) {
                        let lat = try table.double(latColumn), lon = try table.double(lonColumn)
                        guard (-90...90).contains(lat) else { throw table.error(latColumn, "latitude out of range: \(lat)") }
                        guard (-180...180).contains(lon) else { throw table.error(lonColumn, "longitude out of range: \(lon)") }
                        let accuracy = try accuracyColumn.flatMap { c throws(ImportError) in try table.optionalDouble(c) }
                        if let accuracy, let accuracyColumn, !(accuracy >= 0) {
                            throw table.error(accuracyColumn, "accuracy must be >= 0 metres: \(accuracy)")
                        }
                        collector.add(Event(time: time, user: user, payload: .location(lat: lat, lon: lon, accuracy: accuracy)))
                        produced = true
                    }
                    if !produced { collector.report.skip("row with neither app nor coordinates") }
                } catch {
                    try collector.invalidRow(error, skipping: options.skipInvalidRows)
                }
            }
        }
        return collector.finish(stackRule: options.stackRule, stackName: options.stackName)
    }
}
