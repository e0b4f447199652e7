import Foundation

/// What many people's logs say about widgets and apps, for a person with little evidence of
/// their own: how often a widget is used (engagements per person-day) and how much more or less
/// than the average engagement it is used in each local hour, on weekdays and weekend days, at
/// each kind of place (`home`, `work`: the text of `place` events, never coordinates).
///
/// A host with real population data learns one (`smartstack prior learn`, file format
/// `Datasets/PRIOR-FORMAT.md`) and hands it in; none ships and none is on by default:
///
/// ```swift
/// let prior = try PopulationPrior(contentsOfFile: "prior.jsonl")
/// let engine = try Engine(path: "smartstack.sqlite", prior: prior)
/// ```
///
/// The model (`ContextualModel`) smooths a person's own distributions toward it, as `population`
/// pseudo-engagements (policy parameter, default 5): their overall usage toward the population's
/// rates, and their time of day toward the population's lift in this hour, kind of day and kind of
/// place. So it decides a cold stack, and the person's own counts take over after a handful of
/// engagements (overall, and around the time of day at hand). A widget the prior names only by its
/// app takes the app's values. The prior compares only the widgets of a stack it names among
/// themselves: it says nothing about a widget it does not name, nor about a stack of which it
/// names fewer than two.
public struct PopulationPrior: Sendable, Hashable, CustomStringConvertible {
    /// The format's name in the header line, and the version this engine reads and writes.
    public static let format = "smartstack-prior"
    public static let version = 1
    /// Files larger than this are refused before they are read (a prior of 10,000 widgets and
    /// apps with every cell filled is about 20 MB).
    public static let maximumFileBytes = 64 << 20
    /// At most this many kinds of place.
    public static let maximumPlaceKinds = 64
    /// Lifts lie in `(0, maximumLift]`, rates in `[0, maximumRate]`.
    public static let maximumLift = 1000.0
    public static let maximumRate = 1_000_000.0

    static let dayKinds = 2
    static let hours = 24
    static let partsOfDay = 4
    /// The part of day of a local hour: night 0–5, morning 6–11, afternoon 12–17, evening 18–23.
    @inline(__always) package static func part(ofHour h: Int) -> Int { h / 6 }
    /// `weekday`, `weekend`: the day kinds in the order of every array of the file.
    static let dayKindNames = ["weekday", "weekend"]
    static let partNames = ["night", "morning", "afternoon", "evening"]

    /// One widget's or app's line of the file: its rate and its lifts per cell, `nil` where fewer
    /// than `minimumPeople` people who have it were active in the cell (the reader falls back to
    /// the coarser cell: place → hour → part of day → kind of day → the widget's app → 1).
    package struct Entry: Sendable, Hashable {
        package enum Kind: Sendable, Hashable { case widget, app }
        package var kind: Kind
        package var id: String
        /// A widget's app, whose values stand in where the widget's own are withheld.
        package var app: String?
        /// Distinct people who have it (a widget configured, an app launched), at least
        /// `minimumPeople`.
        package var people: Int
        /// Engagements per person-day among the people who have it.
        package var rate: Double
        /// Lift per kind of day, `[weekday, weekend]`.
        package var days: [Double?]
        /// Lift per kind of day and part of day, `[2][4]`.
        package var parts: [[Double?]]
        /// Lift per kind of day and local hour, `[2][24]`.
        package var hours: [[Double?]]
        /// Lift per kind of place (parallel to `placeKinds`, `nil` when none is kept), kind of
        /// day and hour, `[P][2][24]`.
        package var places: [[[Double?]]?]

        package init(kind: Kind, id: String, app: String?, people: Int, rate: Double, days: [Double?], parts: [[Double?]],
                     hours: [[Double?]], places: [[[Double?]]?]) {
            self.kind = kind; self.id = id; self.app = app; self.people = people; self.rate = rate
            self.days = days; self.parts = parts; self.hours = hours; self.places = places
        }
    }

    /// The kinds of place, lowercased, in file order.
    public let placeKinds: [String]
    /// Cells (and widgets, apps, kinds of place) seen in fewer people were left out.
    public let minimumPeople: Int
    /// People the prior was learnt from.
    public let people: Int
    /// The learner's pseudo-count toward coarser cells (expected engagements).
    public let shrinkage: Double
    /// The lines of the file, widgets then apps, each sorted by id.
    package let entries: [Entry]
    /// FNV-1a 64 of the file's canonical text, 16 hex digits: names the prior in saved states.
    public let digest: String

    // Resolved once for look-ups while scoring: rows by widget id and by app id, each row's rate
    // and its lifts with every fallback applied, laid out by `liftIndex`.
    private let widgetRows: [String: Int32]
    private let appRows: [String: Int32]
    private let placeKindIndex: [String: Int]
    let rates: [Double]
    let lifts: [Double]
    /// Lifts per row: kinds of day × (kinds of place + 1, the first for "any place") × hours.
    let rowStride: Int

    /// How many widgets and apps the prior names.
    public var widgetCount: Int { widgetRows.count }
    public var appCount: Int { appRows.count }

    public var description: String {
        "population prior of \(widgetCount) widget(s) and \(appCount) app(s) from \(people) people "
            + "(cells kept when seen in >= \(minimumPeople); place kinds: "
            + (placeKinds.isEmpty ? "none" : placeKinds.joined(separator: ", ")) + "; digest \(digest))"
    }

    /// A prior of `entries` (checked as a file's would be). The learner's way in.
    /// - Throws: ``EngineError`` of kind ``EngineError/Kind/invalidPrior`` naming the entry and field.
    package init(placeKinds: [String], minimumPeople: Int, people: Int, shrinkage: Double, entries: [Entry]) throws(EngineError) {
        let sorted = entries.filter { $0.kind == .widget }.sorted { $0.id < $1.id }
            + entries.filter { $0.kind == .app }.sorted { $0.id < $1.id }
        try self.init(checked: placeKinds, minimumPeople: minimumPeople, people: people, shrinkage: shrinkage,
                      entries: sorted, name: "prior", digest: nil)
    }

    /// Checks, resolves and names the prior; `digest` `nil` computes it from the canonical text.
    init(checked placeKinds: [String], minimumPeople: Int, people: Int, shrinkage: Double, entries: [Entry], name: String,
         digest: String?) throws(EngineError) {
        func fail(_ text: String) -> EngineError { EngineError(.invalidPrior, "\(name): \(text)") }
        guard minimumPeople >= 1 else { throw fail("field 'min_people': \(minimumPeople) is not a positive integer") }
        guard people >= 0 else { throw fail("field 'people': \(people) is negative") }
        guard shrinkage.isFinite, shrinkage >= 0 else { throw fail("field 'shrinkage': \(shrinkage) is not a non-negative number") }
        guard placeKinds.count <= Self.maximumPlaceKinds else {
            throw fail("field 'place_kinds': \(placeKinds.count) kinds of place, at most \(Self.maximumPlaceKinds)")
        }
        var kindIndex: [String: Int] = [:]
        for (k, kind) in placeKinds.enumerated() {
            guard !kind.isEmpty, kind == Self.placeKey(kind) else {
                throw fail("field 'place_kinds': '\(kind)' is not a lowercase label without surrounding spaces")
            }
            guard kindIndex.updateValue(k, forKey: kind) == nil else { throw fail("field 'place_kinds': '\(kind)' is listed twice") }
        }
        var widgetRows: [String: Int32] = [:], appRows: [String: Int32] = [:]
        for (r, e) in entries.enumerated() {
            let what = "\(e.kind == .widget ? "widget" : "app") '\(e.id)'"
            guard !e.id.isEmpty else { throw fail("an entry has an empty id") }
            guard e.days.count == Self.dayKinds, e.parts.count == Self.dayKinds, e.hours.count == Self.dayKinds,
                  e.parts.allSatisfy({ $0.count == Self.partsOfDay }), e.hours.allSatisfy({ $0.count == Self.hours }),
                  e.places.count == placeKinds.count,
                  e.places.allSatisfy({ $0 == nil || ($0!.count == Self.dayKinds && $0!.allSatisfy { $0.count == Self.hours }) }) else {
                throw fail("\(what): its arrays do not have the format's shape")
            }
            guard e.rate.isFinite, e.rate >= 0, e.rate <= Self.maximumRate else {
                throw fail("\(what): field 'rate': \(e.rate) is not a number in 0...\(Self.maximumRate)")
            }
            let cells = e.days + e.parts.joined() + e.hours.joined() + e.places.compactMap { $0 }.joined().joined()
            for case let v? in cells where !(v > 0 && v <= Self.maximumLift) {
                throw fail("\(what): a lift of \(v): lifts are numbers in (0, \(Self.maximumLift)]")
            }
            let rows = e.kind == .widget ? widgetRows : appRows
            guard rows[e.id] == nil else { throw fail("\(what) is listed twice") }
            if e.kind == .widget { widgetRows[e.id] = Int32(r) } else { appRows[e.id] = Int32(r) }
        }
        self.placeKinds = placeKinds
        self.minimumPeople = minimumPeople
        self.people = people
        self.shrinkage = shrinkage
        self.entries = entries
        self.widgetRows = widgetRows
        self.appRows = appRows
        self.placeKindIndex = kindIndex
        let stride = Self.dayKinds * (placeKinds.count + 1) * Self.hours
        rowStride = stride
        rates = entries.map(\.rate)
        lifts = Self.resolve(entries, appRows: appRows, placeKinds: placeKinds.count, stride: stride)
        self.digest = digest ?? Self.fnv1a64(Array(Self.text(of: entries, placeKinds: placeKinds, minimumPeople: minimumPeople,
                                                                     people: people, shrinkage: shrinkage).utf8))
    }

    public static func == (a: PopulationPrior, b: PopulationPrior) -> Bool { a.digest == b.digest }
    public func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    // MARK: Look-ups

    /// The row of a widget: by its id, else by its app, else -1 (the prior says nothing of it).
    func row(widget: String, app: String?) -> Int32 {
        if let r = widgetRows[widget] { return r }
        if let app, let r = appRows[app] { return r }
        return -1
    }

    /// The index of the kind of place a `place` label names, -1 for none.
    func placeKind(label: String) -> Int {
        placeKindIndex[Self.placeKey(label)] ?? -1
    }

    /// Where a row's lift in a cell is in `lifts`: `placeKind` -1 for any place.
    @inline(__always) func liftIndex(row: Int, weekend: Bool, placeKind: Int, hour: Int) -> Int {
        row * rowStride + ((weekend ? placeKinds.count + 1 : 0) + placeKind + 1) * Self.hours + hour
    }

    /// A place label as the prior keys it: lowercased, without surrounding spaces.
    static func placeKey(_ label: String) -> String {
        label.lowercased().trimmingCharacters(in: .whitespaces)
    }

    /// Every row's lifts with the fallbacks applied: a withheld cell takes the coarser one (place →
    /// hour → part of day → kind of day), a widget without its own kind of day its app's cell,
    /// else 1. Apps are resolved first, so a widget reads its app's resolved values.
    private static func resolve(_ entries: [Entry], appRows: [String: Int32], placeKinds P: Int, stride: Int) -> [Double] {
        var lifts = [Double](repeating: 1, count: entries.count * stride)
        for pass in [Entry.Kind.app, .widget] {
            for (r, e) in entries.enumerated() where e.kind == pass {
                let app = pass == .widget ? e.app.flatMap { appRows[$0] }.map(Int.init) : nil
                for d in 0..<dayKinds {
                    for k in -1..<P {
                        for h in 0..<hours {
                            let cell = ((d == 1 ? P + 1 : 0) + k + 1) * hours + h
                            var v = k >= 0 ? e.places[k]?[d][h] : nil
                            v = v ?? e.hours[d][h] ?? e.parts[d][part(ofHour: h)] ?? e.days[d]
                            if v == nil, let app { v = lifts[app * stride + cell] }
                            lifts[r * stride + cell] = v ?? 1
                        }
                    }
                }
            }
        }
        return lifts
    }

    /// FNV-1a 64 of `bytes` in 16 lowercase hex digits.
    static func fnv1a64(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
