import Foundation
import SmartStackDatasets
import Testing

/// The conformance scenarios (`Conformance/scenarios.jsonl`, format in `Conformance/README.md`)
/// as the Swift runners read them: a JSON value type (Sendable, so threads may share a step), the
/// scenarios, and the check of an outcome against a step's expectation, shared by the Swift door
/// and the command-line door.
indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// As written, so that an int64 of nanoseconds loses nothing.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields.first { $0.key == key }?.value }
        return nil
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    var int: Int? { if case .number(let n) = self { Int(n) } else { nil } }
    var bool: Bool? { if case .bool(let b) = self { b } else { nil } }

    /// Parses one JSON text (the scenario lines, the engine's answers).
    static func parse(_ text: String) throws -> JSONValue {
        var parser = Parser(bytes: Array(text.utf8))
        let value = try parser.value()
        parser.space()
        guard parser.at == parser.bytes.count else { throw parser.failure("text after the value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var at = 0

        func failure(_ what: String) -> ConformanceFailure { ConformanceFailure("JSON: \(what) at byte \(at)") }

        mutating func space() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func value() throws -> JSONValue {
            space()
            guard at < bytes.count else { throw failure("unexpected end") }
            switch bytes[at] {
            case UInt8(ascii: "{"):
                at += 1
                var fields: [(key: String, value: JSONValue)] = []
                space()
                if bytes[at] == UInt8(ascii: "}") { at += 1; return .object(fields) }
                while true {
                    space()
                    let key = try string()
                    space()
                    guard bytes[at] == UInt8(ascii: ":") else { throw failure("no colon") }
                    at += 1
                    fields.append((key, try value()))
                    space()
                    if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                    guard bytes[at] == UInt8(ascii: "}") else { throw failure("bad separator") }
                    at += 1
                    return .object(fields)
                }
            case UInt8(ascii: "["):
                at += 1
                var items: [JSONValue] = []
                space()
                if bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
                while true {
                    items.append(try value())
                    space()
                    if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                    guard bytes[at] == UInt8(ascii: "]") else { throw failure("bad separator") }
                    at += 1
                    return .array(items)
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"): at += 4; return .bool(true)
            case UInt8(ascii: "f"): at += 5; return .bool(false)
            case UInt8(ascii: "n"): at += 4; return .null
            default:
                let start = at
                while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
                guard at > start else { throw failure("unexpected character") }
                return .number(String(decoding: bytes[start..<at], as: UTF8.self))
            }
        }

        /// A string literal, read by the scalar reader the package's line readers share.
        mutating func string() throws -> String {
            guard bytes[at] == UInt8(ascii: "\"") else { throw failure("expected a string") }
            at += 1
            switch JSONScalars.string(bytes, at: &at) {
            case .success(let text): return text
            case .failure(let why): throw failure(why.message)
            }
        }
    }

    /// The value as JSON text; `{"float": "nan"}` is written as the token JSON lacks, and `{i}`
    /// in strings is replaced by `index` (a thread step's repetition).
    func jsonText(index: Int? = nil) -> String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n
        case .string(let s):
            var out = "\""
            for scalar in (index.map { s.replacingOccurrences(of: "{i}", with: String($0)) } ?? s).unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        case .array(let items): return "[" + items.map { $0.jsonText(index: index) }.joined(separator: ",") + "]"
        case .object(let fields):
            if let special = self["float"]?.string {
                return special == "nan" ? "NaN" : special == "-inf" ? "-Infinity" : "Infinity"
            }
            return "{" + fields.map { JSONValue.string($0.key).jsonText() + ":" + $0.value.jsonText(index: index) }.joined(separator: ",") + "}"
        }
    }
}

struct ConformanceFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A step's input the door cannot express; the reason says why.
struct Inexpressible: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What a step did, in the terms every door's check uses.
enum StepOutcome {
    /// Refused: the kind (a `SMARTSTACK_ERROR_*` name, without the prefix) and the message.
    case refused(kind: String, message: String)
    /// A decision (`top` nil: nothing eligible) or a ranking (`top` its first widget).
    case answer(top: String?, order: [String], rotated: Bool?)
    case recorded(inserted: Int, duplicates: Int)
    case deleted(Int)
    case done
}

enum Conformance {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Every scenario of `Conformance/scenarios.jsonl`, in order.
    static func scenarios() throws -> [JSONValue] {
        let text = try String(contentsOf: root.appendingPathComponent("Conformance/scenarios.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    /// The failures of `outcome` against the step's expectation (none: it conforms).
    /// `kinds` translates an expected kind for a door that reports another for the same refusal.
    static func check(_ outcome: StepOutcome, against step: JSONValue, where place: String,
                      checksMessage: Bool = true, countsRecords: Bool = true) -> [String] {
        let expect = step["expect"] ?? .object([])
        var failures: [String] = []
        switch outcome {
        case let .refused(kind, message):
            guard let expected = expect["error"]?.string else {
                return ["\(place): expected success, got \(kind): \(message.prefix(300))"]
            }
            if kind != expected { failures.append("\(place): expected \(expected), got \(kind): \(message.prefix(300))") }
            if checksMessage {
                for fragment in expect["message"]?.array ?? [] where !message.contains(fragment.string!) {
                    failures.append("\(place): the message lacks '\(fragment.string!)': \(message.prefix(300))")
                }
            }
        case let .answer(top, order, rotated):
            if let expected = expect["error"]?.string { return ["\(place): expected \(expected), but the call succeeded"] }
            if let expected = expect["top"], expected != (top.map(JSONValue.string) ?? .null) {
                failures.append("\(place): top \(top ?? "null"), expected \(expected.jsonText()) (order \(order))")
            }
            if let expected = expect["order"]?.array, expected.map(\.string) != order.map(Optional.some) {
                failures.append("\(place): order \(order), expected \(expected.map { $0.string ?? "?" })")
            }
            if let expected = expect["count"]?.int, expected != order.count {
                failures.append("\(place): \(order.count) widgets, expected \(expected)")
            }
            if let expected = expect["rotated"]?.bool, let rotated, expected != rotated {
                failures.append("\(place): rotated \(rotated), expected \(expected)")
            }
        case let .recorded(inserted, duplicates):
            if let expected = expect["error"]?.string { return ["\(place): expected \(expected), but the call succeeded"] }
            if countsRecords, let expected = expect["inserted"]?.int, (inserted, duplicates) != (expected, expect["duplicates"]!.int!) {
                failures.append("\(place): recorded \(inserted) and \(duplicates) duplicates, expected \(expected) and \(expect["duplicates"]!.int!)")
            }
        case .deleted(let count):
            if let expected = expect["error"]?.string { return ["\(place): expected \(expected), but the call succeeded"] }
            if let expected = expect["deleted"]?.int, expected != count { failures.append("\(place): deleted \(count), expected \(expected)") }
        case .done:
            if let expected = expect["error"]?.string { return ["\(place): expected \(expected), but the call succeeded"] }
        }
        return failures
    }

    /// A text value as bytes: a string, `{"hex"}`, `{"repeat","count"}`, `{"concat":[...]}`.
    static func bytes(_ value: JSONValue, index: Int? = nil) throws -> [UInt8] {
        if let s = value.string { return Array((index.map { s.replacingOccurrences(of: "{i}", with: String($0)) } ?? s).utf8) }
        if value["wrong_type"] != nil { throw Inexpressible("a value of another type: Swift's compiler refuses it") }
        if let hex = value["hex"]?.string {
            var out: [UInt8] = []
            var i = hex.startIndex
            while i < hex.endIndex {
                let next = hex.index(i, offsetBy: 2)
                out.append(UInt8(hex[i..<next], radix: 16)!)
                i = next
            }
            return out
        }
        if let repeated = value["repeat"]?.string, let count = value["count"]?.int {
            return Array(String(repeating: repeated, count: count).utf8)
        }
        if let parts = value["concat"]?.array { return try parts.flatMap { try bytes($0, index: index) } }
        throw ConformanceFailure("unknown value \(value.jsonText())")
    }

    /// A name as a Swift String: never nil and always valid UTF-8.
    static func name(_ value: JSONValue?) throws -> String {
        guard let value, value != .null else { throw Inexpressible("NULL: a Swift String is never nil") }
        if let s = value.string { return s }
        let raw = try bytes(value)
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw Inexpressible("bytes that are not UTF-8: a Swift String is always valid UTF-8")
        }
        return text
    }

    /// The JSONL text of a step's `events` (one line each) or its `jsonl`.
    static func batch(_ step: JSONValue, index: Int? = nil) throws -> [UInt8] {
        if let jsonl = step["jsonl"] { return try bytes(jsonl, index: index) }
        guard let events = step["events"]?.array else { throw Inexpressible("a value of another type: Swift's compiler refuses it") }
        if events.contains(where: { $0["wrong_type"] != nil }) { throw Inexpressible("a value of another type: Swift's compiler refuses it") }
        return Array(events.map { $0.jsonText(index: index) + "\n" }.joined().utf8)
    }
}
