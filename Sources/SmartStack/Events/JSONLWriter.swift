/// Writes events as canonical SmartStack JSONL v1 (one object per line, `\n`-terminated).
///
/// Canonical means: keys in a fixed order (`time`, `type`, `user`, `id` when present, then the
/// type's fields in the order of the format), `time` as ``EventTime/rfc3339``, numbers in
/// Swift's shortest round-trip form (`0.25`, `1.0`, `1e-07`), optional fields omitted when nil,
/// strings with only `"`, `\` and control characters escaped. Reading a written line gives back
/// an equal `Event`, so export → ingest → export is byte-identical.
///
/// ```swift
/// JSONLWriter.line(for: event)
/// // {"time":"2013-03-27T08:05:00-04:00","type":"app_launch","user":"u00","app":"com.x"}
/// ```
///
/// The writer writes what it is given: an event the reader would reject (an empty id, a NaN
/// latitude, written as `null`) stays invalid.
public enum JSONLWriter: Sendable {
    /// The canonical line for `event`, without the trailing newline.
    ///
    /// - Complexity: O(n) in the size of the event.
    public static func line(for event: Event) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(192)
        appendObject(event, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the canonical line for `event` and a newline to `buffer` (the fast path).
    ///
    /// - Complexity: O(n) in the size of the event.
    public static func append(_ event: Event, to buffer: inout [UInt8]) {
        appendObject(event, to: &buffer)
        buffer.append(0x0A)
    }

    private static func appendObject(_ event: Event, to out: inout [UInt8]) {
        appendKey(.time, after: UInt8(ascii: "{"), to: &out)
        out.append(UInt8(ascii: "\""))
        event.time.appendRFC3339(to: &out)
        out.append(UInt8(ascii: "\""))
        appendKey(.type, after: UInt8(ascii: ","), to: &out)
        out.append(UInt8(ascii: "\""))   // type names never need escaping
        out.append(contentsOf: event.type.rawValue.utf8)
        out.append(UInt8(ascii: "\""))
        appendField(.user, string: event.user, to: &out)
        if let id = event.id { appendField(.id, string: id, to: &out) }
        switch event.payload {
        case .stackConfig(let stack, let widgets):
            appendField(.stack, string: stack, to: &out)
            appendKey(.widgets, after: UInt8(ascii: ","), to: &out)
            out.append(UInt8(ascii: "["))
            for (index, widget) in widgets.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendKey(.id, after: UInt8(ascii: "{"), to: &out)
                appendString(widget.id, to: &out)
                if let app = widget.app { appendField(.app, string: app, to: &out) }
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        case .appLaunch(let app):
            appendField(.app, string: app, to: &out)
        case .widgetImpression(let stack, let widget, let propensity, let policy):
            appendField(.stack, string: stack, to: &out)
            appendField(.widget, string: widget, to: &out)
            if let propensity { appendField(.propensity, number: propensity, to: &out) }
            if let policy { appendField(.policy, string: policy, to: &out) }
        case .widgetTap(let widget, let stack):
            appendField(.widget, string: widget, to: &out)
            if let stack { appendField(.stack, string: stack, to: &out) }
        case .widgetSwipe(let stack, let from, let to):
            appendField(.stack, string: stack, to: &out)
            appendField(.from, string: from, to: &out)
            appendField(.to, string: to, to: &out)
        case .widgetPin(let stack, let widget), .widgetUnpin(let stack, let widget):
            appendField(.stack, string: stack, to: &out)
            appendField(.widget, string: widget, to: &out)
        case .screenOn:
            break
        case .location(let lat, let lon, let accuracy):
            appendField(.lat, number: lat, to: &out)
            appendField(.lon, number: lon, to: &out)
            if let accuracy { appendField(.accuracy, number: accuracy, to: &out) }
        case .place(let place):
            appendField(.place, string: place, to: &out)
        case .context(let key, let value):
            appendField(.key, string: key, to: &out)
            appendField(.value, string: value, to: &out)
        case .relevance(let widget, let score, let duration):
            appendField(.widget, string: widget, to: &out)
            appendField(.score, number: score, to: &out)
            if let duration { appendField(.duration, number: duration, to: &out) }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `,"key":` then the string.
    private static func appendField(_ field: JSONLField, string: String, to out: inout [UInt8]) {
        appendKey(field, after: UInt8(ascii: ","), to: &out)
        appendString(string, to: &out)
    }

    /// `,"key":` then the number.
    private static func appendField(_ field: JSONLField, number: Double, to out: inout [UInt8]) {
        appendKey(field, after: UInt8(ascii: ","), to: &out)
        // `description` is the shortest text that reads back to the same bits (`1.0`, `1e-07`,
        // `-0.0`), and always valid JSON for finite values.
        if number.isFinite {
            out.append(contentsOf: number.description.utf8)
        } else {
            out.append(contentsOf: "null".utf8)
        }
    }

    /// `separator` then `"key":`.
    private static func appendKey(_ field: JSONLField, after separator: UInt8, to out: inout [UInt8]) {
        let key = field.spelling
        out.append(separator)
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string literal (see ``appendString(_:to:)``): for the other JSON the
    /// package writes (rankings, decision exports), escaped exactly as event lines are.
    package static func string(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        appendString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON string literal: escapes `"`, `\` and C0 controls; everything else stays UTF-8.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "\\"))
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "f"))
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hexDigits[Int(c >> 4)])
                out.append(hexDigits[Int(c & 0xF)])
            default:
                out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
