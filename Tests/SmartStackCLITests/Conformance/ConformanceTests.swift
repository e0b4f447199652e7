import Foundation
import SmartStack
import Synchronization
import Testing

/// The conformance scenarios (`Conformance/scenarios.jsonl`) through the Swift door, `Engine`,
/// and the command-line door (`ConformanceTests+CommandLine.swift`). The C, Python and Java doors
/// run the same file (`Conformance/c`, `Conformance/python`, `Conformance/java`; `swift test`
/// runs them through `SmartStackCTests`, CI also through `.ci/bindings.sh`).
@Suite struct ConformanceTests {
    @Test func everyScenarioThroughTheSwiftDoor() throws {
        let scenarios = try Conformance.scenarios()
        #expect(scenarios.count >= 40)
        var failures: [String] = []
        var skipped: [String] = []
        for scenario in scenarios {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            var runner = try SwiftDoor(scenario, directory: directory)
            failures += runner.run(skipped: &skipped)
        }
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
        // What Swift cannot be given: NULL, bytes that are not UTF-8, a value of another type.
        #expect(skipped.allSatisfy { $0.contains("never nil") || $0.contains("always valid UTF-8") || $0.contains("another type")
                    || $0.contains("no EventTime holds") },
                "\(skipped.joined(separator: "\n"))")
        print("conformance (Swift door): \(scenarios.count) scenarios, \(skipped.count) steps not expressible in Swift")
    }
}

/// One scenario through `Engine`, as a Swift host calls it.
struct SwiftDoor {
    let scenario: JSONValue
    let path: String
    let policy: PolicySpec?
    let rotation: RotationParameters?
    let seed: UInt64
    /// Replaced by a reopen step.
    var engine: Engine

    init(_ scenario: JSONValue, directory: TemporaryDirectory) throws {
        self.scenario = scenario
        let open = scenario["open"] ?? .object([])
        path = open["file"]?.bool == true ? directory.file("conformance.sqlite") : ":memory:"
        policy = try open["policy"]?.string.map { try PolicySpec(parsing: $0) }
        rotation = try open["rotation"]?.string.map { try RotationParameters(parsing: $0) }
        seed = UInt64(open["seed"]?.int ?? 0)
        engine = try Self.open(path, policy, rotation, seed)
    }

    static func open(_ path: String, _ policy: PolicySpec?, _ rotation: RotationParameters?, _ seed: UInt64) throws -> Engine {
        try Engine(path: path, policy: policy ?? PolicySpec(name: PolicyRegistry.defaultPolicy),
                   rotation: rotation ?? RotationParameters(), seed: seed)
    }

    /// The contract's kind of a Swift error (docs/contract.md, "Errors").
    static func kind(of error: any Error) -> (String, String) {
        switch error {
        case let error as EngineError:
            let kind = switch error.kind {
            case .unknownPolicy, .invalidParameter: "INVALID_POLICY"
            case .unknownStack: "UNKNOWN_STACK"
            case .unknownUser: "UNKNOWN_USER"
            case .invalidConfiguration, .invalidArgument, .invalidHistory, .invalidPrior: "INVALID_ARGUMENT"
            case .invalidEvent: "INVALID_EVENT"
            case .invalidSnapshot: "STORAGE"
            case .closed: "CLOSED"
            }
            return (kind, error.message)
        case let error as JSONLError: return ("INVALID_EVENT", error.description)
        case let error as StoreError:
            return (error.kind == .busy ? "BUSY" : error.kind == .invalidEvent ? "INVALID_EVENT" : "STORAGE", error.description)
        default: return ("INTERNAL", "\(error)")
        }
    }

    static func instant(_ value: JSONValue?) throws -> EventTime {
        guard let value else { throw ConformanceFailure("no instant") }
        if let text = value.string {
            // Like C's int64, an EventTime is nanoseconds since 1970 in an Int64: the text of an
            // instant it cannot hold is refused by EventTime(rfc3339:) before any engine call.
            do { return try EventTime(rfc3339: text) } catch {
                throw Inexpressible("an instant no EventTime holds (\(error.message))")
            }
        }
        if value["wrong_type"] != nil { throw Inexpressible("a value of another type: Swift's compiler refuses it") }
        return EventTime(nanosecondsSinceEpoch: Int64(value["unix_ns"]!.string!)!, utcOffsetSeconds: Int32(value["offset"]!.int!))
    }

    /// The step's call as a Swift host writes it (a reopen step is the runner's own).
    static func call(_ step: JSONValue, on engine: Engine, index: Int?) throws -> StepOutcome {
        switch step["call"]!.string! {
        case "configure":
            guard let widgets = step["widgets"]?.array else { throw Inexpressible("a value of another type: Swift's compiler refuses it") }
            let user = try Conformance.name(step["user"]), stack = try Conformance.name(step["stack"])
            let configs = try widgets.map { w in
                WidgetConfig(id: try Conformance.name(w["id"]), app: try w["app"].flatMap { $0 == .null ? nil : try Conformance.name($0) })
            }
            try engine.configure(stack: stack, widgets: configs, user: user, at: try Self.instant(step["at"]))
            return .done
        case "record":
            let text = try Conformance.batch(step, index: index)
            if step["jsonl"] != nil {
                let result = try engine.record(jsonl: text)
                return .recorded(inserted: result.inserted, duplicates: result.duplicates)
            }
            // Events built in Swift: read from their JSON text here (a host builds `Event`s), then
            // recorded through `record(_:)`, which checks each as the format would.
            var reader = JSONLReader(bytes: text, name: "<events>")
            var events: [Event] = []
            if !text.isEmpty { while let event = try reader.next() { events.append(event) } }
            let result = try engine.record(events)
            return .recorded(inserted: result.inserted, duplicates: result.duplicates)
        case let pin where pin == "pin" || pin == "unpin":
            let stack = step["stack"]!.string!, widget = step["widget"]!.string!
            let result = try engine.record([Event(time: try Self.instant(step["at"]), user: step["user"]!.string!,
                                                  payload: pin == "pin" ? .widgetPin(stack: stack, widget: widget)
                                                      : .widgetUnpin(stack: stack, widget: widget))])
            return .recorded(inserted: result.inserted, duplicates: result.duplicates)
        case "decide":
            let decision = try engine.decide(stack: try Conformance.name(step["stack"]), user: try Conformance.name(step["user"]),
                                             at: try Self.instant(step["at"]), explained: step["explain"]?.bool ?? true)
            return .answer(top: decision.top, order: decision.ranking.widgets.map(\.widget), rotated: decision.didRotate)
        case "rank":
            let ranking = try engine.ranking(stack: try Conformance.name(step["stack"]), user: try Conformance.name(step["user"]),
                                             at: try Self.instant(step["at"]), explained: step["explain"]?.bool ?? true)
            return .answer(top: ranking.widgets.first?.widget, order: ranking.widgets.map(\.widget), rotated: nil)
        case "forget": return .deleted(try engine.erase(user: try Conformance.name(step["user"])))
        case "erase": return .deleted(try engine.erase(app: try Conformance.name(step["app"])).deletedEvents)
        case "flush": try engine.flush(); return .done
        case "close": try engine.close(); return .done
        case "open":
            let policy = try step["policy"]?.string.map { try PolicySpec(parsing: $0) }
            let rotation = try step["rotation"]?.string.map { try RotationParameters(parsing: $0) }
            try Self.open(":memory:", policy, rotation, 0).close()
            return .done
        case let other: throw ConformanceFailure("unknown call \(other)")
        }
    }

    static func outcome(_ step: JSONValue, on engine: Engine, index: Int?) throws(Inexpressible) -> StepOutcome {
        do {
            return try call(step, on: engine, index: index)
        } catch let error as Inexpressible {
            throw error
        } catch {
            let (kind, message) = Self.kind(of: error)
            return .refused(kind: kind, message: message)
        }
    }

    mutating func run(skipped: inout [String]) -> [String] {
        let name = scenario["name"]!.string!
        var failures: [String] = []
        defer { try? engine.close() }
        for (number, step) in scenario["steps"]!.array!.enumerated() {
            let place = "\(name) step \(number + 1) (\(step["call"]!.string!))"
            if step["call"]!.string! == "threads" {
                failures += Self.threads(step, on: engine, where: place)
                continue
            }
            if step["call"]!.string! == "reopen" {
                do {
                    try engine.close()
                    engine = try Self.open(path, policy, rotation, seed)
                } catch {
                    failures.append("\(place): \(error)")
                }
                continue
            }
            do {
                failures += Conformance.check(try Self.outcome(step, on: engine, index: nil), against: step, where: place)
            } catch {
                skipped.append("\(place): \(error)")
                if step["expect"]?["error"] == nil { break }
            }
        }
        return failures
    }

    /// `count` threads each run the steps `repeat` times on the one engine.
    static func threads(_ step: JSONValue, on engine: Engine, where place: String) -> [String] {
        let totals = Mutex((inserted: 0, duplicates: 0, failures: [String]()))
        let steps = step["steps"]!.array!, repeats = step["repeat"]!.int!
        DispatchQueue.concurrentPerform(iterations: step["count"]!.int!) { thread in
            for i in 0..<repeats {
                for (k, inner) in steps.enumerated() {
                    let here = "\(place) thread \(thread) step \(k + 1) #\(i)"
                    do {
                        let outcome = try Self.outcome(inner, on: engine, index: i)
                        let failed = Conformance.check(outcome, against: inner, where: here, countsRecords: false)
                        totals.withLock { t in
                            t.failures += failed
                            if case let .recorded(inserted, duplicates) = outcome { t.inserted += inserted; t.duplicates += duplicates }
                        }
                    } catch {
                        totals.withLock { $0.failures.append("\(here): not expressible: \(error)") }
                    }
                }
            }
        }
        return totals.withLock { t in
            var failures = t.failures
            if let inserted = step["expect"]?["inserted"]?.int, let duplicates = step["expect"]?["duplicates"]?.int,
               (t.inserted, t.duplicates) != (inserted, duplicates) {
                failures.append("\(place): the threads recorded \(t.inserted) and \(t.duplicates) duplicates, expected \(inserted) and \(duplicates)")
            }
            return failures
        }
    }
}
