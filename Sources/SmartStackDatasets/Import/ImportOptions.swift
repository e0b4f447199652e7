import SmartStack

/// Options shared by the importers; each importer reads the ones that apply to its format.
///
/// ```swift
/// var options = ImportOptions()
/// options.stackRule = .fixed(apps: ["com.google.android.gm"])
/// let result = try StudentLifeImporter(options: options).importFiles(paths)
/// ```
public struct ImportOptions: Sendable, Hashable {
    /// The user to assign when the source has no user column (or to override it).
    public var user: String?
    /// How to find UTC offsets; `nil` = the format's default (America/New_York for
    /// StudentLife, UTC for the others).
    public var timeRule: LocalTimeRule?
    /// How each user's stack is chosen.
    public var stackRule: ImportStackRule = .standard
    /// The name of the stack the importer configures for users.
    public var stackName = "home"
    /// Keep the apps StudentLife excludes by default (survey app, launcher, system UI).
    public var keepSystemApps = false
    /// More apps to drop (exact package / app names).
    public var excludedApps: [String] = []
    /// OBD: the logging policy's name (default: the file name up to its first `_` or `.`).
    public var policy: String?
    /// OBD: the catalogue size when no `*_item_context.csv` is given (items `0..<n`).
    public var itemCount: Int?
    /// AWARE: a screen-on or unlock less than this many seconds after the previous emitted
    /// `screen_on`, with no screen-off in between, is the same look at the phone.
    public var screenMergeSeconds: Double = 30
    /// Skip rows with malformed values (counted per column) instead of stopping at the first.
    public var skipInvalidRows = false
    /// The column mapping of the `csv` format.
    public var columns = CSVColumnMapping()
    /// `usage-history`: the app each package's launches are of (a widget's `app`); packages not
    /// in it keep their name.
    public var appMap: [String: String] = [:]
    /// `usage-history`: skip the packages ``appMap`` does not name.
    public var onlyMapped = false

    /// Default options: stack of 6 apps over 7 days, UTC offsets per format, strict rows.
    public init() {}
}

/// Which columns of a user's own CSV hold what (format `csv`).
public struct CSVColumnMapping: Sendable, Hashable {
    /// The time column (required).
    public var time: String?
    /// The user column; when absent every row belongs to ``ImportOptions/user`` or `default`.
    public var user: String?
    /// The app column: a non-empty value makes an `app_launch`.
    public var app: String?
    /// Latitude column (with ``longitude``): non-empty values make a `location`.
    public var latitude: String?
    /// Longitude column.
    public var longitude: String?
    /// Location accuracy column in metres (optional).
    public var accuracy: String?
    /// How the time column is written.
    public var timeFormat: ImportTimeFormat = .unix
    /// The field delimiter (default `,`).
    public var delimiter: UInt8 = UInt8(ascii: ",")

    /// An empty mapping (time column must be set before importing).
    public init() {}
}

/// The events of an import, grouped by user (users in ascending order) and in time order
/// within each user, with the report of what was read and skipped.
public struct ImportResult: Sendable {
    /// The events, ready to write as JSONL.
    public var events: [Event]
    /// Counts of rows read, events written and rows skipped.
    public var report: ImportReport

    /// Where each event was read, `file:line`, keyed by its user, a NUL and its id (filled by
    /// the importers that keep it: `usage-history`).
    public var origins: [String: String] = [:]

    /// Creates a result.
    public init(events: [Event], report: ImportReport) {
        self.events = events
        self.report = report
    }
}
