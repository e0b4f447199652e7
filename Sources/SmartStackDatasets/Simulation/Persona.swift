import SmartStack

/// The kinds of people the simulator can generate, each a parameterised model of a routine.
///
/// ```swift
/// Persona(rawValue: "commuter")?.summary
/// Persona.allCases.map(\.rawValue)
/// // ["commuter", "student", "shiftworker", "traveler", "drift", "sequence", "structureless", "cohort"]
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
    /// Work routines of short steps ("dashboard, then tickets, then chat"): the next need follows
    /// from the last engagements and changes every few minutes.
    case sequence
    /// Use from fixed popularities, with no time, place or sequence structure at all.
    case structureless
    /// A group of different people (commuter, student, shift worker, sequence-driven worker,
    /// structureless, drift, then again), for a short recording of several people at once.
    case cohort

    /// One line describing who the persona simulates.
    public var summary: String {
        switch self {
        case .commuter: "office worker with a commute: calendar before work, maps on the commute, weather at midday, notes in the evening"
        case .student: "university student: weekly class timetable, library, dining hall, gym"
        case .shiftworker: "hospital worker on a 10-day rotation of early, late and night shifts that ignores the week"
        case .traveler: "office worker who flies abroad partway through: new places, a UTC offset change, then home"
        case .drift: "a routine that changes for good partway through (new job, new habits, a new widget)"
        case .sequence: "operations engineer whose work comes in short routines (dashboard, then tickets, then chat): the next need follows from the last ones, every few minutes"
        case .structureless: "use from fixed popularities: no time, place or sequence structure (counting is the best policy)"
        case .cohort: "a group of different people (user i: commuter, student, shiftworker, sequence, structureless, drift, in turn), e.g. one day of six"
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
        case .sequence: 0x5E
        case .structureless: 0x57_0C
        case .cohort: 0xC5
        }
    }

    /// The personas a cohort's users take in turn.
    static let cohortMembers: [Persona] = [.commuter, .student, .shiftworker, .sequence, .structureless, .drift]

    func makeModel(days: Int, userIndex: Int, rng: inout SimulationRandom) -> any PersonaModel {
        switch self {
        case .commuter: CommuterModel(rng: &rng)
        case .student: StudentModel(rng: &rng)
        case .shiftworker: ShiftworkerModel(rng: &rng)
        case .traveler: TravelerModel(days: days, rng: &rng)
        case .drift: DriftModel(days: days, rng: &rng)
        case .sequence: SequenceWorkerModel(rng: &rng)
        case .structureless: StructurelessModel(rng: &rng)
        case .cohort: Self.cohortMembers[userIndex % Self.cohortMembers.count].makeModel(days: days, userIndex: userIndex, rng: &rng)
        }
    }
}
