import SmartStack

/// How a simulated phone reports where the person is.
///
/// The person moves the same way in every mode (the same seed gives the same days, sessions and
/// engagements); only what the recorder writes differs, so two modes compare the same people.
///
/// ```swift
/// LocationReporting(rawValue: "change-only")   // .changeOnly
/// ```
public enum LocationReporting: String, Sendable, Hashable, CaseIterable {
    /// A `location` fix every 2–6 minutes on the move, every 20–45 minutes at a place, every 1–2
    /// hours asleep, plus a named `place` event at about 85% of arrivals (the default).
    case dense
    /// One `location` fix per arrival at a place, 1–10 minutes after it (none for shorter
    /// stays), with the accuracy of a significant-change or visit service; nothing while the
    /// person stays, no `place` names.
    case changeOnly = "change-only"
    /// As `change-only`, plus one fix when the person leaves a place (iOS visit monitoring).
    case visits
    /// A named `place` event at every arrival and no fixes (named geofences).
    case geofence
    /// No `location` fixes and no `place` events.
    case none

    /// One line describing the mode, for help text.
    public var summary: String {
        switch self {
        case .dense: "fixes every few minutes on the move, every 20-45 min at a place, plus named place arrivals (default)"
        case .changeOnly: "one fix per arrival at a place (1-10 min late, realistic accuracy), none while staying, no place names"
        case .visits: "one fix per arrival and one per departure (iOS visits), no place names"
        case .geofence: "a named place event at every arrival, no fixes"
        case .none: "no location fixes and no place events"
        }
    }

    /// Every mode's name, comma-separated, for help and error messages.
    public static var namesList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// What the simulated recorder writes and how the person's stacks are laid out: the knobs that
/// apply to every persona. The default reproduces the personas exactly as they always were.
///
/// ```swift
/// var variant = SimulationVariant()
/// variant.location = .changeOnly
/// variant.recordsScreenOn = false
/// variant.stackSize = 3          // one stack of the person's three first widgets
/// variant.description            // "location=change-only,screen_on=off,stack_size=3"
/// ```
public struct SimulationVariant: Sendable, Hashable, CustomStringConvertible {
    /// How location is reported.
    public var location: LocationReporting = .dense
    /// Whether `screen_on` and `widget_impression` events are written. Without them the data
    /// looks like a usage-statistics recorder's: the only engagements written are `app_launch`
    /// events (no taps, no swipes), and the ground truth is given at each launch of a stacked
    /// widget's app, the evaluator's decision points for such data.
    public var recordsScreenOn = true
    /// `nil`: the persona's own stacks. A number: one stack, `home`, of that many widgets — the
    /// first of the person's own widgets in their order, then extra widgets with their own
    /// habits when the persona has fewer. Needs of widgets left out are met by launching their
    /// app directly, which no stack counts.
    public var stackSize: Int?
    /// Who decides what is shown on top and logs it (``SimulationLogger``).
    public var logger: SimulationLogger = .timeOfDay
    /// The policy of the `engine` logger (default: ``SimulationLogger/defaultEnginePolicy``).
    public var loggerPolicy: String?
    /// Days of app use written before the stacks are configured (default 0): the history a
    /// phone's usage statistics hold when the stack is installed. The person lives these days by
    /// their own habits, but only their `app_launch` events are written (no `screen_on`,
    /// impressions, places, fixes, context or hints, and no ground truth: nothing can be decided
    /// before the stacks exist). They come from generators of their own, so every day from the
    /// stacks' configuration on is the same as without them (except under the `engine` logger,
    /// which learns from them as a phone's engine would).
    public var backfillDays = 0

    /// The smallest and largest `stackSize`.
    public static let stackSizes = 2...16
    /// The largest `backfillDays`.
    public static let maximumBackfillDays = 3650

    /// The default variant: dense location, `screen_on` recorded, the persona's own stacks.
    public init() {}

    /// Whether this is the default variant.
    public var isDefault: Bool { self == SimulationVariant() }

    /// `location=...,screen_on=...,stack_size=...`, leaving out what is at its default
    /// (`default` when everything is).
    public var description: String {
        var parts: [String] = []
        if location != .dense { parts.append("location=" + location.rawValue) }
        if !recordsScreenOn { parts.append("screen_on=off") }
        if let stackSize { parts.append("stack_size=\(stackSize)") }
        if logger != .timeOfDay { parts.append("logger=" + logger.rawValue) }
        if let loggerPolicy { parts.append("logger_policy=" + loggerPolicy) }
        if backfillDays != 0 { parts.append("backfill_days=\(backfillDays)") }
        return parts.isEmpty ? "default" : parts.joined(separator: ",")
    }

    /// The `engine` logger's policy, parsed and checked by the engine.
    /// - Throws: ``SimulationError`` naming the policy when it is not one the engine runs.
    public func engineLoggerPolicy() throws(SimulationError) -> PolicySpec {
        let text = loggerPolicy ?? SimulationLogger.defaultEnginePolicy
        do {
            let spec = try PolicySpec(parsing: text)
            _ = try UserEngine(user: "check", policy: spec)
            return spec
        } catch {
            throw SimulationError("logger policy '\(text)': \(error)")
        }
    }

    /// Checks the stack size, the backfill and the logger's policy.
    /// - Throws: ``SimulationError`` when the stack size is outside ``stackSizes``, the backfill
    ///   is negative or longer than ``maximumBackfillDays``, a logger policy is given to another
    ///   logger than `engine`, or the engine cannot run it.
    public func validate() throws(SimulationError) {
        guard (0...Self.maximumBackfillDays).contains(backfillDays) else {
            throw SimulationError("backfill days must be from 0 to \(Self.maximumBackfillDays), got \(backfillDays)")
        }
        if let stackSize, !Self.stackSizes.contains(stackSize) {
            throw SimulationError("stack size must be from \(Self.stackSizes.lowerBound) to \(Self.stackSizes.upperBound), got \(stackSize)")
        }
        if loggerPolicy != nil, logger != .engine {
            throw SimulationError("a logger policy is for the engine logger only (the logger is '\(logger.rawValue)')")
        }
        if logger == .engine { _ = try engineLoggerPolicy() }
    }
}
