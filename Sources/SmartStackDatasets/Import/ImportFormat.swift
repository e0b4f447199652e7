import SmartStack

/// The formats `smartstack import` understands.
///
/// ```swift
/// let result = try ImportFormat.studentlife.importFiles(paths, options: ImportOptions())
/// ```
public enum ImportFormat: String, Sendable, Hashable, CaseIterable {
    /// StudentLife running-apps or foreground snapshots and GPS (``StudentLifeImporter``).
    case studentlife
    /// AWARE screen events (``AwareScreenImporter``).
    case awareScreen = "aware-screen"
    /// Open Bandit Dataset logs (``OBDImporter``).
    case obd
    /// The LSApp TSV (``LSAppImporter``).
    case lsapp
    /// Any CSV with a column mapping (``CSVLogImporter``).
    case csv
    /// A phone's app-use history before the stack, to backfill (``UsageHistoryImporter``).
    case usageHistory = "usage-history"

    /// One line describing the format, for help texts.
    public var summary: String {
        switch self {
        case .studentlife: "StudentLife running-apps/foreground snapshots (app_launch) and GPS (location)"
        case .awareScreen: "AWARE screen events (screen_on)"
        case .obd: "Open Bandit Dataset logs (widget_impression with propensities, widget_tap)"
        case .lsapp: "LSApp TSV: user_id, session_id, timestamp, app_name, event_type (app_launch)"
        case .csv: "your own CSV with a column mapping (app_launch, location)"
        case .usageHistory: "a phone's app-use history (Android UsageStatsManager events, an iOS host's log): app_launch to backfill"
        }
    }

    /// Imports `paths` in this format.
    ///
    /// - Throws: ``ImportError`` describing what is wrong and where.
    /// - Complexity: O(n log n) in the rows read.
    public func importFiles(_ paths: [String], options: ImportOptions) throws(ImportError) -> ImportResult {
        switch self {
        case .studentlife: try StudentLifeImporter(options: options).importFiles(paths)
        case .awareScreen: try AwareScreenImporter(options: options).importFiles(paths)
        case .obd: try OBDImporter(options: options).importFiles(paths)
        case .lsapp: try LSAppImporter(options: options).importFiles(paths)
        case .csv: try CSVLogImporter(options: options).importFiles(paths)
        case .usageHistory: try UsageHistoryImporter(options: options).importFiles(paths)
        }
    }
}
