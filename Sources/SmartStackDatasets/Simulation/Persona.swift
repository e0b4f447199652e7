import SmartStack

/// The kinds of people the simulator can generate, each a parameterised model of a routine.
///
/// ```swift
/// Persona(rawValue: "commuter")?.summary
/// Persona.allCases.map(\.rawValue)   // ["commuter", "student", "shiftworker", "traveler", "drift"]
/// ```
public enum Persona: String, Sendable, Hashable, CaseIterable {
    /// Office worker: calendar before work, maps on the commute, weather at midday, notes in the evening.
    case commuter
    /// University student: class timetable, library, dining hall, gym.
    case student
    /// Hospital shift worker on a 10-day rotation (early, late, night, off) that ignores the week.
    case shiftworker
    /// A person flying abroad partway through: new places and a UTC offset change, then back.
    case traveler
    /// A routine that changes for good partway through (new job, new habits, a new widget).
    case drift

    /// One line describing who the persona simulates.
    public var summary: String {
        switch self {
        case .commuter: "office worker with a commute: calendar before work, maps on the commute, weather at midday, notes in the evening"
        case .student: "university student: weekly class timetable, library, dining hall, gym"
        case .shiftworker: "hospital worker on a 10-day rotation of early, late and night shifts that ignores the week"
        case .traveler: "office worker who flies abroad partway through: new places, a UTC offset change, then home"
        case .drift: "a routine that changes for good partway through (new job, new habits, a new widget)"
        }
    }

    /// Every persona name, comma-separated, for help and error messages.
    public static var namesList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    var seedSalt: UInt64 {
        switch self {
        case .commuter: 0xC0
        case .student: 0x57
        case .shiftworker: 0x5F
        case .traveler: 0x7A
        case .drift: 0xD1
        }
    }

    func makeModel(days: Int, rng: inout SimulationRandom) -> any PersonaModel {
        switch self {
        case .commuter: CommuterModel(rng: &rng)
        case .student: StudentModel(rng: &rng)
        case .shiftworker: ShiftworkerModel(rng: &rng)
        case .traveler: TravelerModel(days: days, rng: &rng)
        case .drift: DriftModel(days: days, rng: &rng)
        }
    }
}
