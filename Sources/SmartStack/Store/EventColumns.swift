import SmartStackSQLite

/// Where each event type's fields live in a row of `events`.
///
/// | type              | s1     | s2      | s3     | n1         | n2       | n3       | widgets |
/// |-------------------|--------|---------|--------|------------|----------|----------|---------|
/// | stack_config      | stack  |         |        |            |          |          | list    |
/// | app_launch        | app    |         |        |            |          |          |         |
/// | widget_impression | stack  | widget  | policy | propensity |          |          |         |
/// | widget_tap        | widget | stack   |        |            |          |          |         |
/// | widget_swipe      | stack  | from    | to     |            |          |          |         |
/// | widget_pin/unpin  | stack  | widget  |        |            |          |          |         |
/// | screen_on         |        |         |        |            |          |          |         |
/// | location          |        |         |        | lat        | lon      | accuracy |         |
/// | place             | place  |         |        |            |          |          |         |
/// | context           | key    | value   |        |            |          |          |         |
/// | relevance         | widget |         |        | score      | duration |          |         |
///
/// An absent optional field is `NULL`; an empty string is stored as empty text. The widget
/// list is a blob: per widget, the LEB128 byte length of its id, the id's UTF-8 bytes, then
/// 0 for no app or the app's byte length + 1 followed by the app's UTF-8 bytes.
enum EventColumns {
    /// Binds parameters 6...13 (type and fields) of ``StoreSchema/insertEvent``.
    /// Returns the name of a NaN field when the event cannot be stored faithfully.
    @inline(__always)
    static func bindFields(of payload: EventPayload, to insert: Statement,
                           coarsensLocations: Bool) throws(SQLiteError) -> String? {
        try insert.bind(Int64(payload.type.code), at: 6)
        switch payload {
        case let .stackConfig(stack, widgets):
            try fields(insert, s1: stack, widgets: encodeWidgets(widgets))
        case let .appLaunch(app):
            try fields(insert, s1: app)
        case let .widgetImpression(stack, widget, propensity, policy):
            if propensity?.isNaN == true { return "propensity" }
            try fields(insert, s1: stack, s2: widget, s3: policy, n1: propensity)
        case let .widgetTap(widget, stack):
            try fields(insert, s1: widget, s2: stack)
        case let .widgetSwipe(stack, from, to):
            try fields(insert, s1: stack, s2: from, s3: to)
        case let .widgetPin(stack, widget), let .widgetUnpin(stack, widget):
            try fields(insert, s1: stack, s2: widget)
        case .screenOn:
            try fields(insert)
        case let .location(lat, lon, accuracy):
            if lat.isNaN { return "lat" }
            if lon.isNaN { return "lon" }
            if accuracy?.isNaN == true { return "accuracy" }
            if coarsensLocations {
                let coarse = coarsened(lat: lat, lon: lon, accuracy: accuracy)
                try fields(insert, n1: coarse.lat, n2: coarse.lon, n3: coarse.accuracy)
            } else {
                try fields(insert, n1: lat, n2: lon, n3: accuracy)
            }
        case let .place(place):
            try fields(insert, s1: place)
        case let .context(key, value):
            try fields(insert, s1: key, s2: value)
        case let .relevance(widget, score, duration):
            if score.isNaN { return "score" }
            if duration?.isNaN == true { return "duration" }
            try fields(insert, s1: widget, n1: score, n2: duration)
        }
        return nil
    }

    @inline(__always)
    private static func fields(_ insert: Statement, s1: String? = nil, s2: String? = nil, s3: String? = nil,
                               n1: Double? = nil, n2: Double? = nil, n3: Double? = nil,
                               widgets: [UInt8]? = nil) throws(SQLiteError) {
        try insert.bind(s1, at: 7)
        try insert.bind(s2, at: 8)
        try insert.bind(s3, at: 9)
        try insert.bind(n1, at: 10)
        try insert.bind(n2, at: 11)
        try insert.bind(n3, at: 12)
        try insert.bind(widgets, at: 13)
    }

    /// A location snapped to a grid of 0.001° (at most 111 m), with an accuracy of at least
    /// 100 m when one is given, so the fine position never reaches the disk.
    static func coarsened(lat: Double, lon: Double, accuracy: Double?) -> (lat: Double, lon: Double, accuracy: Double?) {
        ((lat * 1000).rounded() / 1000, (lon * 1000).rounded() / 1000, accuracy.map { max($0, 100) })
    }

    /// `event` as a store with `coarsensLocations` keeps it: a location coarsened, anything else
    /// unchanged. What the engine learns from must be what the log holds, or a state rebuilt from
    /// the log would differ from the live one (and fine positions would reach the saved state).
    static func stored(_ event: Event, coarsensLocations: Bool) -> Event {
        guard coarsensLocations, case let .location(lat, lon, accuracy) = event.payload else { return event }
        let coarse = coarsened(lat: lat, lon: lon, accuracy: accuracy)
        var copy = event
        copy.payload = .location(lat: coarse.lat, lon: coarse.lon, accuracy: coarse.accuracy)
        return copy
    }

    /// Why a stored row cannot be read back as an event.
    struct RowError: Error {
        var message: String
    }

    /// Reads the payload from a row selected with ``StoreSchema/selectColumns`` (type at column 5).
    static func payload(from row: Statement) throws(RowError) -> EventPayload {
        let code = Int(row.int64(at: 5))
        guard let type = EventType(code: code) else {
            throw RowError(message: "unknown event type code \(code)")
        }
        func text(_ column: Int32, _ field: String) throws(RowError) -> String {
            guard !row.isNull(at: column) else { throw RowError(message: "\(type.rawValue) without \(field)") }
            return row.string(at: column)
        }
        func number(_ column: Int32, _ field: String) throws(RowError) -> Double {
            guard let value = row.optionalDouble(at: column) else {
                throw RowError(message: "\(type.rawValue) without \(field)")
            }
            return value
        }
        switch type {
        case .stackConfig:
            let widgets = row.withBlob(at: 12) { decodeWidgets($0) }
            guard let widgets else { throw RowError(message: "stack_config with a damaged widget list") }
            return .stackConfig(stack: try text(6, "stack"), widgets: widgets)
        case .appLaunch:
            return .appLaunch(app: try text(6, "app"))
        case .widgetImpression:
            return .widgetImpression(stack: try text(6, "stack"), widget: try text(7, "widget"),
                                     propensity: row.optionalDouble(at: 9), policy: row.optionalString(at: 8))
        case .widgetTap:
            return .widgetTap(widget: try text(6, "widget"), stack: row.optionalString(at: 7))
        case .widgetSwipe:
            return .widgetSwipe(stack: try text(6, "stack"), from: try text(7, "from"), to: try text(8, "to"))
        case .widgetPin:
            return .widgetPin(stack: try text(6, "stack"), widget: try text(7, "widget"))
        case .widgetUnpin:
            return .widgetUnpin(stack: try text(6, "stack"), widget: try text(7, "widget"))
        case .screenOn:
            return .screenOn
        case .location:
            return .location(lat: try number(9, "lat"), lon: try number(10, "lon"), accuracy: row.optionalDouble(at: 11))
        case .place:
            return .place(try text(6, "place"))
        case .context:
            return .context(key: try text(6, "key"), value: try text(7, "value"))
        case .relevance:
            return .relevance(widget: try text(6, "widget"), score: try number(9, "score"),
                              duration: row.optionalDouble(at: 10))
        }
    }

    // MARK: Widget lists

    /// Encodes a widget list (see the type's documentation for the layout).
    ///
    /// - Complexity: O(total bytes of the ids and apps).
    static func encodeWidgets(_ widgets: [WidgetConfig]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(widgets.count * 16)
        for widget in widgets {
            appendVarint(UInt64(widget.id.utf8.count), to: &bytes)
            bytes.append(contentsOf: widget.id.utf8)
            if let app = widget.app {
                appendVarint(UInt64(app.utf8.count) + 1, to: &bytes)
                bytes.append(contentsOf: app.utf8)
            } else {
                bytes.append(0)
            }
        }
        return bytes
    }

    /// Decodes a widget list; `nil` when the bytes are not a valid encoding.
    ///
    /// - Complexity: O(bytes).
    static func decodeWidgets(_ bytes: UnsafeRawBufferPointer) -> [WidgetConfig]? {
        var widgets: [WidgetConfig] = []
        var index = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count, shift < 64 {
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        func string(length: UInt64) -> String? {
            guard length <= UInt64(bytes.count - index) else { return nil }
            let end = index + Int(length)
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
            index = end
            return text
        }
        while index < bytes.count {
            guard let idLength = varint(), let id = string(length: idLength), let appTag = varint() else { return nil }
            if appTag == 0 {
                widgets.append(WidgetConfig(id: id))
            } else {
                guard let app = string(length: appTag - 1) else { return nil }
                widgets.append(WidgetConfig(id: id, app: app))
            }
        }
        return widgets
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}
