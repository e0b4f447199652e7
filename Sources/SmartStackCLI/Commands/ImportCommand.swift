import SmartStack
import SmartStackDatasets

/// `smartstack import <format> <path ...> [--out FILE]`: converts real recordings to
/// SmartStack JSONL v1 (see ``ImportFormat``), printing what was read and skipped on stderr.
///
/// ```
/// smartstack import studentlife ../shared/datasets/studentlife_small/*.csv --out sl.jsonl
/// ```
public struct ImportCommand: SubcommandProtocol {
    /// `import`.
    public static let name = "import"
    /// One line for `smartstack --help`.
    public static let abstract = "Convert real recordings (StudentLife, AWARE, Open Bandit, LSApp, CSV) or a phone's app history to JSONL."
    /// The USAGE line.
    public static let usage = "smartstack import <format> <path> ... [--out <file> | --db <path>] [options]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Reads plain or gzip files and writes SmartStack JSONL v1: one user after another (users in
        ascending order), each user's events in time order, ids <prefix>-<user>-<n> that are the
        same on every run with the same inputs and options. A summary of rows read, events
        written and rows skipped (per reason) goes to stderr. The output file is written in full
        or not at all.

        USAGE: \(usage)

        FORMATS:
        \(ImportFormat.allCases.map { "  " + $0.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

        USAGE HISTORY (usage-history):
          A phone's app launches from before the stack existed, to backfill: CSV with a header
          or JSONL, columns timestamp (Unix ms) or time (RFC 3339), package (or app), optional
          utc_offset (+-HH:MM), event_type (1/ACTIVITY_RESUMED launches; 16, 17, 26 end a use;
          others skipped) and user. Ids usage-<ms>-<package>, so an export imported again or
          overlapping an earlier one stores nothing twice. Times without an offset need the
          phone's zone: --timezone or --utc-offset. The options --map and --map-file name the
          widget app of a package (a widget's 'app' in its stack_config). With --db the
          launches are stored for the user as a backfill: in one transaction, duplicates
          counted, refused (naming the file and line) when the user already has live events
          (other than stack configurations) after them. Recipes for Android and iOS:
          docs/backfill.md.

        STACKS (studentlife, lsapp, csv, aware-screen):
          Each user gets a stack chosen without peeking at the future: the user's N most launched
          apps (ties: earliest first launch) during the D days after their first event, emitted
          as a stack_config at the end of those D days; or the apps given with --widgets, emitted
          at the user's first event. Widget ids are short names of the apps (com.google.android.gm
          -> gm). obd instead configures one stack per display position holding the item catalogue.

        OPTIONS:
          --out <file>            Write JSONL here (default: stdout).
          --db <path>             usage-history: store the launches as the user's
                                  backfill (see above) instead of writing JSONL.
          --user <name>           User for sources without one (aware-screen, obd,
                                  lsapp, csv).
          --utc-offset <offset>   Fixed local offset, e.g. -05:00 (default: UTC;
                                  studentlife: America/New_York with daylight saving).
          --timezone <name>       Local zone, e.g. America/New_York (US zones computed
                                  with US daylight-saving rules, others from the system
                                  tz data). obd: re-expresses the log's +00:00 times in
                                  that zone.
          --stack-size <n>        Apps in each user's stack (default 6; 0 = no
                                  stack_config).
          --stack-days <d>        Warm-up days the stack is chosen from (default 7).
          --widgets <a,b,...>     Use these apps as every user's stack instead.
          --stack-name <name>     Name of the users' stack (default home).
          --skip-invalid          Skip rows with bad values (counted) instead of
                                  stopping.
          --exclude-app <app>     Drop this app (repeatable, or comma-separated).
          studentlife:
            --keep-system-apps    Keep the survey app (PACO), launchers and system UI,
                                  dropped by default.
          aware-screen:
            --merge-seconds <s>   A screen on/unlock within s seconds of the previous
                                  screen_on, with no screen off between, is the same
                                  look (default 30).
          obd:
            --policy <name>       Logging policy name (default: file name before '_').
            --item-count <n>      Catalogue 0..<n when no *_item_context.csv is given
                                  (default: the user-item_affinity columns of the
                                  header).
          usage-history:
            --map <package>=<app> The widget app of a package (repeatable, or
                                  comma-separated).
            --map-file <csv>      The same from a CSV with columns package and app.
            --only-mapped         Skip the packages no map names.
          csv:
            --time-column <name>  Time column (required).
            --time-format <f>     unix (seconds, default), unix-ms, or rfc3339 (a
                                  date-time; without offset it is local time, see
                                  --utc-offset).
            --user-column <name>  User column (default: --user or 'default').
            --app-column <name>   App column (rows with an app become app_launch).
            --lat-column <name>, --lon-column <name>
                                  Coordinates (rows with them become location).
            --accuracy-column <name>
                                  Location accuracy in metres.
            --delimiter <c>       Field delimiter: ',' (default), ';', 'tab', '|'.
          -h, --help              Show this help.

        EXAMPLES:
          smartstack import studentlife ../shared/datasets/studentlife_small/foreground_snapshots_u00_u01_u02.csv \\
              ../shared/datasets/studentlife_small/gps_u00_u01_u02.csv --out studentlife.jsonl
          smartstack import aware-screen ../shared/datasets/aware_screen/AwareScreen_1month.csv.gz --timezone Europe/Helsinki
          smartstack import obd ../shared/datasets/obd/random_all.csv.gz ../shared/datasets/obd/random_item_context.csv
          smartstack import csv mylog.csv --time-column ts --time-format rfc3339 --app-column package
          smartstack import usage-history usage.csv --timezone Europe/Berlin --user me \\
              --map com.google.android.calendar=calendar --db smartstack.sqlite
        """

    static let valueOptions: Set<String> = [
        "--out", "--user", "--utc-offset", "--timezone", "--stack-size", "--stack-days", "--widgets", "--stack-name",
        "--exclude-app", "--merge-seconds", "--policy", "--item-count", "--time-column", "--time-format",
        "--user-column", "--app-column", "--lat-column", "--lon-column", "--accuracy-column", "--delimiter",
        "--map", "--map-file", "--db",
    ]
    static let flagOptions: Set<String> = ["--keep-system-apps", "--skip-invalid", "--only-mapped"]

    /// Options meaningful for one format only.
    static let formatOnly: [String: ImportFormat] = [
        "--keep-system-apps": .studentlife, "--merge-seconds": .awareScreen, "--policy": .obd, "--item-count": .obd,
        "--time-column": .csv, "--time-format": .csv, "--user-column": .csv, "--app-column": .csv,
        "--lat-column": .csv, "--lon-column": .csv, "--accuracy-column": .csv, "--delimiter": .csv,
        "--map": .usageHistory, "--map-file": .usageHistory, "--only-mapped": .usageHistory, "--db": .usageHistory,
    ]

    /// The format to read.
    public var format: ImportFormat
    /// The input files.
    public var paths: [String]
    /// The output file; `nil` = stdout.
    public var outputPath: String?
    /// `usage-history`: the database to backfill instead of writing JSONL.
    public var database: String?
    /// The importer options.
    public var options: ImportOptions

    /// Parses `<format> <path> ... [options]`; rejects unknown formats (listing them), options
    /// of another format, and malformed values.
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: Self.valueOptions, flags: Self.flagOptions)
        let names = ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")
        guard let formatName = parsed.positional.first else {
            throw UsageError("missing format (one of: \(names))")
        }
        guard let format = ImportFormat(rawValue: formatName) else {
            throw UsageError("unknown format '\(formatName)' (formats: \(names))")
        }
        self.format = format
        paths = Array(parsed.positional.dropFirst())
        guard !paths.isEmpty else { throw UsageError("missing input file(s) after the format '\(formatName)'") }
        for (option, only) in Self.formatOnly.sorted(by: { $0.key < $1.key }) where only != format {
            if parsed.value(option) != nil || parsed.flag(option) {
                throw UsageError("'\(option)' applies to format '\(only.rawValue)' only, not '\(formatName)'")
            }
        }
        if format == .obd || format == .awareScreen, !parsed.values("--exclude-app").isEmpty {
            throw UsageError("'--exclude-app' does not apply to '\(formatName)' (it has no apps)")
        }
        if format == .obd {
            for option in ["--stack-size", "--stack-days", "--widgets", "--stack-name"] where parsed.value(option) != nil {
                throw UsageError("'\(option)' does not apply to obd (each display position is a stack holding the item catalogue)")
            }
        }
        if format == .usageHistory {
            for option in ["--stack-size", "--stack-days", "--widgets", "--stack-name"] where parsed.value(option) != nil {
                throw UsageError("'\(option)' does not apply to usage-history (a history holds no stacks: configure them with the engine)")
            }
        }
        outputPath = parsed.value("--out")
        database = parsed.value("--db")
        if database != nil, outputPath != nil { throw UsageError("give either '--out' or '--db', not both") }
        var options = ImportOptions()
        options.user = parsed.value("--user")
        if options.user?.isEmpty == true { throw UsageError("'--user' must not be empty") }
        if format == .studentlife, options.user != nil {
            throw UsageError("'--user' does not apply to studentlife (its files name their users)")
        }
        if parsed.value("--utc-offset") != nil, parsed.value("--timezone") != nil {
            throw UsageError("give either '--utc-offset' or '--timezone', not both")
        }
        do {
            if let text = parsed.value("--utc-offset") { options.timeRule = try LocalTimeRule(utcOffset: text) }
            if let text = parsed.value("--timezone") { options.timeRule = try LocalTimeRule(timeZone: text) }
        } catch {
            throw UsageError(error.message)
        }
        let stackSize = try Self.integer(parsed, "--stack-size", default: 6, minimum: 0)
        let stackDays = try Self.number(parsed, "--stack-days", default: 7, allowZero: false)
        if let list = parsed.value("--widgets") {
            guard parsed.value("--stack-size") == nil, parsed.value("--stack-days") == nil else {
                throw UsageError("'--widgets' gives the stack itself: do not combine it with '--stack-size' or '--stack-days'")
            }
            let apps = Self.list(list)
            guard !apps.isEmpty else { throw UsageError("'--widgets' needs at least one app") }
            guard Set(apps).count == apps.count else { throw UsageError("'--widgets' lists an app twice") }
            options.stackRule = .fixed(apps: apps)
        } else {
            options.stackRule = stackSize == 0 ? .none : .mostUsed(count: stackSize, warmUpDays: stackDays)
        }
        if let name = parsed.value("--stack-name") {
            guard !name.isEmpty else { throw UsageError("'--stack-name' must not be empty") }
            options.stackName = name
        }
        options.keepSystemApps = parsed.flag("--keep-system-apps")
        options.skipInvalidRows = parsed.flag("--skip-invalid")
        options.excludedApps = parsed.values("--exclude-app").flatMap(Self.list)
        options.screenMergeSeconds = try Self.number(parsed, "--merge-seconds", default: 30, allowZero: true)
        options.policy = parsed.value("--policy")
        if let n = parsed.value("--item-count") {
            guard let count = Int(n), count > 0 else { throw UsageError("'--item-count' must be a positive integer, got '\(n)'") }
            options.itemCount = count
        }
        var columns = CSVColumnMapping()
        columns.time = parsed.value("--time-column")
        columns.user = parsed.value("--user-column")
        columns.app = parsed.value("--app-column")
        columns.latitude = parsed.value("--lat-column")
        columns.longitude = parsed.value("--lon-column")
        columns.accuracy = parsed.value("--accuracy-column")
        if let f = parsed.value("--time-format") {
            guard let tf = ImportTimeFormat(rawValue: f) else {
                throw UsageError("unknown time format '\(f)' (one of: \(ImportTimeFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            columns.timeFormat = tf
        }
        if let d = parsed.value("--delimiter") {
            switch d {
            case "tab", "\\t", "\t": columns.delimiter = UInt8(ascii: "\t")
            default:
                guard d.utf8.count == 1, let b = d.utf8.first, b != UInt8(ascii: "\""), b != 10, b != 13 else {
                    throw UsageError("'--delimiter' must be one character (or 'tab'), got '\(d)'")
                }
                columns.delimiter = b
            }
        }
        if format == .csv {
            guard columns.time != nil else { throw UsageError("format 'csv' needs '--time-column'") }
            guard columns.app != nil || columns.latitude != nil || columns.longitude != nil else {
                throw UsageError("format 'csv' needs '--app-column', or '--lat-column' and '--lon-column'")
            }
            guard (columns.latitude == nil) == (columns.longitude == nil) else {
                throw UsageError("'--lat-column' and '--lon-column' go together")
            }
        }
        options.columns = columns
        for text in parsed.values("--map") {
            for pair in Self.list(text) {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).trimmingCharacters() }
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw UsageError("'--map' takes <package>=<app>, got '\(pair)'")
                }
                guard options.appMap[parts[0]] == nil else { throw UsageError("'--map': package '\(parts[0])' is mapped twice") }
                options.appMap[parts[0]] = parts[1]
            }
        }
        mapFile = parsed.value("--map-file")
        options.onlyMapped = parsed.flag("--only-mapped")
        self.options = options
    }

    /// `usage-history`: the CSV of package → app, read when the command runs.
    public var mapFile: String?

    private static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmingCharacters() }.filter { !$0.isEmpty }
    }

    private static func integer(_ parsed: ParsedArguments, _ name: String, default value: Int, minimum: Int) throws(UsageError) -> Int {
        guard let text = parsed.value(name) else { return value }
        guard let n = Int(text), n >= minimum else {
            throw UsageError("'\(name)' must be an integer >= \(minimum), got '\(text)'")
        }
        return n
    }

    private static func number(_ parsed: ParsedArguments, _ name: String, default value: Double,
                               allowZero: Bool) throws(UsageError) -> Double {
        guard let text = parsed.value(name) else { return value }
        guard let n = Double(text), n.isFinite, allowZero ? n >= 0 : n > 0 else {
            throw UsageError("'\(name)' must be a number \(allowZero ? ">= 0" : "> 0"), got '\(text)'")
        }
        return n
    }

    /// Imports, writes the JSONL (temporary file renamed over `--out`, or stdout) and prints the
    /// summary on stderr. Import errors (file, line, column) become ``CommandFailure``.
    ///
    /// - Complexity: O(n log n) in the rows read.
    public func run(_ output: CommandOutput) throws -> Int32 {
        let result: ImportResult
        do throws(ImportError) {
            var options = options
            if let mapFile {
                for (package, app) in try UsageHistoryImporter.map(path: mapFile) {
                    guard options.appMap[package] == nil else {
                        throw ImportError(file: mapFile, message: "package '\(package)' is mapped both here and by --map")
                    }
                    options.appMap[package] = app
                }
            }
            result = try format.importFiles(paths, options: options)
        } catch {
            throw CommandFailure(error.description)
        }
        if let database {
            try HistoryBackfill(result: result, database: database).run(output)
            return 0
        }
        if let outputPath {
            do {
                try ImportedEventsWriter.write(result.events, toFile: outputPath)
            } catch {
                throw CommandFailure(error.description)
            }
        } else {
            output.standardOutput(String(decoding: ImportedEventsWriter.jsonl(result.events), as: UTF8.self))
        }
        output.printError(result.report.summary + (outputPath.map { "\n  written to \($0)" } ?? ""))
        return 0
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " { s.removeFirst() }
        while let l = s.last, l == " " { s.removeLast() }
        return String(s)
    }
}
