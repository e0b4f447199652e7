// Internal: the byte-level parser of one SmartStack JSONL v1 line.
//
// Pass one walks the whole object once, checking JSON syntax (strings, escapes, UTF-8, numbers,
// nesting) and remembering where the value of each known key is. Pass two reads the type, then
// decodes and validates only the fields that type uses. Unknown keys (and known keys the type
// does not use) are syntax-checked and otherwise ignored.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why one line is invalid, located by a 0-based byte offset inside the line.
struct JSONLLineFailure: Error {
    /// 0-based byte offset inside the line.
    var offset: Int
    /// The field concerned, if any.
    var field: String?
    /// What is wrong (already prefixed with the field when there is one).
    var message: String
    /// The parser ran out of bytes (the line stops in the middle of the object).
    var reachedEnd = false
}

/// The keys SmartStack JSONL v1 gives a meaning to.
enum JSONLField: Int, CaseIterable {
    case time, type, user, id, app, stack, widgets, widget, propensity, policy
    case from, to, lat, lon, accuracy, place, key, value, score, duration

    /// The number of cases (`allCases.count` without building the array).
    static let count = 20

    var name: String {
        switch self {
        case .time: "time"
        case .type: "type"
        case .user: "user"
        case .id: "id"
        case .app: "app"
        case .stack: "stack"
        case .widgets: "widgets"
        case .widget: "widget"
        case .propensity: "propensity"
        case .policy: "policy"
        case .from: "from"
        case .to: "to"
        case .lat: "lat"
        case .lon: "lon"
        case .accuracy: "accuracy"
        case .place: "place"
        case .key: "key"
        case .value: "value"
        case .score: "score"
        case .duration: "duration"
        }
    }
}

/// The JSON kind of a value.
enum JSONValueKind: UInt8 {
    case absent, string, number, trueLiteral, falseLiteral, null, array, object

    /// `a string`, `an array`, ... for messages.
    var phrase: String {
        switch self {
        case .absent: "nothing"
        case .string: "a string"
        case .number: "a number"
        case .trueLiteral: "true"
        case .falseLiteral: "false"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Where a value is inside the line.
struct JSONValueSpan {
    /// Offset of the value's first byte (the opening quote of a string).
    var valueStart: Int
    /// Content start: after the opening quote for strings, else `valueStart`.
    var start: Int
    /// Content end (exclusive): the closing quote for strings, else one past the value.
    var end: Int
    var kind: JSONValueKind
    /// The string contains backslash escapes (decoding needs a copy).
    var isEscaped: Bool
    /// Offset of the key (for duplicate-key messages).
    var keyStart: Int

    static let absent = JSONValueSpan(valueStart: 0, start: 0, end: 0, kind: .absent, isEscaped: false, keyStart: 0)
}

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

@inline(__always)
private func isWhitespace(_ c: UInt8) -> Bool {
    c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A
}

@inline(__always)
private func isDigit(_ c: UInt8) -> Bool { c &- 48 < 10 }

@inline(__always)
private func bytesEqual(_ p: UnsafePointer<UInt8>, _ s: StaticString) -> Bool {
    memcmp(p, s.utf8Start, s.utf8CodeUnitCount) == 0
}

/// A byte shown in a message: `'x'` for printable ASCII, else `byte 0xNN`.
func describeByte(_ c: UInt8) -> String {
    if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
    if c == 0x20 { return "a space" }
    let hex = String(c, radix: 16, uppercase: true)
    return "byte 0x\(c < 16 ? "0" : "")\(hex)"
}

/// Powers of ten exactly representable as a `Double`.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// Owns the per-field slots of a parser (freed with the last copy of the parser).
private final class JSONLSlotStorage {
    let slots: UnsafeMutablePointer<JSONValueSpan>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: .absent, count: count)
    }

    deinit { slots.deallocate() }
}

/// Which key a value belongs to, for messages (built into a name only when something is wrong).
struct JSONKeyContext {
    /// The known field, if the key is one.
    var field: JSONLField?
    /// Offsets of the key's opening and closing quotes; `start < 0` when there is no key (an
    /// array element).
    var start: Int
    var end: Int
    var isEscaped: Bool
    /// The index inside `widgets` when the value is (inside) a widget, else -1.
    var widgetIndex: Int

    static func top(_ field: JSONLField?, _ start: Int, _ end: Int, _ isEscaped: Bool) -> JSONKeyContext {
        JSONKeyContext(field: field, start: start, end: end, isEscaped: isEscaped, widgetIndex: -1)
    }
}

/// Parses one line into an `Event`. Reused across lines (it keeps scratch buffers); not thread-safe.
struct JSONLLineParser {
    /// Deepest nesting accepted in ignored values (the event itself uses 3 levels).
    static let maximumDepth = 64

    private let storage = JSONLSlotStorage(count: JSONLField.count)
    private let slots: UnsafeMutablePointer<JSONValueSpan>
    /// Bit `k` set when `slots[k]` holds this line's value of field `k` (others are stale).
    private var presentFields: UInt32 = 0
    private var scratch: [UInt8] = []
    private var unknownKeys: [[UInt8]] = []

    /// Where this line's value of `field` is, or `.absent`.
    @inline(__always)
    private func slot(_ field: JSONLField) -> JSONValueSpan {
        presentFields & (1 << UInt32(field.rawValue)) != 0 ? slots[field.rawValue] : .absent
    }

    init() {
        slots = storage.slots
        scratch.reserveCapacity(256)
    }

    /// The field name of `key` for messages: `lat`, `widgets[2].id`, or the unknown key's text.
    private func name(_ key: JSONKeyContext, _ b: UnsafeBufferPointer<UInt8>) -> String {
        var text: String
        if let field = key.field {
            text = field.name
        } else if key.start >= 0 {
            text = keyName(b, key.start, key.end, key.isEscaped)
        } else {
            text = ""
        }
        if key.widgetIndex >= 0 {
            text = text.isEmpty ? "widgets[\(key.widgetIndex)]" : "widgets[\(key.widgetIndex)].\(text)"
        }
        return text
    }

    // MARK: - Pass one: syntax

    /// Parses `b`, one line without its newline.
    mutating func parse(_ b: UnsafeBufferPointer<UInt8>) throws(JSONLLineFailure) -> Event {
        let n = b.count
        presentFields = 0
        if !unknownKeys.isEmpty { unknownKeys.removeAll(keepingCapacity: true) }

        var i = skipWhitespace(b, 0)
        guard i < n else { throw JSONLLineFailure(offset: i, message: "line is blank", reachedEnd: true) }
        guard b[i] == UInt8(ascii: "{") else {
            throw JSONLLineFailure(offset: i, message: "expected '{' but found \(describeByte(b[i])): each line must be one JSON object")
        }
        i = skipWhitespace(b, i + 1)
        if i < n, b[i] == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                guard i < n else { throw endOfLine(i, "expected a key in double quotes") }
                guard b[i] == quote else {
                    let trailing = b[i] == UInt8(ascii: "}") ? " (a trailing comma is not allowed in JSON)" : ""
                    throw JSONLLineFailure(offset: i, message: "expected a key in double quotes but found \(describeByte(b[i]))\(trailing)")
                }
                let keyStart = i
                let (keyEnd, keyEscaped) = try scanString(b, i + 1, key: nil)
                let field = identifyKey(b, keyStart + 1, keyEnd, escaped: keyEscaped)
                let key = JSONKeyContext.top(field, keyStart, keyEnd, keyEscaped)
                i = skipWhitespace(b, keyEnd + 1)
                guard i < n else { throw endOfLine(i, "expected ':' after key '\(name(key, b))'") }
                guard b[i] == UInt8(ascii: ":") else {
                    throw JSONLLineFailure(offset: i, message: "expected ':' after key '\(name(key, b))' but found \(describeByte(b[i]))")
                }
                i = skipWhitespace(b, i + 1)
                var span = JSONValueSpan.absent
                span.keyStart = keyStart
                i = try scanValue(b, i, into: &span, depth: 1, key: key)
                if let field {
                    let previous = slot(field)
                    guard previous.kind == .absent else {
                        throw JSONLLineFailure(
                            offset: keyStart, field: field.name,
                            message: "duplicate key '\(field.name)' (first at column \(previous.keyStart + 1))")
                    }
                    slots[field.rawValue] = span
                    presentFields |= 1 << UInt32(field.rawValue)
                } else {
                    try rememberUnknownKey(b, key)
                }
                i = skipWhitespace(b, i)
                guard i < n else { throw endOfLine(i, "expected ',' or '}' after a value") }
                if b[i] == UInt8(ascii: ",") {
                    i = skipWhitespace(b, i + 1)
                    continue
                }
                if b[i] == UInt8(ascii: "}") {
                    i += 1
                    break
                }
                throw JSONLLineFailure(offset: i, message: "expected ',' or '}' after a value but found \(describeByte(b[i]))")
            }
        }
        i = skipWhitespace(b, i)
        guard i == n else {
            throw JSONLLineFailure(offset: i, message: "unexpected \(describeByte(b[i])) after the closing '}' (one JSON object per line)")
        }
        return try buildEvent(b)
    }

    private func endOfLine(_ offset: Int, _ what: String) -> JSONLLineFailure {
        JSONLLineFailure(offset: offset, message: "line ends too early: \(what)", reachedEnd: true)
    }

    /// A failure about the value of `key` (message prefixed with the field when there is one).
    private func failure(_ offset: Int, _ key: JSONKeyContext?, _ b: UnsafeBufferPointer<UInt8>, _ text: String,
                         reachedEnd: Bool = false) -> JSONLLineFailure {
        guard let key else { return JSONLLineFailure(offset: offset, message: text, reachedEnd: reachedEnd) }
        let field = name(key, b)
        return JSONLLineFailure(offset: offset, field: field, message: "field '\(field)': \(text)", reachedEnd: reachedEnd)
    }

    @inline(__always)
    private func skipWhitespace(_ b: UnsafeBufferPointer<UInt8>, _ i0: Int) -> Int {
        var i = i0
        while i < b.count, isWhitespace(b[i]) { i += 1 }
        return i
    }

    /// Scans a string whose content starts at `i0` (after the opening quote). Returns the offset
    /// of the closing quote and whether escapes occur. `key` names the value for messages
    /// (`nil` while scanning a key).
    private func scanString(
        _ b: UnsafeBufferPointer<UInt8>, _ i0: Int, key: JSONKeyContext?
    ) throws(JSONLLineFailure) -> (Int, Bool) {
        let n = b.count
        var i = i0
        var escaped = false
        while true {
            guard i < n else {
                throw failure(i, key, b, "unterminated string (missing closing '\"')", reachedEnd: true)
            }
            let c = b[i]
            if c == quote { return (i, escaped) }
            if c >= 0x20 && c < 0x80 && c != backslash {
                i += 1
                continue
            }
            if c == backslash {
                escaped = true
                i = try scanEscape(b, i, key: key)
            } else if c < 0x20 {
                let hex = String(c, radix: 16, uppercase: true)
                throw failure(i, key, b, "control character U+00\(c < 16 ? "0" : "")\(hex) in a string must be escaped (\\n, \\t, \\u00XX)")
            } else {
                i = try scanUTF8Sequence(b, i, key: key)
            }
        }
    }

    /// Validates one multi-byte UTF-8 sequence starting at `i`; returns the offset after it.
    private func scanUTF8Sequence(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, key: JSONKeyContext?) throws(JSONLLineFailure) -> Int {
        let c = b[i]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default:
            throw failure(i, key, b, "invalid UTF-8 (\(describeByte(c)))")
        }
        for k in 1..<length {
            guard i + k < b.count else { throw failure(i, key, b, "invalid UTF-8 (sequence cut short)") }
            let d = b[i + k]
            let lo = k == 1 ? low : 0x80
            let hi = k == 1 ? high : 0xBF
            guard d >= lo && d <= hi else {
                throw failure(i, key, b, "invalid UTF-8 (\(describeByte(c)) followed by \(describeByte(d)))")
            }
        }
        return i + length
    }

    /// Validates the escape at `i` (a backslash); returns the offset after it.
    private func scanEscape(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, key: JSONKeyContext?) throws(JSONLLineFailure) -> Int {
        guard i + 1 < b.count else {
            throw failure(i, key, b, "unterminated string (ends in a backslash)", reachedEnd: true)
        }
        switch b[i + 1] {
        case quote, backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return i + 2
        case UInt8(ascii: "u"):
            let unit = try hex4(b, i + 2, key: key)
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw failure(i, key, b, "lone surrogate \\u\(hexText(unit)) in string (a low surrogate must follow a high one)")
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard i + 7 < b.count, b[i + 6] == backslash, b[i + 7] == UInt8(ascii: "u") else {
                    throw failure(i, key, b, "lone surrogate \\u\(hexText(unit)) in string (a high surrogate must be followed by \\uDC00-\\uDFFF)")
                }
                let second = try hex4(b, i + 8, key: key)
                guard second >= 0xDC00 && second <= 0xDFFF else {
                    throw failure(i, key, b, "lone surrogate \\u\(hexText(unit)) in string (followed by \\u\(hexText(second)), not a low surrogate)")
                }
                return i + 12
            }
            return i + 6
        default:
            let c = b[i + 1]
            throw failure(i, key, b, "invalid escape \(c >= 0x21 && c < 0x7F ? "'\\\(Character(Unicode.Scalar(c)))'" : "(backslash then \(describeByte(c)))") in string")
        }
    }

    private func hex4(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, key: JSONKeyContext?) throws(JSONLLineFailure) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            guard i + k < b.count, let d = hexDigit(b[i + k]) else {
                throw failure(i - 2, key, b, "invalid \\u escape (needs 4 hex digits)", reachedEnd: i + k >= b.count)
            }
            v = v << 4 | d
        }
        return v
    }

    @inline(__always)
    private func hexDigit(_ c: UInt8) -> UInt32? {
        switch c {
        case 48...57: UInt32(c - 48)
        case 65...70: UInt32(c - 55)
        case 97...102: UInt32(c - 87)
        default: nil
        }
    }

    private func hexText(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    /// Scans any JSON value at `i`, records its span, returns the offset after it.
    private func scanValue(
        _ b: UnsafeBufferPointer<UInt8>, _ i: Int, into span: inout JSONValueSpan, depth: Int, key: JSONKeyContext
    ) throws(JSONLLineFailure) -> Int {
        let n = b.count
        guard i < n else { throw endOfLine(i, "expected a value for '\(name(key, b))'") }
        span.valueStart = i
        span.start = i
        let c = b[i]
        switch c {
        case quote:
            let (close, escaped) = try scanString(b, i + 1, key: key)
            span.start = i + 1
            span.end = close
            span.kind = .string
            span.isEscaped = escaped
            return close + 1
        case UInt8(ascii: "-"), 48...57:
            let end = try scanNumber(b, i, key: key)
            span.end = end
            span.kind = .number
            return end
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let end = try skipContainer(b, i, depth: depth, key: key)
            span.end = end
            span.kind = c == UInt8(ascii: "{") ? .object : .array
            return end
        case UInt8(ascii: "t"):
            try literal(b, i, "true", key: key)
            span.end = i + 4
            span.kind = .trueLiteral
            return i + 4
        case UInt8(ascii: "f"):
            try literal(b, i, "false", key: key)
            span.end = i + 5
            span.kind = .falseLiteral
            return i + 5
        case UInt8(ascii: "n"):
            try literal(b, i, "null", key: key)
            span.end = i + 4
            span.kind = .null
            return i + 4
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw failure(i, key, b, "NaN and Infinity are not valid JSON numbers")
        default:
            throw failure(i, key, b, "expected a value but found \(describeByte(c))")
        }
    }

    private func literal(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ word: StaticString, key: JSONKeyContext) throws(JSONLLineFailure) {
        let length = word.utf8CodeUnitCount
        guard i + length <= b.count, bytesEqual(b.baseAddress! + i, word) else {
            throw failure(i, key, b, "invalid value (expected \(word), a number, a string, an array or an object)",
                          reachedEnd: i + length > b.count)
        }
    }

    private func scanNumber(_ b: UnsafeBufferPointer<UInt8>, _ i0: Int, key: JSONKeyContext) throws(JSONLLineFailure) -> Int {
        let n = b.count
        var i = i0
        if b[i] == UInt8(ascii: "-") {
            i += 1
            if i < n, b[i] == UInt8(ascii: "I") {
                throw failure(i0, key, b, "NaN and Infinity are not valid JSON numbers")
            }
        }
        guard i < n, isDigit(b[i]) else { throw failure(i, key, b, "invalid number: expected a digit", reachedEnd: i >= n) }
        if b[i] == UInt8(ascii: "0") {
            i += 1
            if i < n, isDigit(b[i]) { throw failure(i0, key, b, "invalid number: leading zeros are not allowed") }
        } else {
            while i < n, isDigit(b[i]) { i += 1 }
        }
        if i < n, b[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n, isDigit(b[i]) else {
                throw failure(i, key, b, "invalid number: expected a digit after '.'", reachedEnd: i >= n)
            }
            while i < n, isDigit(b[i]) { i += 1 }
        }
        if i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < n, isDigit(b[i]) else {
                throw failure(i, key, b, "invalid number: expected a digit in the exponent", reachedEnd: i >= n)
            }
            while i < n, isDigit(b[i]) { i += 1 }
        }
        return i
    }

    /// Skips an object or array starting at `i`, checking its syntax; returns the offset after it.
    private func skipContainer(_ b: UnsafeBufferPointer<UInt8>, _ i0: Int, depth: Int, key: JSONKeyContext) throws(JSONLLineFailure) -> Int {
        let n = b.count
        guard depth <= Self.maximumDepth else {
            throw failure(i0, key, b, "nested deeper than \(Self.maximumDepth) levels")
        }
        let isObject = b[i0] == UInt8(ascii: "{")
        let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        let closerText = isObject ? "'}'" : "']'"
        var i = skipWhitespace(b, i0 + 1)
        if i < n, b[i] == closer { return i + 1 }
        var inner = JSONValueSpan.absent
        while true {
            if isObject {
                guard i < n else { throw endOfLine(i, "expected a key in double quotes inside '\(name(key, b))'") }
                guard b[i] == quote else {
                    let trailing = b[i] == closer ? " (a trailing comma is not allowed in JSON)" : ""
                    throw failure(i, key, b, "expected a key in double quotes but found \(describeByte(b[i]))\(trailing)")
                }
                let (close, _) = try scanString(b, i + 1, key: key)
                i = skipWhitespace(b, close + 1)
                guard i < n else { throw endOfLine(i, "expected ':' inside '\(name(key, b))'") }
                guard b[i] == UInt8(ascii: ":") else {
                    throw failure(i, key, b, "expected ':' but found \(describeByte(b[i]))")
                }
                i = skipWhitespace(b, i + 1)
            }
            if !isObject, i < n, b[i] == closer {
                throw failure(i, key, b, "expected a value but found ']' (a trailing comma is not allowed in JSON)")
            }
            i = try scanValue(b, i, into: &inner, depth: depth + 1, key: key)
            i = skipWhitespace(b, i)
            guard i < n else { throw endOfLine(i, "expected ',' or \(closerText) inside '\(name(key, b))'") }
            if b[i] == UInt8(ascii: ",") {
                i = skipWhitespace(b, i + 1)
                continue
            }
            if b[i] == closer { return i + 1 }
            throw failure(i, key, b, "expected ',' or \(closerText) but found \(describeByte(b[i]))")
        }
    }

    // MARK: - Keys

    private func identifyKey(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, escaped: Bool) -> JSONLField? {
        if escaped {
            var decoded: [UInt8] = []
            Self.decodeEscaped(b, start, end, into: &decoded)
            return decoded.withUnsafeBufferPointer { identify($0.baseAddress!, $0.count) }
        }
        return identify(b.baseAddress! + start, end - start)
    }

    private func identify(_ p: UnsafePointer<UInt8>, _ length: Int) -> JSONLField? {
        switch length {
        case 2:
            if bytesEqual(p, "id") { return .id }
            if bytesEqual(p, "to") { return .to }
        case 3:
            if bytesEqual(p, "app") { return .app }
            if bytesEqual(p, "lat") { return .lat }
            if bytesEqual(p, "lon") { return .lon }
            if bytesEqual(p, "key") { return .key }
        case 4:
            if bytesEqual(p, "time") { return .time }
            if bytesEqual(p, "type") { return .type }
            if bytesEqual(p, "user") { return .user }
            if bytesEqual(p, "from") { return .from }
        case 5:
            if bytesEqual(p, "stack") { return .stack }
            if bytesEqual(p, "place") { return .place }
            if bytesEqual(p, "value") { return .value }
            if bytesEqual(p, "score") { return .score }
        case 6:
            if bytesEqual(p, "widget") { return .widget }
            if bytesEqual(p, "policy") { return .policy }
        case 7:
            if bytesEqual(p, "widgets") { return .widgets }
        case 8:
            if bytesEqual(p, "accuracy") { return .accuracy }
            if bytesEqual(p, "duration") { return .duration }
        case 10:
            if bytesEqual(p, "propensity") { return .propensity }
        default:
            break
        }
        return nil
    }

    /// The decoded bytes of the key whose quotes are at `keyStart` and `keyEnd`.
    private func keyBytes(_ b: UnsafeBufferPointer<UInt8>, _ keyStart: Int, _ keyEnd: Int, _ escaped: Bool) -> [UInt8] {
        if escaped {
            var decoded: [UInt8] = []
            Self.decodeEscaped(b, keyStart + 1, keyEnd, into: &decoded)
            return decoded
        }
        return Array(UnsafeBufferPointer(rebasing: b[(keyStart + 1)..<keyEnd]))
    }

    /// The key's text (for messages); `keyStart` is its opening quote.
    private func keyName(_ b: UnsafeBufferPointer<UInt8>, _ keyStart: Int, _ keyEnd: Int, _ escaped: Bool) -> String {
        String(decoding: keyBytes(b, keyStart, keyEnd, escaped), as: UTF8.self)
    }

    private mutating func rememberUnknownKey(_ b: UnsafeBufferPointer<UInt8>, _ key: JSONKeyContext) throws(JSONLLineFailure) {
        let bytes = keyBytes(b, key.start, key.end, key.isEscaped)
        if unknownKeys.contains(bytes) {
            let name = String(decoding: bytes, as: UTF8.self)
            throw JSONLLineFailure(offset: key.start, field: name, message: "duplicate key '\(name)'")
        }
        unknownKeys.append(bytes)
    }

    // MARK: - Decoding

    /// Decodes the escaped string content `b[start..<end]` (already validated) into `out`.
    private static func decodeEscaped(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        var i = start
        while i < end {
            let c = b[i]
            guard c == backslash else {
                out.append(c)
                i += 1
                continue
            }
            let e = b[i + 1]
            switch e {
            case UInt8(ascii: "b"): out.append(0x08); i += 2
            case UInt8(ascii: "f"): out.append(0x0C); i += 2
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "u"):
                var scalar = unsafeHex4(b, i + 2)
                i += 6
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = unsafeHex4(b, i + 2)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                appendUTF8(scalar, to: &out)
            default: out.append(e); i += 2   // \" \\ \/
            }
        }
    }

    private static func unsafeHex4(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = b[i + k]
            let d: UInt32 = c <= 57 ? UInt32(c) - 48 : c <= 70 ? UInt32(c) - 55 : UInt32(c) - 87
            v = v << 4 | d
        }
        return v
    }

    private static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80:
            out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    private mutating func string(_ b: UnsafeBufferPointer<UInt8>, _ span: JSONValueSpan) -> String {
        if span.isEscaped {
            Self.decodeEscaped(b, span.start, span.end, into: &scratch)
            return String(decoding: scratch, as: UTF8.self)
        }
        return String(decoding: UnsafeBufferPointer(rebasing: b[span.start..<span.end]), as: UTF8.self)
    }

    /// The exact `Double` of a validated JSON number.
    private func double(_ b: UnsafeBufferPointer<UInt8>, _ span: JSONValueSpan) -> Double {
        var i = span.start
        let end = span.end
        var negative = false
        if b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        while i < end, isDigit(b[i]) {
            if mantissa != 0 || b[i] != 48 { digits += 1 }
            mantissa = mantissa &* 10 &+ UInt64(b[i] - 48)
            i += 1
        }
        if i < end, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, isDigit(b[i]) {
                if mantissa != 0 || b[i] != 48 { digits += 1 }
                mantissa = mantissa &* 10 &+ UInt64(b[i] - 48)
                exponent -= 1
                i += 1
            }
        }
        if i < end {   // exponent part
            i += 1
            var exponentNegative = false
            if b[i] == UInt8(ascii: "-") { exponentNegative = true; i += 1 } else if b[i] == UInt8(ascii: "+") { i += 1 }
            var e = 0
            while i < end {
                if e < 100_000 { e = e * 10 + Int(b[i] - 48) }
                i += 1
            }
            exponent += exponentNegative ? -e : e
        }
        // Clinger's fast path: an exact integer mantissa and an exact power of ten give a
        // correctly rounded result in one IEEE operation.
        if digits <= 19 {
            if mantissa == 0 { return negative ? -0.0 : 0.0 }
            if mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
                var value = Double(mantissa)
                value = exponent < 0 ? value / exactPowersOfTen[-exponent] : value * exactPowersOfTen[exponent]
                return negative ? -value : value
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[span.start..<span.end]), as: UTF8.self)
        return Double(text) ?? .nan
    }

    // MARK: - Pass two: the event

    private mutating func buildEvent(_ b: UnsafeBufferPointer<UInt8>) throws(JSONLLineFailure) -> Event {
        let type = try eventType(b)
        let time = try eventTime(b)
        let user = try optionalString(b, .user) ?? Event.defaultUser
        let id = try optionalString(b, .id)
        let payload: EventPayload
        switch type {
        case .stackConfig:
            let stack = try requiredString(b, .stack, type)
            payload = .stackConfig(stack: stack, widgets: try widgets(b, type))
        case .appLaunch:
            payload = .appLaunch(app: try requiredString(b, .app, type))
        case .widgetImpression:
            let stack = try requiredString(b, .stack, type)
            let widget = try requiredString(b, .widget, type)
            let propensity = try optionalNumber(b, .propensity)
            if let propensity, !(propensity > 0 && propensity <= 1) {
                throw valueFailure(.propensity, "must be in (0, 1] (a probability), found \(propensity)")
            }
            payload = .widgetImpression(stack: stack, widget: widget, propensity: propensity,
                                        policy: try optionalString(b, .policy))
        case .widgetTap:
            let widget = try requiredString(b, .widget, type)
            payload = .widgetTap(widget: widget, stack: try optionalString(b, .stack))
        case .widgetSwipe:
            let stack = try requiredString(b, .stack, type)
            let from = try requiredString(b, .from, type)
            payload = .widgetSwipe(stack: stack, from: from, to: try requiredString(b, .to, type))
        case .widgetPin:
            let stack = try requiredString(b, .stack, type)
            payload = .widgetPin(stack: stack, widget: try requiredString(b, .widget, type))
        case .widgetUnpin:
            let stack = try requiredString(b, .stack, type)
            payload = .widgetUnpin(stack: stack, widget: try requiredString(b, .widget, type))
        case .screenOn:
            payload = .screenOn
        case .location:
            let lat = try requiredNumber(b, .lat, type)
            guard lat >= -90 && lat <= 90 else {
                throw valueFailure(.lat, "latitude \(lat) is out of range -90...90")
            }
            let lon = try requiredNumber(b, .lon, type)
            guard lon >= -180 && lon <= 180 else {
                throw valueFailure(.lon, "longitude \(lon) is out of range -180...180")
            }
            let accuracy = try optionalNumber(b, .accuracy)
            if let accuracy, !(accuracy >= 0) {
                throw valueFailure(.accuracy, "must be >= 0 (metres), found \(accuracy)")
            }
            payload = .location(lat: lat, lon: lon, accuracy: accuracy)
        case .place:
            payload = .place(try requiredString(b, .place, type))
        case .context:
            let key = try requiredString(b, .key, type)
            payload = .context(key: key, value: try requiredString(b, .value, type, allowEmpty: true))
        case .relevance:
            let widget = try requiredString(b, .widget, type)
            let score = try requiredNumber(b, .score, type)
            let duration = try optionalNumber(b, .duration)
            if let duration, !(duration >= 0) {
                throw valueFailure(.duration, "must be >= 0 (seconds), found \(duration)")
            }
            payload = .relevance(widget: widget, score: score, duration: duration)
        }
        return Event(time: time, user: user, id: id, payload: payload)
    }

    private func valueFailure(_ field: JSONLField, _ text: String) -> JSONLLineFailure {
        JSONLLineFailure(offset: slot(field).valueStart, field: field.name, message: "field '\(field.name)': \(text)")
    }

    private func wrongKind(_ field: String, _ expected: String, _ span: JSONValueSpan) -> JSONLLineFailure {
        JSONLLineFailure(offset: span.valueStart, field: field,
                         message: "field '\(field)' must be \(expected), found \(span.kind.phrase)")
    }

    private func missing(_ field: JSONLField, _ type: EventType?) -> JSONLLineFailure {
        let detail = type.map { " for type '\($0.rawValue)'" } ?? ""
        return JSONLLineFailure(offset: 0, field: field.name, message: "missing required field '\(field.name)'\(detail)")
    }

    private mutating func eventType(_ b: UnsafeBufferPointer<UInt8>) throws(JSONLLineFailure) -> EventType {
        let span = slot(.type)
        guard span.kind != .absent else { throw missing(.type, nil) }
        guard span.kind == .string else { throw wrongKind("type", "a string", span) }
        if !span.isEscaped, let type = Self.eventType(b.baseAddress! + span.start, span.end - span.start) {
            return type
        }
        let name = string(b, span)
        if let type = EventType(rawValue: name) { return type }
        let known = EventType.allCases.map(\.rawValue).joined(separator: ", ")
        throw JSONLLineFailure(offset: span.valueStart, field: "type",
                               message: "field 'type': unknown event type '\(name)' (expected one of: \(known))")
    }

    private static func eventType(_ p: UnsafePointer<UInt8>, _ length: Int) -> EventType? {
        switch length {
        case 5: if bytesEqual(p, "place") { return .place }
        case 7: if bytesEqual(p, "context") { return .context }
        case 8: if bytesEqual(p, "location") { return .location }
        case 9:
            if bytesEqual(p, "screen_on") { return .screenOn }
            if bytesEqual(p, "relevance") { return .relevance }
        case 10:
            if bytesEqual(p, "app_launch") { return .appLaunch }
            if bytesEqual(p, "widget_tap") { return .widgetTap }
            if bytesEqual(p, "widget_pin") { return .widgetPin }
        case 12:
            if bytesEqual(p, "stack_config") { return .stackConfig }
            if bytesEqual(p, "widget_swipe") { return .widgetSwipe }
            if bytesEqual(p, "widget_unpin") { return .widgetUnpin }
        case 17:
            if bytesEqual(p, "widget_impression") { return .widgetImpression }
        default: break
        }
        return nil
    }

    private mutating func eventTime(_ b: UnsafeBufferPointer<UInt8>) throws(JSONLLineFailure) -> EventTime {
        let span = slot(.time)
        guard span.kind != .absent else { throw missing(.time, nil) }
        guard span.kind == .string else { throw wrongKind("time", "a string (RFC 3339 with a UTC offset)", span) }
        do {
            if span.isEscaped {
                Self.decodeEscaped(b, span.start, span.end, into: &scratch)
                return try scratch.withUnsafeBufferPointer { (p) throws(TimeFormatError) in try EventTime(rfc3339Bytes: p) }
            }
            return try EventTime(rfc3339Bytes: UnsafeBufferPointer(rebasing: b[span.start..<span.end]))
        } catch {
            // With escapes the offset inside the decoded text no longer maps to the line: point at the value.
            let offset = span.isEscaped ? span.valueStart : span.start + error.offset
            throw JSONLLineFailure(offset: offset, field: "time", message: "field 'time': \(error.message)")
        }
    }

    private mutating func optionalString(_ b: UnsafeBufferPointer<UInt8>, _ field: JSONLField) throws(JSONLLineFailure) -> String? {
        let span = slot(field)
        switch span.kind {
        case .absent, .null: return nil
        case .string:
            guard span.end > span.start else { throw valueFailure(field, "must not be empty (omit the field instead)") }
            return string(b, span)
        default:
            throw wrongKind(field.name, "a string", span)
        }
    }

    private mutating func requiredString(
        _ b: UnsafeBufferPointer<UInt8>, _ field: JSONLField, _ type: EventType, allowEmpty: Bool = false
    ) throws(JSONLLineFailure) -> String {
        let span = slot(field)
        switch span.kind {
        case .absent: throw missing(field, type)
        case .string:
            guard allowEmpty || span.end > span.start else { throw valueFailure(field, "must not be empty") }
            return string(b, span)
        default:
            throw wrongKind(field.name, "a string", span)
        }
    }

    private func number(_ b: UnsafeBufferPointer<UInt8>, _ field: JSONLField, _ span: JSONValueSpan) throws(JSONLLineFailure) -> Double {
        guard span.kind == .number else { throw wrongKind(field.name, "a number", span) }
        let value = double(b, span)
        guard value.isFinite else { throw valueFailure(field, "number is too large to be a finite double") }
        return value
    }

    private func requiredNumber(_ b: UnsafeBufferPointer<UInt8>, _ field: JSONLField, _ type: EventType) throws(JSONLLineFailure) -> Double {
        let span = slot(field)
        guard span.kind != .absent else { throw missing(field, type) }
        return try number(b, field, span)
    }

    private func optionalNumber(_ b: UnsafeBufferPointer<UInt8>, _ field: JSONLField) throws(JSONLLineFailure) -> Double? {
        let span = slot(field)
        if span.kind == .absent || span.kind == .null { return nil }
        return try number(b, field, span)
    }

    /// Decodes `widgets` (syntax already checked by pass one).
    private mutating func widgets(_ b: UnsafeBufferPointer<UInt8>, _ type: EventType) throws(JSONLLineFailure) -> [WidgetConfig] {
        let span = slot(.widgets)
        guard span.kind != .absent else { throw missing(.widgets, type) }
        guard span.kind == .array else { throw wrongKind("widgets", "an array of {\"id\": ..., \"app\": ...} objects", span) }
        var result: [WidgetConfig] = []
        var i = skipWhitespace(b, span.start + 1)
        if b[i] == UInt8(ascii: "]") { return result }
        var index = 0
        while true {
            let path = "widgets[\(index)]"
            let elementKey = JSONKeyContext(field: nil, start: -1, end: -1, isEscaped: false, widgetIndex: index)
            var element = JSONValueSpan.absent
            let elementEnd = try scanValue(b, i, into: &element, depth: 2, key: elementKey)
            guard element.kind == .object else { throw wrongKind(path, "an object {\"id\": ..., \"app\": ...}", element) }
            var idSpan = JSONValueSpan.absent
            var appSpan = JSONValueSpan.absent
            var otherKeys: [[UInt8]] = []
            var j = skipWhitespace(b, i + 1)
            if b[j] != UInt8(ascii: "}") {
                while true {
                    let keyStart = j
                    let (keyEnd, keyEscaped) = try scanString(b, j + 1, key: elementKey)
                    let bytes = keyBytes(b, keyStart, keyEnd, keyEscaped)
                    let key = JSONKeyContext(field: nil, start: keyStart, end: keyEnd, isEscaped: keyEscaped, widgetIndex: index)
                    j = skipWhitespace(b, keyEnd + 1)       // at ':'
                    j = skipWhitespace(b, j + 1)
                    var value = JSONValueSpan.absent
                    value.keyStart = keyStart
                    j = try scanValue(b, j, into: &value, depth: 3, key: key)
                    let isDuplicate: Bool
                    if bytes.elementsEqual("id".utf8) {
                        isDuplicate = idSpan.kind != .absent
                        idSpan = value
                    } else if bytes.elementsEqual("app".utf8) {
                        isDuplicate = appSpan.kind != .absent
                        appSpan = value
                    } else {
                        isDuplicate = otherKeys.contains(bytes)
                        otherKeys.append(bytes)
                    }
                    if isDuplicate {
                        let keyText = String(decoding: bytes, as: UTF8.self)
                        throw JSONLLineFailure(offset: keyStart, field: "\(path).\(keyText)",
                                               message: "duplicate key '\(keyText)' in '\(path)'")
                    }
                    j = skipWhitespace(b, j)
                    if b[j] == UInt8(ascii: ",") {
                        j = skipWhitespace(b, j + 1)
                        continue
                    }
                    break   // '}'
                }
            }
            let idPath = "\(path).id"
            guard idSpan.kind != .absent else {
                throw JSONLLineFailure(offset: element.valueStart, field: idPath, message: "missing required field '\(idPath)'")
            }
            guard idSpan.kind == .string else { throw wrongKind(idPath, "a string", idSpan) }
            guard idSpan.end > idSpan.start else {
                throw JSONLLineFailure(offset: idSpan.valueStart, field: idPath, message: "field '\(idPath)': must not be empty")
            }
            let id = string(b, idSpan)
            if result.contains(where: { $0.id == id }) {
                throw JSONLLineFailure(offset: idSpan.valueStart, field: idPath,
                                       message: "field '\(idPath)': widget '\(id)' appears twice in the stack")
            }
            var app: String?
            switch appSpan.kind {
            case .absent, .null: app = nil
            case .string:
                guard appSpan.end > appSpan.start else {
                    throw JSONLLineFailure(offset: appSpan.valueStart, field: "\(path).app",
                                           message: "field '\(path).app': must not be empty (omit the field instead)")
                }
                app = string(b, appSpan)
            default:
                throw wrongKind("\(path).app", "a string", appSpan)
            }
            result.append(WidgetConfig(id: id, app: app))
            i = skipWhitespace(b, elementEnd)
            if b[i] == UInt8(ascii: ",") {
                i = skipWhitespace(b, i + 1)
                index += 1
                continue
            }
            return result   // ']'
        }
    }
}
