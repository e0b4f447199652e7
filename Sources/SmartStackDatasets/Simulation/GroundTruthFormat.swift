import SmartStack

/// Reading and writing the lines of a ground-truth file (internal; see ``GroundTruthEntry``).
enum GroundTruthFormat {
    /// Appends a JSON string literal.
    static func appendString(_ s: String, to buffer: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            buffer.append(UInt8(ascii: "\""))
            if !bytes.contains(where: { $0 < 0x20 || $0 == 34 || $0 == 92 }) {
                buffer.append(contentsOf: bytes)
            } else {
                for b in bytes { appendEscaped(b, to: &buffer) }
            }
            buffer.append(UInt8(ascii: "\""))
        }
    }

    private static func appendEscaped(_ b: UInt8, to buffer: inout [UInt8]) {
        switch b {
        case UInt8(ascii: "\""): buffer.append(contentsOf: [92, 34])
        case UInt8(ascii: "\\"): buffer.append(contentsOf: [92, 92])
        case 0x0A: buffer.append(contentsOf: [92, UInt8(ascii: "n")])
        case 0x0D: buffer.append(contentsOf: [92, UInt8(ascii: "r")])
        case 0x09: buffer.append(contentsOf: [92, UInt8(ascii: "t")])
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            hex.withUTF8Buffer { h in
                buffer.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, h[Int(b >> 4)], h[Int(b & 15)]])
            }
        default: buffer.append(b)
        }
    }

    /// Appends a probability rounded to 4 decimals, shortest form (`0`, `1`, `0.25`, `0.0012`).
    static func appendProbability(_ p: Double, to buffer: inout [UInt8]) {
        var v = Int((min(max(p, 0), 1) * 10_000).rounded())
        if v == 0 { buffer.append(48); return }
        if v == 10_000 { buffer.append(49); return }
        buffer.append(48)
        buffer.append(UInt8(ascii: "."))
        var divisor = 1000
        while v > 0 {
            buffer.append(UInt8(48 + v / divisor))
            v %= divisor
            divisor /= 10
        }
    }

    /// Parses one line (without its newline); the keys it does not read (ignored, as the format
    /// says) are counted in `ignored`.
    static func parse(_ bytes: [UInt8], file: String, line: Int,
                      ignored: inout IgnoredTruthField.Tally) throws(GroundTruthError) -> GroundTruthEntry {
        var p = Parser(bytes: bytes, file: file, line: line)
        let entry = try p.entry()
        ignored.add(p.unknownKeys, line: line)
        return entry
    }

    private struct Parser {
        let bytes: [UInt8]
        let file: String
        let line: Int
        var i = 0
        /// The line's keys that are not fields of the format, in order.
        var unknownKeys: [String] = []

        init(bytes: [UInt8], file: String, line: Int) {
            self.bytes = bytes
            self.file = file
            self.line = line
        }

        func fail(_ field: String?, _ message: String) -> GroundTruthError {
            GroundTruthError(file: file, line: line, field: field, message: message + " (column \(i + 1))")
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 13 { i += 1 }
        }

        mutating func expect(_ c: UInt8, _ field: String?) throws(GroundTruthError) {
            skipSpace()
            guard i < bytes.count else { throw fail(field, "line ends early, expected '\(Character(Unicode.Scalar(c)))'") }
            guard bytes[i] == c else { throw fail(field, "expected '\(Character(Unicode.Scalar(c)))'") }
            i += 1
        }

        mutating func peek() -> UInt8? {
            skipSpace()
            return i < bytes.count ? bytes[i] : nil
        }

        mutating func string(_ field: String?) throws(GroundTruthError) -> String {
            try expect(UInt8(ascii: "\""), field)
            switch JSONScalars.string(bytes, at: &i) {
            case .success(let text): return text
            case .failure(let failure): throw fail(field, failure.message)
            }
        }

        /// The number at `i`; `field` (named only when it fails) is where it is.
        mutating func number(_ field: @autoclosure () -> String) throws(GroundTruthError) -> Double {
            skipSpace()
            guard let v = JSONScalars.number(bytes, at: &i) else { throw fail(field(), "expected a number") }
            return v
        }

        mutating func probabilities(_ field: String) throws(GroundTruthError) -> [WidgetProbability] {
            try expect(UInt8(ascii: "{"), field)
            var list: [WidgetProbability] = []
            if peek() == UInt8(ascii: "}") { i += 1; return list }
            while true {
                let widget = try string(field)
                try expect(UInt8(ascii: ":"), field)
                let p = try number("\(field).\(widget)")
                guard p >= 0, p <= 1 else { throw fail("\(field).\(widget)", "probability \(p) is outside [0, 1]") }
                guard !list.contains(where: { $0.widget == widget }) else { throw fail(field, "widget '\(widget)' listed twice") }
                list.append(WidgetProbability(widget: widget, probability: p))
                guard let c = peek() else { throw fail(field, "line ends inside the object") }
                i += 1
                if c == UInt8(ascii: "}") { return list }
                guard c == UInt8(ascii: ",") else { i -= 1; throw fail(field, "expected ',' or '}'") }
            }
        }

        mutating func skipValue(_ field: String) throws(GroundTruthError) {
            guard let c = peek() else { throw fail(field, "missing value") }
            switch c {
            case UInt8(ascii: "\""): _ = try string(field)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = c == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                i += 1
                if peek() == close { i += 1; return }
                while true {
                    if c == UInt8(ascii: "{") { _ = try string(field); try expect(UInt8(ascii: ":"), field) }
                    try skipValue(field)
                    guard let n = peek() else { throw fail(field, "line ends inside a value") }
                    i += 1
                    if n == close { return }
                    guard n == UInt8(ascii: ",") else { i -= 1; throw fail(field, "expected ',' in value") }
                }
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                while i < bytes.count, bytes[i] >= 97, bytes[i] <= 122 { i += 1 }
            default: _ = try number(field)
            }
        }

        mutating func entry() throws(GroundTruthError) -> GroundTruthEntry {
            try expect(UInt8(ascii: "{"), nil)
            var user: String?, time: EventTime?, stack: String?, distribution: [WidgetProbability]?
            var engaged: String?, hasEngaged = false, shown: String?, lift: Double?, intent: [WidgetProbability]?
            if peek() != UInt8(ascii: "}") {
                while true {
                    let key = try string(nil)
                    try expect(UInt8(ascii: ":"), key)
                    switch key {
                    case "user": user = try string(key)
                    case "stack": stack = try string(key)
                    case "time":
                        let text = try string(key)
                        do { time = try EventTime(rfc3339: text) } catch { throw fail(key, "\(error.message): '\(text)'") }
                    case "distribution": distribution = try probabilities(key)
                    case "intent": intent = try probabilities(key)
                    case "engaged", "shown":
                        var value: String?
                        if peek() == UInt8(ascii: "n") {
                            guard bytes[i...].starts(with: Array("null".utf8)) else { throw fail(key, "expected a string or null") }
                            i += 4
                        } else {
                            value = try string(key)
                        }
                        if key == "engaged" { engaged = value; hasEngaged = true } else { shown = value }
                    case "lift": lift = try number(key)
                    default:
                        try skipValue(key)
                        unknownKeys.append(key)
                    }
                    guard let c = peek() else { throw fail(nil, "line ends inside the object") }
                    i += 1
                    if c == UInt8(ascii: "}") { break }
                    guard c == UInt8(ascii: ",") else { i -= 1; throw fail(nil, "expected ',' or '}'") }
                }
            } else {
                i += 1
            }
            skipSpace()
            guard i == bytes.count else { throw fail(nil, "unexpected characters after the object") }
            guard let user else { throw fail("user", "missing required field") }
            guard let time else { throw fail("time", "missing required field") }
            guard let stack else { throw fail("stack", "missing required field") }
            guard let distribution else { throw fail("distribution", "missing required field") }
            guard hasEngaged else { throw fail("engaged", "missing required field (use null when nothing was engaged)") }
            if let engaged, !distribution.contains(where: { $0.widget == engaged }) {
                throw fail("engaged", "widget '\(engaged)' is not in the distribution")
            }
            // Probabilities of one session's engagement: they sum to at most 1 (the rest is
            // engaging none of the stack's widgets), up to the files' 4-decimal rounding.
            let tolerance = 1e-3
            let total = distribution.reduce(0) { $0 + $1.probability }
            guard total <= 1 + tolerance else {
                throw fail("distribution", "probabilities sum to \(total), more than 1 (they are the chances of engaging each widget in one session)")
            }
            if let lift {
                guard lift.isFinite, lift >= 0, lift <= 1 else {
                    throw fail("lift", "the display lift \(lift) is not a probability in [0, 1]")
                }
            }
            if let intent {
                let intended = intent.reduce(0) { $0 + $1.probability }
                guard intended <= 1 + tolerance else {
                    throw fail("intent", "probabilities sum to \(intended), more than 1")
                }
                if let stray = intent.first(where: { p in !distribution.contains { $0.widget == p.widget } }) {
                    throw fail("intent", "widget '\(stray.widget)' is not in the distribution")
                }
            }
            return GroundTruthEntry(user: user, time: time, stack: stack, distribution: distribution,
                                    engaged: engaged, shown: shown, lift: lift, intent: intent)
        }
    }
}
