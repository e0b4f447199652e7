/// The rules of the JSONL v1 format (`Datasets/FORMAT.md`) applied to an event built in code, so
/// that the Swift door stores exactly what a JSONL line could carry: what the reader refuses in a
/// line, ``Engine/record(_:)`` refuses in an `Event` (`docs/contract.md`).
extension Event {
    /// Why the format would refuse this event, `nil` when it accepts it: a sentence naming the
    /// field, as the reader's messages do.
    ///
    /// ```swift
    /// Event(time: t, user: "", payload: .screenOn).formatViolation   // "field 'user': must not be empty (omit the field instead)"
    /// ```
    /// - Complexity: O(strings' lengths) only for events near the 1 MiB line limit, O(widgets) otherwise.
    package var formatViolation: String? {
        if let reason = time.unsupportedReason(name: "field 'time': the time") { return reason }
        if user.isEmpty { return "field 'user': must not be empty (omit the field instead)" }
        if let id, id.isEmpty { return "field 'id': must not be empty (omit the field instead)" }
        if let reason = payload.formatViolation { return reason }
        if let reason = lineLengthViolation { return reason }
        return nil
    }

    /// The line the writer would give this event is over the reader's limit.
    private var lineLengthViolation: String? {
        let limit = JSONLLineSource.defaultMaximumLineLength
        // Each byte of a string takes at most 6 in JSON (`\u001f`); the rest of a line is short.
        var bound = 256 + (user.utf8.count + (id?.utf8.count ?? 0)) * 6
        switch payload {
        case .stackConfig(let stack, let widgets):
            bound += stack.utf8.count * 6
            for widget in widgets { bound += 32 + (widget.id.utf8.count + (widget.app?.utf8.count ?? 0)) * 6 }
        default:
            bound += payload.strings.reduce(0) { $0 + $1.utf8.count * 6 }
        }
        guard bound > limit else { return nil }
        let length = JSONLWriter.line(for: self).utf8.count
        guard length > limit else { return nil }
        return "the event's JSONL line would be \(length) bytes, longer than the limit of \(limit) bytes"
    }
}

extension EventPayload {
    /// Why the format would refuse these fields, `nil` when it accepts them.
    var formatViolation: String? {
        func empty(_ field: String) -> String { "field '\(field)': must not be empty" }
        func omit(_ field: String) -> String { "field '\(field)': must not be empty (omit the field instead)" }
        switch self {
        case .stackConfig(let stack, let widgets):
            if stack.isEmpty { return empty("stack") }
            var seen: Set<String> = []
            for (i, widget) in widgets.enumerated() {
                if widget.id.isEmpty { return empty("widgets[\(i)].id") }
                if let app = widget.app, app.isEmpty { return omit("widgets[\(i)].app") }
                if !seen.insert(widget.id).inserted { return "field 'widgets[\(i)].id': widget '\(widget.id)' appears twice in the stack" }
            }
        case .appLaunch(let app):
            if app.isEmpty { return empty("app") }
        case .widgetImpression(let stack, let widget, let propensity, let policy):
            if stack.isEmpty { return empty("stack") }
            if widget.isEmpty { return empty("widget") }
            if let propensity, !(propensity > 0 && propensity <= 1) {
                return "field 'propensity': must be in (0, 1] (a probability), found \(propensity)"
            }
            if let policy, policy.isEmpty { return omit("policy") }
        case .widgetTap(let widget, let stack):
            if widget.isEmpty { return empty("widget") }
            if let stack, stack.isEmpty { return omit("stack") }
        case .widgetSwipe(let stack, let from, let to):
            if stack.isEmpty { return empty("stack") }
            if from.isEmpty { return empty("from") }
            if to.isEmpty { return empty("to") }
        case .widgetPin(let stack, let widget), .widgetUnpin(let stack, let widget):
            if stack.isEmpty { return empty("stack") }
            if widget.isEmpty { return empty("widget") }
        case .screenOn:
            break
        case .location(let lat, let lon, let accuracy):
            guard lat >= -90 && lat <= 90 else { return "field 'lat': latitude \(lat) is out of range -90...90" }
            guard lon >= -180 && lon <= 180 else { return "field 'lon': longitude \(lon) is out of range -180...180" }
            if let accuracy, !(accuracy >= 0 && accuracy.isFinite) {
                return "field 'accuracy': must be >= 0 (metres) and finite, found \(accuracy)"
            }
        case .place(let place):
            if place.isEmpty { return empty("place") }
        case .context(let key, _):
            if key.isEmpty { return empty("key") }
        case .relevance(let widget, let score, let duration):
            if widget.isEmpty { return empty("widget") }
            if !score.isFinite { return "field 'score': must be a finite number, found \(score)" }
            if let duration, !(duration >= 0 && duration.isFinite) {
                return "field 'duration': must be >= 0 (seconds) and finite, found \(duration)"
            }
        }
        return nil
    }

    /// The payload's strings (for the line-length bound; a stack configuration is counted apart).
    fileprivate var strings: [String] {
        switch self {
        case .stackConfig(let stack, _): [stack]
        case .appLaunch(let app): [app]
        case .widgetImpression(let stack, let widget, _, let policy): [stack, widget, policy ?? ""]
        case .widgetTap(let widget, let stack): [widget, stack ?? ""]
        case .widgetSwipe(let stack, let from, let to): [stack, from, to]
        case .widgetPin(let stack, let widget), .widgetUnpin(let stack, let widget): [stack, widget]
        case .screenOn, .location: []
        case .place(let place): [place]
        case .context(let key, let value): [key, value]
        case .relevance(let widget, _, _): [widget]
        }
    }
}
