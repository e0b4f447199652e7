import SmartStack
import SmartStackDatasets

/// `smartstack generate --persona <name> --days <n> [--seed <s>] [--users <k>] [--start <date>]
/// [--location <mode>] [--no-screen-on] [--stack-size <n>] [--backfill-days <n>] [--out <file>] [--truth <file>]`:
/// a simulated dataset in SmartStack JSONL v1 and its ground truth.
///
/// ```swift
/// let command = try GenerateCommand(arguments: ["--persona", "commuter", "--days", "28", "--out", "c.jsonl"])
/// // command.truthPath == "c.truth.jsonl"
/// ```
public struct GenerateCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "generate"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Simulate people of a persona: events in JSONL v1 plus their ground truth."
    /// The USAGE line.
    public static let usage = "smartstack generate --persona <name> --days <n> [--seed <s>] [--users <k>] [--start <date>] [--location <mode>] [--no-screen-on] [--stack-size <n>] [--backfill-days <n>] [--logger <name>] [--logger-policy <spec>] [--out <file>] [--truth <file>]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Simulates each user of the persona day by day (places, noisy location fixes, context,
        screen_on sessions, app launches and widget taps, relevance hints, manual swipes, and
        widget_impression events from a randomised logging policy with their propensities) and
        writes the events as SmartStack JSONL v1, sorted by user then time.
        Beside it goes the ground truth: one line per screen_on and stack with the true
        probability that each widget is engaged in the session it begins (within 10 minutes):
          {"user":..,"time":..,"stack":..,"distribution":{"calendar":0.41,..},"engaged":"calendar"|null,
           "shown":..,"lift":..,"intent":{..}}
        The same options always give byte-identical files; users are named <persona>-00, -01, ...
        and user i's data does not depend on --users. Files are written to a temporary name and
        renamed when complete.

        --location and --no-screen-on change what the phone records, not what the person does:
        with the same seed the people live the same days and engage the same widgets in every
        mode. Without screen_on, engagements are written as app_launch events only (as a
        usage-statistics recorder sees them) and the ground truth is given at each launch of a
        stacked widget's app: the probability of each widget of its stack given that one of them
        is launched then (0 for a widget whose app was the last launched: the evaluator merges
        such a repeat). --stack-size gives each person one stack, 'home', of their first n
        widgets in their own order, filled up with extra widgets of their own habits (smarthome,
        banking, steps, shopping, tvguide, parking) when they have fewer; needs of widgets left
        out are met by launching those apps directly, which no stack counts. --logger chooses
        what the phone shows on top (and logs): the person's intent is the same under every
        logger, but people also tap what is on top, so logged hit@1 favours policies that
        resemble the logger while counterfactual engagement (evaluate with the truth) does not.
        --backfill-days gives every person that many days of app use before the first day
        (--start), when their stacks are configured: the app_launch events a phone's usage
        history holds (ids h1, h2, ...), as the person's own habits produce them, and nothing
        else of those days (no screen_on, impressions, places, fixes, context, hints, and no
        ground truth). The days from --start on are the same as without backfill (except under
        --logger engine, whose engine learns from the history). Measure what the history is
        worth with 'smartstack evaluate --by-day' (days count from the stacks' configuration).

        PERSONAS:
        \(rows(Persona.allCases.map { ($0.rawValue, $0.summary) }))

        LOCATION MODES:
        \(rows(LocationReporting.allCases.map { ($0.rawValue, $0.summary) }))

        LOGGERS:
        \(rows(SimulationLogger.allCases.map { ($0.rawValue, $0.summary) }))

        USAGE: \(usage)

        OPTIONS:
        \(rows([
            ("--persona <name>", "The persona to simulate (see PERSONAS)."),
            ("--days <n>", "Days to simulate per user (> 0)."),
            ("--seed <s>", "The seed, 0...18446744073709551615, decimal or 0x-hex (default 1)."),
            ("--users <k>", "How many users (default 1)."),
            ("--start <date>", "The first local date, YYYY-MM-DD (default 2026-01-05, a Monday)."),
            ("--location <mode>", "How location is recorded (see LOCATION MODES; default dense)."),
            ("--no-screen-on", "Write no screen_on or widget_impression events, and engagements as app_launch only."),
            ("--stack-size <n>", "One stack of n widgets, \(SimulationVariant.stackSizes.lowerBound)-\(SimulationVariant.stackSizes.upperBound), instead of the persona's own stacks."),
            ("--backfill-days <n>", "Days of app launches before the stacks are configured, 0-\(SimulationVariant.maximumBackfillDays) (default 0)."),
            ("--logger <name>", "What the phone shows on top and logs (see LOGGERS; default time-of-day)."),
            ("--logger-policy <spec>", "The engine logger's policy (default \(SimulationLogger.defaultEnginePolicy)); implies --logger engine."),
            ("--out <file>", "Write the events to <file> (default: standard output)."),
            ("--truth <file>", "Write the ground truth to <file> (default: <out> with .jsonl replaced by .truth.jsonl, or <out>.truth.jsonl; without --out, no truth unless --truth is given)."),
            ("-h, --help", "Show help information."),
        ]))
        """

    /// What to simulate.
    public var options: SimulationOptions
    /// Where the events go; `nil` for standard output.
    public var outputPath: String?
    /// Where the ground truth goes; `nil` for none.
    public var truthPath: String?

    /// Creates the command from its parts.
    public init(options: SimulationOptions, outputPath: String? = nil, truthPath: String? = nil) {
        self.options = options
        self.outputPath = outputPath
        self.truthPath = truthPath
    }

    /// Parses the options.
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: ["--persona", "--days", "--seed", "--users", "--start", "--location",
                                                              "--stack-size", "--backfill-days", "--logger", "--logger-policy", "--out", "--truth"],
                                         flags: ["--no-screen-on"])
        if let extra = parsed.positional.first { throw UsageError("unexpected argument '\(extra)'") }
        let personaName = try parsed.required("--persona")
        guard let persona = Persona(rawValue: personaName) else {
            throw UsageError("unknown persona '\(personaName)' (valid: \(Persona.namesList))")
        }
        let days = try Self.positive("--days", try parsed.required("--days"))
        let users = try parsed.value("--users").map { (v: String) throws(UsageError) in try Self.positive("--users", v) } ?? 1
        let seed = try parsed.value("--seed").map { (v: String) throws(UsageError) in try Self.seed(v) } ?? 1
        var startDay = SimulationOptions.defaultStartDay
        if let text = parsed.value("--start") {
            do { startDay = try SimulationOptions.startDay(parsing: text) } catch { throw UsageError(error.message) }
        }
        var variant = SimulationVariant()
        if let mode = parsed.value("--location") {
            guard let location = LocationReporting(rawValue: mode) else {
                throw UsageError("unknown location mode '\(mode)' (valid: \(LocationReporting.namesList))")
            }
            variant.location = location
        }
        variant.recordsScreenOn = !parsed.flag("--no-screen-on")
        if let text = parsed.value("--stack-size") {
            guard let size = Int(text) else { throw UsageError("the value of '--stack-size' must be a whole number, got '\(text)'") }
            variant.stackSize = size
        }
        if let text = parsed.value("--backfill-days") {
            guard let n = Int(text), n >= 0 else {
                throw UsageError("the value of '--backfill-days' must be a whole number from 0 to \(SimulationVariant.maximumBackfillDays), got '\(text)'")
            }
            variant.backfillDays = n
        }
        if let name = parsed.value("--logger") {
            guard let logger = SimulationLogger(rawValue: name) else {
                throw UsageError("unknown logger '\(name)' (valid: \(SimulationLogger.namesList))")
            }
            variant.logger = logger
        }
        if let policy = parsed.value("--logger-policy") {
            if parsed.value("--logger") == nil { variant.logger = .engine }
            variant.loggerPolicy = policy
        }
        do {
            options = try SimulationOptions(persona: persona, days: days, users: users, seed: seed, startDay: startDay, variant: variant)
        } catch {
            throw UsageError(error.message)
        }
        outputPath = parsed.value("--out")
        if outputPath == "-" { outputPath = nil }
        if let out = outputPath, out.isEmpty { throw UsageError("the value of '--out' is empty") }
        truthPath = parsed.value("--truth") ?? outputPath.map { DatasetGenerator.truthPath(forEvents: $0) }
        if let truth = truthPath, truth.isEmpty { throw UsageError("the value of '--truth' is empty") }
        if let truth = truthPath, truth == outputPath { throw UsageError("'--truth' and '--out' name the same file '\(truth)'") }
    }

    static func positive(_ name: String, _ text: String) throws(UsageError) -> Int {
        guard let v = Int(text) else { throw UsageError("the value of '\(name)' must be a whole number, got '\(text)'") }
        guard v > 0 else { throw UsageError("the value of '\(name)' must be greater than 0, got \(v)") }
        return v
    }

    static func seed(_ text: String) throws(UsageError) -> UInt64 {
        let value = text.hasPrefix("0x") || text.hasPrefix("0X") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let value, !text.hasPrefix("+") else {
            throw UsageError("the value of '--seed' must be a whole number from 0 to 18446744073709551615, got '\(text)'")
        }
        return value
    }

    static func rows(_ rows: [(String, String)]) -> String {
        let column = max(24, (rows.map { $0.0.count }.max() ?? 0) + 4)
        let width = max(40, 80 - column)
        var lines: [String] = []
        for (name, text) in rows {
            var wrapped: [String] = []
            var line = ""
            for word in text.split(separator: " ") {
                if !line.isEmpty && line.count + 1 + word.count > width {
                    wrapped.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            wrapped.append(line)
            for (i, part) in wrapped.enumerated() {
                let label = i == 0 ? name : ""
                lines.append("  " + label + String(repeating: " ", count: column - 2 - label.count) + part)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Generates the dataset and prints a summary on standard error.
    public func run(_ output: CommandOutput) throws -> Int32 {
        let summary: SimulationSummary
        do {
            if let outputPath {
                summary = try DatasetGenerator.write(options, eventsTo: outputPath, truthTo: truthPath)
            } else {
                summary = try DatasetGenerator.write(options, events: { output.standardOutput(String(decoding: $0, as: UTF8.self)) },
                                                     truthTo: truthPath)
            }
        } catch {
            throw CommandFailure(error.message)
        }
        let types = EventType.allCases.compactMap { t in summary.byType[t].map { "\(t.rawValue) \($0)" } }.joined(separator: ", ")
        let variant = options.variant.isDefault ? "" : ", variant \(options.variant)"
        let backfill = options.variant.backfillDays > 0 ? " after \(options.variant.backfillDays) day(s) of app launches before the stacks" : ""
        output.printError("Generated \(summary.events) events for \(summary.users) \(options.persona.rawValue) user(s) x \(summary.days) day(s)\(backfill), seed \(options.seed)\(variant) -> \(outputPath ?? "standard output")")
        output.printError("  by type: \(types)")
        if let truthPath {
            output.printError("Ground truth: \(summary.truthLines) lines -> \(truthPath)")
        } else {
            output.printError("No ground truth written (give --truth <file> to write it).")
        }
        return 0
    }
}
