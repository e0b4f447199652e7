// Internal: a schema-free JSON scanner over the bytes of one line. It checks syntax and says where
// keys and values are; what they mean is the event schema's business (JSONLEventDecoder).

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
    /// The scanner ran out of bytes (the line stops in the middle of the object).
    var reachedEnd = false
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

    static let absent = JSONValueSpan(valueStart: 0, start: 0, end: 0, kind: .absent, isEscaped: false)
}

/// Where a key is inside the line.
struct JSONKeySpan {
    /// Offset of the opening quote.
    var start: Int
    /// Offset of the closing quote.
    var end: Int
    /// The key contains backslash escapes.
    var isEscaped: Bool
}

/// One `"key": value` of an object.
struct JSONMember {
    var key: JSONKeySpan
    var value: JSONValueSpan

    static let absent = JSONMember(key: JSONKeySpan(start: 0, end: 0, isEscaped: false), value: .absent)
}

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

@inline(__always)
private func isWhitespace(_ c: UInt8) -> Bool {
    c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A
}

/// Scans the one JSON object of a line, member by member, checking JSON syntax on the way
/// (strings with their escapes and UTF-8, numbers, literals, nested objects and arrays) and
/// locating each problem at its byte. Keys mean nothing to it.
///
/// ```swift
/// var scanner = try JSONScanner(line: bytes)
/// while let member = try scanner.nextMember() { print(scanner.name(of: member.key), member.value.kind) }
/// ```
///
/// A problem inside a member's value names the member: `field 'lat': invalid number: ...`.
struct JSONScanner {
    /// Deepest nesting accepted (the line's members are level 1).
    static let maximumDepth = 64

    @inline(__always)
    static func isDigit(_ c: UInt8) -> Bool { c &- 48 < 10 }

    /// The line, without its newline.
    let bytes: UnsafeBufferPointer<UInt8>

    /// Where the scan of the next member (or the separator before it) starts.
    private var position = 0
    private var progress = Progress.atFirstMember

    private enum Progress { case atFirstMember, afterMember, finished }

    /// A scanner of `line`, which must hold one JSON object: checks that it opens one.
    init(line: UnsafeBufferPointer<UInt8>) throws(JSONLLineFailure) {
        bytes = line
        let i = skipWhitespace(0)
        guard i < line.count else { throw JSONLLineFailure(offset: i, message: "line is blank", reachedEnd: true) }
        guard line[i] == UInt8(ascii: "{") else {
            throw JSONLLineFailure(offset: i, message: "expected '{' but found \(describeByte(line[i])): each line must be one JSON object")
        }
        position = skipWhitespace(i + 1)
    }

    /// The object's next member, checked, or `nil` after its closing `}` (when only whitespace
    /// follows it).
    ///
    /// - Complexity: O(n) in the length of the member.
    @inline(__always)   // the hot path of ingest: inlined, the scan's state stays in registers
    mutating func nextMember() throws(JSONLLineFailure) -> JSONMember? {
        let n = bytes.count
        var i = position
        switch progress {
        case .finished:
            return nil
        case .atFirstMember:
            if i < n, bytes[i] == UInt8(ascii: "}") { return try finish(after: i) }
        case .afterMember:
            i = skipWhitespace(i)
            guard i < n else { throw endOfLine(i, "expected ',' or '}' after a value") }
            if bytes[i] == UInt8(ascii: "}") { return try finish(after: i) }
            guard bytes[i] == UInt8(ascii: ",") else {
                throw JSONLLineFailure(offset: i, message: "expected ',' or '}' after a value but found \(describeByte(bytes[i]))")
            }
            i = skipWhitespace(i + 1)
        }
        guard i < n else { throw endOfLine(i, "expected a key in double quotes") }
        guard bytes[i] == quote else {
            let trailing = bytes[i] == UInt8(ascii: "}") ? " (a trailing comma is not allowed in JSON)" : ""
            throw JSONLLineFailure(offset: i, message: "expected a key in double quotes but found \(describeByte(bytes[i]))\(trailing)")
        }
        let (keyEnd, keyEscaped) = try scanString(i + 1, subject: nil)
        let key = JSONKeySpan(start: i, end: keyEnd, isEscaped: keyEscaped)
        i = skipWhitespace(keyEnd + 1)
        guard i < n else { throw endOfLine(i, "expected ':' after key '\(name(of: key))'") }
        guard bytes[i] == UInt8(ascii: ":") else {
            throw JSONLLineFailure(offset: i, message: "expected ':' after key '\(name(of: key))' but found \(describeByte(bytes[i]))")
        }
        var value = JSONValueSpan.absent
        position = try scanValue(skipWhitespace(i + 1), into: &value, depth: 1, subject: key)
        progress = .afterMember
        return JSONMember(key: key, value: value)
    }

    /// Ends the object whose `}` is at `i`: only whitespace may follow.
    private mutating func finish(after i: Int) throws(JSONLLineFailure) -> JSONMember? {
        let end = skipWhitespace(i + 1)
        guard end == bytes.count else {
            throw JSONLLineFailure(offset: end, message: "unexpected \(describeByte(bytes[end])) after the closing '}' (one JSON object per line)")
        }
        progress = .finished
        return nil
    }

    // MARK: - Keys

    /// The bytes between the key's quotes, escapes not decoded.
    func content(of key: JSONKeySpan) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[(key.start + 1)..<key.end])
    }

    /// The key's bytes, escapes decoded.
    func decodedBytes(of key: JSONKeySpan) -> [UInt8] {
        guard key.isEscaped else { return Array(content(of: key)) }
        var decoded: [UInt8] = []
        decodeEscaped(key.start + 1, key.end, into: &decoded)
        return decoded
    }

    /// The key's text (for messages).
    func name(of key: JSONKeySpan) -> String {
        String(decoding: decodedBytes(of: key), as: UTF8.self)
    }

    // MARK: - Failures

    private func endOfLine(_ offset: Int, _ what: String) -> JSONLLineFailure {
        JSONLLineFailure(offset: offset, message: "line ends too early: \(what)", reachedEnd: true)
    }

    /// A problem inside the value of the member whose key is `subject` (`field '<key>': ...`), or
    /// inside a key when `subject` is nil.
    private func failure(_ offset: Int, _ subject: JSONKeySpan?, _ text: String, reachedEnd: Bool = false) -> JSONLLineFailure {
        guard let subject else { return JSONLLineFailure(offset: offset, message: text, reachedEnd: reachedEnd) }
        let field = name(of: subject)
        return JSONLLineFailure(offset: offset, field: field, message: "field '\(field)': \(text)", reachedEnd: reachedEnd)
    }

    // MARK: - Syntax

    @inline(__always)
    private func skipWhitespace(_ i0: Int) -> Int {
        var i = i0
        while i < bytes.count, isWhitespace(bytes[i]) { i += 1 }
        return i
    }

    /// Scans a string whose content starts at `i0` (after the opening quote). Returns the offset
    /// of the closing quote and whether escapes occur.
    private func scanString(_ i0: Int, subject: JSONKeySpan?) throws(JSONLLineFailure) -> (Int, Bool) {
        let n = bytes.count
        var i = i0
        var escaped = false
        while true {
            // Eight plain bytes at a time (no quote, backslash, control or non-ASCII byte), then
            // the first byte that needs a look on its own.
            while i &+ 8 <= n {
                let special = Self.specialBytes(UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self))
                if special == 0 {
                    i &+= 8
                } else {
                    i &+= special.trailingZeroBitCount &>> 3
                    break
                }
            }
            guard i < n else {
                throw failure(i, subject, "unterminated string (missing closing '\"')", reachedEnd: true)
            }
            let c = bytes[i]
            if c == quote { return (i, escaped) }
            if c >= 0x20 && c < 0x80 && c != backslash {
                i += 1
                continue
            }
            if c == backslash {
                escaped = true
                i = try scanEscape(i, subject: subject)
            } else if c < 0x20 {
                let hex = String(c, radix: 16, uppercase: true)
                throw failure(i, subject, "control character U+00\(c < 16 ? "0" : "")\(hex) in a string must be escaped (\\n, \\t, \\u00XX)")
            } else {
                i = try scanUTF8Sequence(i, subject: subject)
            }
        }
    }

    /// The high bit of each byte of `loaded` (8 bytes of the line) that is a quote, a backslash, a
    /// control character or not ASCII, bit 7 for the first byte. Bits above the lowest one set
    /// may be wrong (borrows run upwards), so only the lowest is to be used.
    @inline(__always)
    private static func specialBytes(_ loaded: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let word = UInt64(littleEndian: loaded)
        let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
        let zeroInQuotes = (quotes &- ones) & ~quotes
        let zeroInBackslashes = (backslashes &- ones) & ~backslashes
        let control = (word &- ones &* 0x20) & ~word
        return (zeroInQuotes | zeroInBackslashes | control | word) & highs
    }

    /// Validates one multi-byte UTF-8 sequence starting at `i`; returns the offset after it.
    private func scanUTF8Sequence(_ i: Int, subject: JSONKeySpan?) throws(JSONLLineFailure) -> Int {
        let c = bytes[i]
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
            throw failure(i, subject, "invalid UTF-8 (\(describeByte(c)))")
        }
        for k in 1..<length {
            guard i + k < bytes.count else { throw failure(i, subject, "invalid UTF-8 (sequence cut short)") }
            let d = bytes[i + k]
            let lo = k == 1 ? low : 0x80
            let hi = k == 1 ? high : 0xBF
            guard d >= lo && d <= hi else {
                throw failure(i, subject, "invalid UTF-8 (\(describeByte(c)) followed by \(describeByte(d)))")
            }
        }
        return i + length
    }

    /// Validates the escape at `i` (a backslash); returns the offset after it.
    private func scanEscape(_ i: Int, subject: JSONKeySpan?) throws(JSONLLineFailure) -> Int {
        guard i + 1 < bytes.count else {
            throw failure(i, subject, "unterminated string (ends in a backslash)", reachedEnd: true)
        }
        switch bytes[i + 1] {
        case quote, backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return i + 2
        case UInt8(ascii: "u"):
            let unit = try hex4(i + 2, subject: subject)
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw failure(i, subject, "lone surrogate \\u\(hexText(unit)) in string (a low surrogate must follow a high one)")
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard i + 7 < bytes.count, bytes[i + 6] == backslash, bytes[i + 7] == UInt8(ascii: "u") else {
                    throw failure(i, subject, "lone surrogate \\u\(hexText(unit)) in string (a high surrogate must be followed by \\uDC00-\\uDFFF)")
                }
                let second = try hex4(i + 8, subject: subject)
                guard second >= 0xDC00 && second <= 0xDFFF else {
                    throw failure(i, subject, "lone surrogate \\u\(hexText(unit)) in string (followed by \\u\(hexText(second)), not a low surrogate)")
                }
                return i + 12
            }
            return i + 6
        default:
            let c = bytes[i + 1]
            throw failure(i, subject, "invalid escape \(c >= 0x21 && c < 0x7F ? "'\\\(Character(Unicode.Scalar(c)))'" : "(backslash then \(describeByte(c)))") in string")
        }
    }

    private func hex4(_ i: Int, subject: JSONKeySpan?) throws(JSONLLineFailure) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            guard i + k < bytes.count, let d = hexDigit(bytes[i + k]) else {
                throw failure(i - 2, subject, "invalid \\u escape (needs 4 hex digits)", reachedEnd: i + k >= bytes.count)
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
    @inline(__always)
    private func scanValue(_ i: Int, into span: inout JSONValueSpan, depth: Int, subject: JSONKeySpan) throws(JSONLLineFailure) -> Int {
        guard i < bytes.count else { throw endOfLine(i, "expected a value for '\(name(of: subject))'") }
        span.valueStart = i
        span.start = i
        let c = bytes[i]
        switch c {
        case quote:
            let (close, escaped) = try scanString(i + 1, subject: subject)
            span.start = i + 1
            span.end = close
            span.kind = .string
            span.isEscaped = escaped
            return close + 1
        case UInt8(ascii: "-"), 48...57:
            let end = try scanNumber(i, subject: subject)
            span.end = end
            span.kind = .number
            return end
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let end = try skipContainer(i, depth: depth, subject: subject)
            span.end = end
            span.kind = c == UInt8(ascii: "{") ? .object : .array
            return end
        case UInt8(ascii: "t"):
            try literal(i, "true", subject: subject)
            span.end = i + 4
            span.kind = .trueLiteral
            return i + 4
        case UInt8(ascii: "f"):
            try literal(i, "false", subject: subject)
            span.end = i + 5
            span.kind = .falseLiteral
            return i + 5
        case UInt8(ascii: "n"):
            try literal(i, "null", subject: subject)
            span.end = i + 4
            span.kind = .null
            return i + 4
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw failure(i, subject, "NaN and Infinity are not valid JSON numbers")
        default:
            throw failure(i, subject, "expected a value but found \(describeByte(c))")
        }
    }

    private func literal(_ i: Int, _ word: StaticString, subject: JSONKeySpan) throws(JSONLLineFailure) {
        let length = word.utf8CodeUnitCount
        guard i + length <= bytes.count, memcmp(bytes.baseAddress! + i, word.utf8Start, length) == 0 else {
            throw failure(i, subject, "invalid value (expected \(word), a number, a string, an array or an object)",
                          reachedEnd: i + length > bytes.count)
        }
    }

    private func scanNumber(_ i0: Int, subject: JSONKeySpan) throws(JSONLLineFailure) -> Int {
        let n = bytes.count
        var i = i0
        if bytes[i] == UInt8(ascii: "-") {
            i += 1
            if i < n, bytes[i] == UInt8(ascii: "I") {
                throw failure(i0, subject, "NaN and Infinity are not valid JSON numbers")
            }
        }
        guard i < n, Self.isDigit(bytes[i]) else { throw failure(i, subject, "invalid number: expected a digit", reachedEnd: i >= n) }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < n, Self.isDigit(bytes[i]) { throw failure(i0, subject, "invalid number: leading zeros are not allowed") }
        } else {
            while i < n, Self.isDigit(bytes[i]) { i += 1 }
        }
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n, Self.isDigit(bytes[i]) else {
                throw failure(i, subject, "invalid number: expected a digit after '.'", reachedEnd: i >= n)
            }
            while i < n, Self.isDigit(bytes[i]) { i += 1 }
        }
        if i < n, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < n, Self.isDigit(bytes[i]) else {
                throw failure(i, subject, "invalid number: expected a digit in the exponent", reachedEnd: i >= n)
            }
            while i < n, Self.isDigit(bytes[i]) { i += 1 }
        }
        return i
    }

    /// Skips an object or array starting at `i0`, checking its syntax; returns the offset after it.
    private func skipContainer(_ i0: Int, depth: Int, subject: JSONKeySpan) throws(JSONLLineFailure) -> Int {
        let n = bytes.count
        guard depth <= Self.maximumDepth else {
            throw failure(i0, subject, "nested deeper than \(Self.maximumDepth) levels")
        }
        let isObject = bytes[i0] == UInt8(ascii: "{")
        let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        let closerText = isObject ? "'}'" : "']'"
        var i = skipWhitespace(i0 + 1)
        if i < n, bytes[i] == closer { return i + 1 }
        var inner = JSONValueSpan.absent
        while true {
            if isObject {
                guard i < n else { throw endOfLine(i, "expected a key in double quotes inside '\(name(of: subject))'") }
                guard bytes[i] == quote else {
                    let trailing = bytes[i] == closer ? " (a trailing comma is not allowed in JSON)" : ""
                    throw failure(i, subject, "expected a key in double quotes but found \(describeByte(bytes[i]))\(trailing)")
                }
                let (close, _) = try scanString(i + 1, subject: subject)
                i = skipWhitespace(close + 1)
                guard i < n else { throw endOfLine(i, "expected ':' inside '\(name(of: subject))'") }
                guard bytes[i] == UInt8(ascii: ":") else {
                    throw failure(i, subject, "expected ':' but found \(describeByte(bytes[i]))")
                }
                i = skipWhitespace(i + 1)
            }
            if !isObject, i < n, bytes[i] == closer {
                throw failure(i, subject, "expected a value but found ']' (a trailing comma is not allowed in JSON)")
            }
            i = try scanValue(i, into: &inner, depth: depth + 1, subject: subject)
            i = skipWhitespace(i)
            guard i < n else { throw endOfLine(i, "expected ',' or \(closerText) inside '\(name(of: subject))'") }
            if bytes[i] == UInt8(ascii: ",") {
                i = skipWhitespace(i + 1)
                continue
            }
            if bytes[i] == closer { return i + 1 }
            throw failure(i, subject, "expected ',' or \(closerText) but found \(describeByte(bytes[i]))")
        }
    }
}

// MARK: - Inside a value already scanned

extension JSONScanner {
    /// The elements or members of an array or object `nextMember()` returned: its syntax is
    /// already checked, so the walk only finds where each child is.
    struct Children {
        private let scanner: JSONScanner
        /// The line member the container belongs to (problems name it, as during the first scan).
        private let owner: JSONKeySpan
        /// Nesting level of the children, as during the first scan.
        private let depth: Int
        private var position: Int
        private var isAtEnd: Bool

        fileprivate init(_ scanner: JSONScanner, of container: JSONValueSpan, owner: JSONKeySpan, depth: Int) {
            self.scanner = scanner
            self.owner = owner
            self.depth = depth
            position = scanner.skipWhitespace(container.start + 1)
            let c = scanner.bytes[position]
            isAtEnd = c == UInt8(ascii: "]") || c == UInt8(ascii: "}")
        }

        /// The next element of an array.
        mutating func nextElement() throws(JSONLLineFailure) -> JSONValueSpan? {
            guard !isAtEnd else { return nil }
            var element = JSONValueSpan.absent
            moveToNext(after: try scanner.scanValue(position, into: &element, depth: depth, subject: owner))
            return element
        }

        /// The next member of an object.
        mutating func nextMember() throws(JSONLLineFailure) -> JSONMember? {
            guard !isAtEnd else { return nil }
            let keyStart = position
            let (keyEnd, keyEscaped) = try scanner.scanString(keyStart + 1, subject: owner)
            let colon = scanner.skipWhitespace(keyEnd + 1)
            var value = JSONValueSpan.absent
            moveToNext(after: try scanner.scanValue(scanner.skipWhitespace(colon + 1), into: &value, depth: depth, subject: owner))
            return JSONMember(key: JSONKeySpan(start: keyStart, end: keyEnd, isEscaped: keyEscaped), value: value)
        }

        /// The children of `child`, an array or object this walk returned.
        func children(of child: JSONValueSpan) -> Children {
            Children(scanner, of: child, owner: owner, depth: depth + 1)
        }

        /// Past the separator after a child that ends at `end`: the next child, or the closer.
        private mutating func moveToNext(after end: Int) {
            let i = scanner.skipWhitespace(end)
            if scanner.bytes[i] == UInt8(ascii: ",") {
                position = scanner.skipWhitespace(i + 1)
            } else {
                isAtEnd = true
            }
        }
    }

    /// The children of `member`'s value, an array or an object.
    func children(of member: JSONMember) -> Children {
        Children(self, of: member.value, owner: member.key, depth: 2)   // the member itself is level 1
    }
}
