// Internal: the event schema of SmartStack JSONL v1 (which fields each type has, their JSON types,
// required or optional, their ranges), decoding one line into an `Event`.
//
// Pass one runs the scanner over the whole line, remembering where the value of each known field
// is. Pass two reads the type, then decodes and validates only the fields that type uses. Unknown
// keys (and known keys the type does not use) are syntax-checked by the scanner and otherwise
// ignored.

/// Owns the per-field slots of a decoder (freed with the last copy of the decoder).
private final class JSONLFieldSlots {
    let members: UnsafeMutablePointer<JSONMember>

    init(count: Int) {
        members = .allocate(capacity: count)
        members.initialize(repeating: .absent, count: count)
    }

    deinit { members.deallocate() }
}

/// Decodes one line into an `Event`. Reused across lines (it keeps scratch buffers); not thread-safe.
struct JSONLEventDecoder {
    private let storage = JSONLFieldSlots(count: JSONLField.allCases.count)
    private let slots: UnsafeMutablePointer<JSONMember>
    /// Bit `k` set when `slots[k]` holds this line's member of field `k` (others are stale).
    private var presentFields: UInt64 = 0
    private var scratch: [UInt8] = []
    private var unknownKeys: [[UInt8]] = []
    private let fieldNames = JSONLField.names
    private let typeNames = Self.eventTypes

    private static let eventTypes = JSONNameTable(EventType.allCases.map { ($0.rawValue, $0) })
    /// What a `widgets` element looks like, for messages.
    private static let widgetShape = #"{"\#(JSONLField.id.name)": ..., "\#(JSONLField.app.name)": ...}"#

    init() {
        precondition(JSONLField.allCases.count <= UInt64.bitWidth, "presentFields has one bit per field")
        slots = storage.members
        scratch.reserveCapacity(256)
    }

    /// Where this line's member `field` is, or `.absent`.
    @inline(__always)
    private func slot(_ field: JSONLField) -> JSONMember {
        presentFields & (1 << UInt64(field.rawValue)) != 0 ? slots[field.rawValue] : .absent
    }

    /// The known field `key` names, if any.
    @inline(__always)
    private func field(_ key: JSONKeySpan, in scanner: JSONScanner) -> JSONLField? {
        if key.isEscaped { return escapedField(key, in: scanner) }
        return fieldNames.value(in: scanner.bytes, start: key.start &+ 1, count: key.end &- key.start &- 1)
    }

    /// The known field an escaped key names (rare: decodes a copy first).
    @inline(never)
    private func escapedField(_ key: JSONKeySpan, in scanner: JSONScanner) -> JSONLField? {
        scanner.decodedBytes(of: key).withUnsafeBufferPointer { fieldNames.value(for: $0) }
    }

    // MARK: - Pass one: where each field is

    /// Decodes `line`, one line without its newline.
    mutating func decode(_ line: UnsafeBufferPointer<UInt8>) throws(JSONLLineFailure) -> Event {
        presentFields = 0
        if !unknownKeys.isEmpty { unknownKeys.removeAll(keepingCapacity: true) }
        var scanner = try JSONScanner(line: line)
        while let member = try scanner.nextMember() {
            guard let field = field(member.key, in: scanner) else {
                try rememberUnknownKey(member.key, in: scanner)
                continue
            }
            let bit: UInt64 = 1 << UInt64(field.rawValue)
            guard presentFields & bit == 0 else {
                throw JSONLLineFailure(offset: member.key.start, field: field.name,
                                       message: "duplicate key '\(field.name)' (first at column \(slots[field.rawValue].key.start + 1))")
            }
            slots[field.rawValue] = member
            presentFields |= bit
        }
        return try event(scanner)
    }

    private mutating func rememberUnknownKey(_ key: JSONKeySpan, in scanner: JSONScanner) throws(JSONLLineFailure) {
        let bytes = scanner.decodedBytes(of: key)
        if unknownKeys.contains(bytes) {
            let name = String(decoding: bytes, as: UTF8.self)
            throw JSONLLineFailure(offset: key.start, field: name, message: "duplicate key '\(name)'")
        }
        unknownKeys.append(bytes)
    }

    // MARK: - Pass two: the event

    private mutating func event(_ s: JSONScanner) throws(JSONLLineFailure) -> Event {
        let type = try eventType(s)
        let time = try eventTime(s)
        let user = try optionalString(s, .user) ?? Event.defaultUser
        let id = try optionalString(s, .id)
        let payload: EventPayload
        switch type {
        case .stackConfig:
            let stack = try requiredString(s, .stack, type)
            payload = .stackConfig(stack: stack, widgets: try widgets(s, type))
        case .appLaunch:
            payload = .appLaunch(app: try requiredString(s, .app, type))
        case .widgetImpression:
            let stack = try requiredString(s, .stack, type)
            let widget = try requiredString(s, .widget, type)
            let propensity = try optionalNumber(s, .propensity)
            if let propensity, !(propensity > 0 && propensity <= 1) {
                throw valueFailure(.propensity, "must be in (0, 1] (a probability), found \(propensity)")
            }
            payload = .widgetImpression(stack: stack, widget: widget, propensity: propensity,
                                        policy: try optionalString(s, .policy))
        case .widgetTap:
            let widget = try requiredString(s, .widget, type)
            payload = .widgetTap(widget: widget, stack: try optionalString(s, .stack))
        case .widgetSwipe:
            let stack = try requiredString(s, .stack, type)
            let from = try requiredString(s, .from, type)
            payload = .widgetSwipe(stack: stack, from: from, to: try requiredString(s, .to, type))
        case .widgetPin:
            let stack = try requiredString(s, .stack, type)
            payload = .widgetPin(stack: stack, widget: try requiredString(s, .widget, type))
        case .widgetUnpin:
            let stack = try requiredString(s, .stack, type)
            payload = .widgetUnpin(stack: stack, widget: try requiredString(s, .widget, type))
        case .screenOn:
            payload = .screenOn
        case .location:
            let lat = try requiredNumber(s, .lat, type)
            guard lat >= -90 && lat <= 90 else {
                throw valueFailure(.lat, "latitude \(lat) is out of range -90...90")
            }
            let lon = try requiredNumber(s, .lon, type)
            guard lon >= -180 && lon <= 180 else {
                throw valueFailure(.lon, "longitude \(lon) is out of range -180...180")
            }
            let accuracy = try optionalNumber(s, .accuracy)
            if let accuracy, !(accuracy >= 0) {
                throw valueFailure(.accuracy, "must be >= 0 (metres), found \(accuracy)")
            }
            payload = .location(lat: lat, lon: lon, accuracy: accuracy)
        case .place:
            payload = .place(try requiredString(s, .place, type))
        case .context:
            let key = try requiredString(s, .key, type)
            payload = .context(key: key, value: try requiredString(s, .value, type, allowsEmpty: true))
        case .relevance:
            let widget = try requiredString(s, .widget, type)
            let score = try requiredNumber(s, .score, type)
            let duration = try optionalNumber(s, .duration)
            if let duration, !(duration >= 0) {
                throw valueFailure(.duration, "must be >= 0 (seconds), found \(duration)")
            }
            payload = .relevance(widget: widget, score: score, duration: duration)
        }
        return Event(time: time, user: user, id: id, payload: payload)
    }

    private mutating func eventType(_ s: JSONScanner) throws(JSONLLineFailure) -> EventType {
        let span = slot(.type).value
        guard span.kind != .absent else { throw Self.missing(JSONLField.type.name) }
        guard span.kind == .string else { throw wrongKind(JSONLField.type.name, "a string", span) }
        if !span.isEscaped, let type = typeNames.value(in: s.bytes, start: span.start, count: span.end - span.start) { return type }
        let name = s.string(span, scratch: &scratch)
        if let type = EventType(rawValue: name) { return type }
        let known = EventType.allCases.map(\.rawValue).joined(separator: ", ")
        throw valueFailure(.type, "unknown event type '\(name)' (expected one of: \(known))")
    }

    private mutating func eventTime(_ s: JSONScanner) throws(JSONLLineFailure) -> EventTime {
        let span = slot(.time).value
        guard span.kind != .absent else { throw Self.missing(JSONLField.time.name) }
        guard span.kind == .string else { throw wrongKind(JSONLField.time.name, "a string (RFC 3339 with a UTC offset)", span) }
        do {
            if span.isEscaped {
                s.decodeEscaped(span, into: &scratch)
                return try scratch.withUnsafeBufferPointer { (p) throws(TimeFormatError) in try EventTime(rfc3339Bytes: p) }
            }
            return try EventTime(rfc3339Bytes: s.content(of: span))
        } catch {
            // With escapes the offset inside the decoded text no longer maps to the line: point at the value.
            let offset = span.isEscaped ? span.valueStart : span.start + error.offset
            throw fieldFailure(offset, JSONLField.time.name, error.message)
        }
    }

    // MARK: - Field values

    private mutating func optionalString(_ s: JSONScanner, _ field: JSONLField) throws(JSONLLineFailure) -> String? {
        try optionalString(s, slot(field).value, field.name)
    }

    private mutating func requiredString(
        _ s: JSONScanner, _ field: JSONLField, _ type: EventType, allowsEmpty: Bool = false
    ) throws(JSONLLineFailure) -> String {
        try requiredString(s, slot(field).value, field.name, allowsEmpty: allowsEmpty, missing: Self.missing(field.name, for: type))
    }

    /// A string that may be absent or null (`nil`), never empty.
    private mutating func optionalString(
        _ s: JSONScanner, _ span: JSONValueSpan, _ name: @autoclosure () -> String
    ) throws(JSONLLineFailure) -> String? {
        switch span.kind {
        case .absent, .null: return nil
        case .string:
            guard span.end > span.start else { throw fieldFailure(span.valueStart, name(), "must not be empty (omit the field instead)") }
            return s.string(span, scratch: &scratch)
        default:
            throw wrongKind(name(), "a string", span)
        }
    }

    /// A string that must be present, and not empty unless `allowsEmpty`.
    private mutating func requiredString(
        _ s: JSONScanner, _ span: JSONValueSpan, _ name: @autoclosure () -> String, allowsEmpty: Bool = false,
        missing: @autoclosure () -> JSONLLineFailure
    ) throws(JSONLLineFailure) -> String {
        switch span.kind {
        case .absent: throw missing()
        case .string:
            guard allowsEmpty || span.end > span.start else { throw fieldFailure(span.valueStart, name(), "must not be empty") }
            return s.string(span, scratch: &scratch)
        default:
            throw wrongKind(name(), "a string", span)
        }
    }

    private func number(_ s: JSONScanner, _ field: JSONLField, _ span: JSONValueSpan) throws(JSONLLineFailure) -> Double {
        guard span.kind == .number else { throw wrongKind(field.name, "a number", span) }
        let value = s.double(span)
        guard value.isFinite else { throw valueFailure(field, "number is too large to be a finite double") }
        return value
    }

    private func requiredNumber(_ s: JSONScanner, _ field: JSONLField, _ type: EventType) throws(JSONLLineFailure) -> Double {
        let span = slot(field).value
        guard span.kind != .absent else { throw Self.missing(field.name, for: type) }
        return try number(s, field, span)
    }

    private func optionalNumber(_ s: JSONScanner, _ field: JSONLField) throws(JSONLLineFailure) -> Double? {
        let span = slot(field).value
        if span.kind == .absent || span.kind == .null { return nil }
        return try number(s, field, span)
    }

    /// Decodes `widgets` (its syntax already checked by pass one).
    private mutating func widgets(_ s: JSONScanner, _ type: EventType) throws(JSONLLineFailure) -> [WidgetConfig] {
        let member = slot(.widgets)
        guard member.value.kind != .absent else { throw Self.missing(JSONLField.widgets.name, for: type) }
        guard member.value.kind == .array else {
            throw wrongKind(JSONLField.widgets.name, "an array of \(Self.widgetShape) objects", member.value)
        }
        var result: [WidgetConfig] = []
        var elements = s.children(of: member)
        while let element = try elements.nextElement() {
            let index = result.count
            guard element.kind == .object else { throw wrongKind(Self.widgetPath(index), "an object \(Self.widgetShape)", element) }
            var idSpan = JSONValueSpan.absent
            var appSpan = JSONValueSpan.absent
            var otherKeys: [[UInt8]] = []
            var members = elements.children(of: element)
            while let widgetMember = try members.nextMember() {
                let isDuplicate: Bool
                switch field(widgetMember.key, in: s) {
                case .id:
                    isDuplicate = idSpan.kind != .absent
                    idSpan = widgetMember.value
                case .app:
                    isDuplicate = appSpan.kind != .absent
                    appSpan = widgetMember.value
                default:
                    let bytes = s.decodedBytes(of: widgetMember.key)
                    isDuplicate = otherKeys.contains(bytes)
                    otherKeys.append(bytes)
                }
                if isDuplicate {
                    let key = s.name(of: widgetMember.key)
                    throw JSONLLineFailure(offset: widgetMember.key.start, field: Self.widgetPath(index, key),
                                           message: "duplicate key '\(key)' in '\(Self.widgetPath(index))'")
                }
            }
            let id = try requiredString(s, idSpan, Self.widgetPath(index, JSONLField.id.name),
                                        missing: Self.missing(Self.widgetPath(index, JSONLField.id.name), at: element.valueStart))
            if result.contains(where: { $0.id == id }) {
                throw fieldFailure(idSpan.valueStart, Self.widgetPath(index, JSONLField.id.name), "widget '\(id)' appears twice in the stack")
            }
            let app = try optionalString(s, appSpan, Self.widgetPath(index, JSONLField.app.name))
            result.append(WidgetConfig(id: id, app: app))
        }
        return result
    }

    /// `widgets[index]`, or `widgets[index].key`: where a problem inside `widgets` is.
    private static func widgetPath(_ index: Int, _ key: String? = nil) -> String {
        let element = "\(JSONLField.widgets.name)[\(index)]"
        return key.map { "\(element).\($0)" } ?? element
    }

    // MARK: - Failures

    /// `field '<name>': <text>` at `offset`.
    private func fieldFailure(_ offset: Int, _ name: String, _ text: String) -> JSONLLineFailure {
        JSONLLineFailure(offset: offset, field: name, message: "field '\(name)': \(text)")
    }

    /// A failure about the value of `field`.
    private func valueFailure(_ field: JSONLField, _ text: String) -> JSONLLineFailure {
        fieldFailure(slot(field).value.valueStart, field.name, text)
    }

    private func wrongKind(_ name: String, _ expected: String, _ span: JSONValueSpan) -> JSONLLineFailure {
        JSONLLineFailure(offset: span.valueStart, field: name, message: "field '\(name)' must be \(expected), found \(span.kind.phrase)")
    }

    /// A required field that is absent: at column 1 for the event's own fields, at the widget for a widget's.
    private static func missing(_ name: String, at offset: Int = 0, for type: EventType? = nil) -> JSONLLineFailure {
        let detail = type.map { " for type '\($0.rawValue)'" } ?? ""
        return JSONLLineFailure(offset: offset, field: name, message: "missing required field '\(name)'\(detail)")
    }
}
