import SmartStack

/// What an import did: rows read, events written per type, and rows skipped per reason.
///
/// Every importer fills one; `smartstack import` prints ``summary`` on stderr.
///
/// ```swift
/// let result = try StudentLifeImporter().importFiles(["gps.csv"])
/// print(result.report.summary)
/// ```
public struct ImportReport: Sendable, Hashable {
    /// The format name, e.g. `studentlife`.
    public var format: String
    /// The files read, in the order given.
    public var files: [String] = []
    /// Data rows read (header lines and blank lines not counted).
    public var rowsRead = 0
    /// Rows that produced no event, counted per reason (a row that becomes a snapshot's
    /// background task, an excluded app, a duplicate ...).
    public var skipped: [String: Int] = [:]
    /// Events produced, counted per type (derived events such as `stack_config` included).
    public var eventsByType: [EventType: Int] = [:]
    /// Remarks about choices the importer made (default offset used, stack rule applied ...).
    public var notes: [String] = []

    /// Creates an empty report for `format`.
    public init(format: String) {
        self.format = format
    }

    /// Total events produced.
    public var eventsWritten: Int { eventsByType.values.reduce(0, +) }

    /// Total rows skipped.
    public var rowsSkipped: Int { skipped.values.reduce(0, +) }

    /// Counts one skipped row under `reason`.
    public mutating func skip(_ reason: String, count: Int = 1) {
        skipped[reason, default: 0] += count
    }

    /// A human-readable multi-line summary (for stderr).
    ///
    /// - Complexity: O(r log r + t) for r skip reasons and t event types.
    public var summary: String {
        var lines: [String] = []
        lines.append("import \(format): \(files.count) file(s), \(rowsRead) rows read, "
            + "\(eventsWritten) events written, \(rowsSkipped) rows skipped")
        let types = EventType.allCases.compactMap { type -> String? in
            guard let n = eventsByType[type], n > 0 else { return nil }
            return "\(type.rawValue) \(n)"
        }
        if !types.isEmpty { lines.append("  events: " + types.joined(separator: ", ")) }
        let reasons = skipped.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        for (reason, n) in reasons { lines.append("  skipped \(n): \(reason)") }
        for note in notes { lines.append("  note: \(note)") }
        return lines.joined(separator: "\n")
    }
}
