import SmartStack

/// What to simulate: a persona, how many users and days, the seed, the first date and the
/// recording variant.
///
/// ```swift
/// let options = try SimulationOptions(persona: .commuter, days: 28, users: 3, seed: 1)
/// options.userName(0)   // "commuter-00"
/// ```
public struct SimulationOptions: Sendable, Hashable {
    /// The persona simulated.
    public var persona: Persona
    /// Days simulated per user (> 0).
    public var days: Int
    /// Users simulated (> 0).
    public var users: Int
    /// The seed; with the other options it determines every byte of the output.
    public var seed: UInt64
    /// The first local date, as days since 1970-01-01.
    public var startDay: Int
    /// What the recorder writes and how stacks are laid out (default: as the persona always was).
    public var variant: SimulationVariant

    /// 2026-01-05, a Monday: the default first date.
    public static let defaultStartDay = 20_458

    /// Validated options.
    /// - Throws: ``SimulationError`` when `days` or `users` is not positive, or the variant's
    ///   stack size is out of range.
    public init(persona: Persona, days: Int, users: Int = 1, seed: UInt64, startDay: Int = SimulationOptions.defaultStartDay,
                variant: SimulationVariant = SimulationVariant()) throws(SimulationError) {
        guard days > 0 else { throw SimulationError("days must be a positive number, got \(days)") }
        guard users > 0 else { throw SimulationError("users must be a positive number, got \(users)") }
        guard days <= 36_500 else { throw SimulationError("days must be at most 36500, got \(days)") }
        guard users <= 1_000_000 else { throw SimulationError("users must be at most 1000000, got \(users)") }
        try variant.validate()
        self.persona = persona
        self.days = days
        self.users = users
        self.seed = seed
        self.startDay = startDay
        self.variant = variant
    }

    /// The id of user `index`: the persona's name, a dash, the index zero-padded to at least two
    /// digits (`commuter-00`, `commuter-01`, ...; `commuter-100` when there are over 100 users).
    public func userName(_ index: Int) -> String {
        let width = max(2, String(users - 1).count)
        let digits = String(index)
        return persona.rawValue + "-" + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Parses a date `YYYY-MM-DD` into days since 1970-01-01.
    /// - Throws: ``SimulationError`` for anything else or an impossible date.
    public static func startDay(parsing text: String) throws(SimulationError) -> Int {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else {
            throw SimulationError("start date must look like 2026-01-05, got '\(text)'")
        }
        do {
            return try EventTime(rfc3339: text + "T00:00:00Z").localDayNumber
        } catch {
            throw SimulationError("start date '\(text)' does not exist: \(error.message)")
        }
    }
}

/// A problem with simulation options, worded for a person.
public struct SimulationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
