import SmartStack

/// Imports the Open Bandit Dataset (Saito et al., NeurIPS 2021 Datasets and Benchmarks):
/// each logged round becomes a `widget_impression` with its propensity and policy, and a
/// click also a `widget_tap`.
///
/// Mapping: display position `p` → stack `position-<p>`; item `i` → widget `item-<i>`;
/// policy = ``ImportOptions/policy`` or the file name up to its first `_` or `.`
/// (`random_all.csv.gz` → `random`); user = ``ImportOptions/user`` or the policy name, so
/// logs of different policies imported together stay separate sessions.
///
/// Times keep the offset written in the log (`+00:00` in the public files) unless
/// ``ImportOptions/timeRule`` is set (e.g. `--timezone Asia/Tokyo` for ZOZOTOWN's shoppers):
/// then the same instants are expressed in that zone.
///
/// Stacks without peeking at the future: the items are ZOZOTOWN's known catalogue, taken
/// from an `*_item_context.csv` given among the paths (recognised by its `item_feature_0`
/// column; matched to a log by the file-name prefix, or used for every log when it is the
/// only one), else from ``ImportOptions/itemCount`` (items `0..<n`), else from the number of
/// `user-item_affinity_<i>` columns in the log's header. Each position's `stack_config`
/// lists the whole catalogue and is emitted just before the first impression at that
/// position, so a configuration always comes before the events that use it.
///
/// ```swift
/// let result = try OBDImporter().importFiles(["random_all.csv.gz", "random_item_context.csv"])
/// ```
public struct OBDImporter: Sendable {
    /// The options in effect.
    public var options: ImportOptions

    /// Creates an importer.
    public init(options: ImportOptions = ImportOptions()) {
        self.options = options
    }

    /// The policy name derived from a file name: `bts_all.csv.gz` → `bts`.
    public static func policyName(fromPath path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let stem = file.split(whereSeparator: { $0 == "_" || $0 == "." }).first.map(String.init) ?? file
        return stem.isEmpty ? "logged" : stem
    }

    /// Reads the logs (and item-context files) and returns their events.
    ///
    /// - Throws: ``ImportError`` for missing/truncated files, missing columns, bad numbers,
    ///   or a log whose catalogue cannot be known.
    /// - Complexity: O(n log n + n·k) for n rounds and k catalogue items (one config each).
    public func importFiles(_ paths: [String]) throws(ImportError) -> ImportResult {
        guard !paths.isEmpty else { throw ImportError(file: "", message: "no input files") }
        var collector = EventCollector(format: "obd", idPrefix: "obd")
        var logs: [CSVTable] = []
        var catalogues: [(prefix: String, items: [Int])] = []
        for path in paths {
            var table = try CSVTable(path: path)
            collector.report.files.append(path)
            if table.hasColumn("item_feature_0") && !table.hasColumn("position") {
                let itemColumn = try table.column("item_id")
                var items: [Int] = []
                while try table.nextRow() {
                    items.append(try table.integer(itemColumn))
                }
                let file = path.split(separator: "/").last.map(String.init) ?? path
                let prefix = file.components(separatedBy: "_item_context").first ?? file
                catalogues.append((prefix, items))
            } else {
                logs.append(table)
            }
        }
        guard !logs.isEmpty else {
            throw ImportError(file: paths[0], message: "no Open Bandit log among the inputs (only item-context files)")
        }
        for var table in logs {
            let policy = options.policy ?? OBDImporter.policyName(fromPath: table.path)
            let user = options.user ?? policy
            let catalogue = try catalogueFor(table, policy: policy, catalogues: catalogues, collector: &collector)
            let catalogueSet = Set(catalogue)
            let widgets = catalogue.map { WidgetConfig(id: "item-\($0)") }
            let timeColumn = try table.column("timestamp")
            let itemColumn = try table.column("item_id")
            let positionColumn = try table.column("position")
            let clickColumn = try table.column("click")
            let propensityColumn = try table.column("propensity_score")
            var configured: Set<Int> = []
            while true {
                do throws(ImportError) {
                    guard try table.nextRow() else { break }
                    collector.report.rowsRead += 1
                    var time: EventTime
                    do {
                        time = try ImportTime.parse(table.string(timeColumn), format: .rfc3339, rule: options.timeRule ?? .utc)
                    } catch {
                        throw table.error(timeColumn, error.message)
                    }
                    if let rule = options.timeRule {
                        time = ImportTime.instant(nanoseconds: time.nanosecondsSinceEpoch, rule: rule)
                    }
                    let item = try table.integer(itemColumn)
                    let position = try table.integer(positionColumn)
                    let click = try table.integer(clickColumn)
                    guard click == 0 || click == 1 else { throw table.error(clickColumn, "expected 0 or 1, found \(click)") }
                    let propensity = try table.double(propensityColumn)
                    guard propensity > 0, propensity <= 1 else {
                        collector.report.skip("propensity_score outside (0, 1]")
                        continue
                    }
                    guard catalogueSet.contains(item) else {
                        collector.report.skip("item not in the catalogue")
                        continue
                    }
                    let stack = "position-\(position)"
                    if configured.insert(position).inserted {
                        collector.add(Event(time: time, user: user, payload: .stackConfig(stack: stack, widgets: widgets)))
                    }
                    let widget = "item-\(item)"
                    collector.add(Event(time: time, user: user, payload: .widgetImpression(
                        stack: stack, widget: widget, propensity: propensity, policy: policy)))
                    if click == 1 {
                        collector.add(Event(time: time, user: user, payload: .widgetTap(widget: widget, stack: stack)))
                    }
                } catch {
                    try collector.invalidRow(error, skipping: options.skipInvalidRows)
                }
            }
        }
        return collector.finish(stackRule: .none, stackName: options.stackName)
    }

    private func catalogueFor(_ table: CSVTable, policy: String, catalogues: [(prefix: String, items: [Int])],
                              collector: inout EventCollector) throws(ImportError) -> [Int] {
        let file = table.path.split(separator: "/").last.map(String.init) ?? table.path
        if let match = catalogues.first(where: { file.hasPrefix($0.prefix + "_") || file.hasPrefix($0.prefix + ".") }) {
            collector.report.notes.append("\(file): catalogue of \(match.items.count) items from \(match.prefix)_item_context")
            return match.items
        }
        if catalogues.count == 1 {
            collector.report.notes.append("\(file): catalogue of \(catalogues[0].items.count) items from the item-context file")
            return catalogues[0].items
        }
        if !catalogues.isEmpty {
            throw ImportError(file: table.path, message: "several item-context files and none named like this log "
                + "(expected '<prefix>_item_context.csv' for a log '<prefix>_...')")
        }
        if let n = options.itemCount {
            guard n > 0 else { throw ImportError(file: "", message: "item count must be positive") }
            collector.report.notes.append("\(file): catalogue of items 0..<\(n) (--item-count)")
            return Array(0..<n)
        }
        let affinity = table.header.filter { $0.lowercased().hasPrefix("user-item_affinity_") }.count
        guard affinity > 0 else {
            throw ImportError(file: table.path, line: 1, message: "cannot know the item catalogue: give the "
                + "'*_item_context.csv' file or --item-count (the header has no user-item_affinity_<i> columns)")
        }
        collector.report.notes.append("\(file): catalogue of items 0..<\(affinity) (user-item_affinity columns of the header)")
        return Array(0..<affinity)
    }
}
