import SmartStack

/// How an importer gives each imported user a stack, without peeking at the future.
///
/// The rule (also in Datasets/README.md):
/// - ``mostUsed(count:warmUpDays:)`` (the default, 6 apps over 7 days): the user's warm-up
///   period starts at their first imported event (any type) and lasts `warmUpDays` days.
///   The `count` apps launched most often during it (`app_launch` events strictly before
///   its end; ties broken by earliest first launch, then by name) become the stack, in that
///   order. The `stack_config` is emitted at the end of the warm-up, so it is dated after
///   every event it was computed from and replay never sees a stack built from the future.
///   It carries the UTC offset of the user's last event before it. A user with no launch in
///   the warm-up gets no stack (the import notes it). Before the config the user has no
///   stack, so nothing is ranked during the warm-up.
/// - ``fixed(apps:)`` (`--widgets a,b,c`): the stack the person says they have, emitted just
///   before the user's first event.
/// - ``none``: no `stack_config`.
///
/// Widget ids are short names derived from the app (``WidgetNaming``) with `app` = the app.
public enum ImportStackRule: Sendable, Hashable {
    /// No stack configuration is emitted.
    case none
    /// The `count` most launched apps of the first `warmUpDays` days, emitted at their end.
    case mostUsed(count: Int, warmUpDays: Double)
    /// The given apps, in this order, emitted at the user's first event.
    case fixed(apps: [String])

    /// Six apps over a seven-day warm-up.
    public static let standard = ImportStackRule.mostUsed(count: 6, warmUpDays: 7)

    /// `events` (one user's, in time order) with the stack configuration inserted.
    ///
    /// - Returns: the events, and the config emitted (nil if none).
    /// - Complexity: O(n + a log a) for n events and a distinct apps.
    public func applied(to events: [Event], user: String, stack: String) -> (events: [Event], config: Event?) {
        guard let first = events.first else { return (events, nil) }
        switch self {
        case .none:
            return (events, nil)
        case .fixed(let apps):
            guard !apps.isEmpty else { return (events, nil) }
            let config = Event(time: first.time, user: user,
                               payload: .stackConfig(stack: stack, widgets: WidgetNaming.widgets(forApps: apps)))
            return ([config] + events, config)
        case .mostUsed(let count, let days):
            guard count > 0 else { return (events, nil) }
            let endNanos = first.time.nanosecondsSinceEpoch + Int64((days * 86_400 * 1e9).rounded())
            var counts: [String: (n: Int, firstSeen: Int)] = [:]
            var insertAt = events.count
            for (i, event) in events.enumerated() {
                guard event.time.nanosecondsSinceEpoch < endNanos else { insertAt = i; break }
                if case .appLaunch(let app) = event.payload {
                    counts[app, default: (0, i)].n += 1
                }
            }
            guard !counts.isEmpty else { return (events, nil) }
            let top = counts.sorted { a, b in
                if a.value.n != b.value.n { return a.value.n > b.value.n }
                if a.value.firstSeen != b.value.firstSeen { return a.value.firstSeen < b.value.firstSeen }
                return a.key < b.key
            }.prefix(count).map(\.key)
            let offset = insertAt > 0 ? events[insertAt - 1].time.utcOffsetSeconds : first.time.utcOffsetSeconds
            let config = Event(time: EventTime(nanosecondsSinceEpoch: endNanos, utcOffsetSeconds: offset), user: user,
                               payload: .stackConfig(stack: stack, widgets: WidgetNaming.widgets(forApps: top)))
            var out = events
            out.insert(config, at: insertAt)
            return (out, config)
        }
    }
}

/// Derives short, unique widget ids from app names.
///
/// ```swift
/// WidgetNaming.widgets(forApps: ["com.google.android.gm", "flipboard.app", "Google Chrome"])
///     .map(\.id)   // ["gm", "flipboard", "google-chrome"]
/// ```
///
/// The id is the last dot-separated component of the package, skipping generic trailing
/// words (`app`, `android`, `mobile`, `client`, `main`, `free`, `pro`, `lite`), lowercased
/// with other characters than letters, digits, `_` and `-` turned into `-`. On a collision
/// the last two components are joined (`apps-maps`), then `-2`, `-3`... is appended.
public enum WidgetNaming {
    static let genericWords: Set<String> = ["app", "android", "mobile", "client", "main", "free", "pro", "lite", "apps"]

    /// One widget per app, in the same order, `app` set to the app name.
    ///
    /// - Complexity: O(total length of the names).
    public static func widgets(forApps apps: [String]) -> [WidgetConfig] {
        var used: Set<String> = []
        return apps.map { app in
            let candidates = candidateIDs(for: app)
            var id = candidates.first(where: { !used.contains($0) })
            if id == nil {
                var k = 2
                while used.contains("\(candidates[0])-\(k)") { k += 1 }
                id = "\(candidates[0])-\(k)"
            }
            used.insert(id!)
            return WidgetConfig(id: id!, app: app)
        }
    }

    static func slug(_ text: String) -> String {
        var out = ""
        var lastWasDash = false
        for scalar in text.lowercased().unicodeScalars {
            let keep = (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") || scalar == "_"
            if keep {
                out.unicodeScalars.append(scalar)
                lastWasDash = false
            } else if !lastWasDash, !out.isEmpty {
                out += "-"
                lastWasDash = true
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "widget" : out
    }

    static func candidateIDs(for app: String) -> [String] {
        let parts = app.contains(" ") ? [app] : app.split(separator: ".").map(String.init)
        var meaningful = parts
        while meaningful.count > 1, let last = meaningful.last, genericWords.contains(last.lowercased()) {
            meaningful.removeLast()
        }
        let short = slug(meaningful.last ?? app)
        var candidates = [short]
        if meaningful.count >= 2 {
            candidates.append(slug(meaningful[meaningful.count - 2]) + "-" + short)
        }
        candidates.append(slug(app))
        return candidates
    }
}
