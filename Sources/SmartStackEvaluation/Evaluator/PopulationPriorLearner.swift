import Foundation
import SmartStack

/// Learns a ``PopulationPrior`` from many people's event logs (`smartstack prior learn`).
///
/// ```swift
/// let learner = PopulationPriorLearner(minimumPeople: 5)
/// let (prior, summary) = try learner.learn(.files(["people.jsonl.gz"]))
/// try prior.fileText.write(toFile: "prior.jsonl", atomically: true, encoding: .utf8)
/// ```
///
/// Engagements are counted as the engine counts them: a launch of an app counts for the app and
/// for every widget of it the person has configured at that moment, a tap on a configured widget
/// for the widget, a swipe to it half. Each one falls in a cell: local hour, weekday or weekend
/// day, and kind of place (the lowercased text of the person's latest `place` event, for at most
/// `placeHold`; coordinates are never read). For each widget and app:
/// - **rate**: engagements per person-day among the people who have it (a widget from its
///   configuration, an app from the person's first event, to their last event); a widget's is
///   pulled toward its app's by `rateShrinkage` person-days;
/// - **lift** per cell: its engagements there against what its total would put there if it
///   followed the average engagement, shrunk toward the coarser cell by `shrinkage` expected
///   engagements: `(n + s·T) / (E + s)`, the coarser cells being kind of day (toward 1), part of
///   day, hour, then hour at a kind of place; a widget's target carries its app's finer structure
///   (`T = widget's coarser lift × app's lift here / app's coarser lift`).
///
/// Only what at least `minimumPeople` distinct people contributed to is kept: a widget or app
/// fewer people have (configured, launched) is left out; a cell is withheld (`null`, the engine
/// reads the coarser one) unless at least that many people who have the widget were active in it
/// (engaged anything there), so a cell where many could have used it and few did keeps its low
/// lift; a place label fewer people used is no kind of place. The prior holds no user id, no
/// coordinates and no single person's count.
public struct PopulationPriorLearner: Sendable {
    /// Widgets, apps, cells and place labels need at least this many distinct people.
    public var minimumPeople: Int
    /// Pseudo-count toward the coarser cell, in expected engagements.
    public var shrinkage: Double
    /// Pseudo person-days pulling a widget's rate toward its app's.
    public var rateShrinkage: Double
    /// How the logs are read (spill budget of unsorted files).
    public var options: ReplayOptions
    /// A `place` label stands for the person's kind of place for at most this long (seconds)
    /// without a newer one.
    public static let placeHold = 12 * 3600.0

    /// What a learning read and kept.
    public struct Summary: Sendable, Hashable {
        public var people = 0
        public var events = 0
        public var engagements = 0.0
        public var widgetsSeen = 0, widgetsKept = 0
        public var appsSeen = 0, appsKept = 0
        public var cellsKept = 0, cellsWithheld = 0
        public var placeLabelsSeen = 0
    }

    public init(minimumPeople: Int = 5, shrinkage: Double = 5, rateShrinkage: Double = 7, options: ReplayOptions = ReplayOptions()) {
        self.minimumPeople = minimumPeople
        self.shrinkage = shrinkage
        self.rateShrinkage = rateShrinkage
        self.options = options
    }

    /// Reads every person of `source` and learns the prior.
    /// - Throws: ``EvaluationError`` for unreadable logs; when fewer than `minimumPeople` people
    ///   are read, or nothing is left to keep, with what to do.
    /// - Complexity: O(events) plus O(keys · cells); one person's events in memory at a time.
    public func learn(_ source: EvaluationSource) throws -> (prior: PopulationPrior, summary: Summary) {
        guard minimumPeople >= 1 else { throw EvaluationError("--min-people must be at least 1") }
        var population = PopulationTally()
        var reader = UserEventReader(options: options, counters: ProgressCounters())
        reader.readsTwice = true
        var summary = Summary()
        do {
            _ = try reader.read(source) { _, _, events in
                summary.people += 1
                summary.events += events.count
                population.add(PersonTally(Evaluator.timeOrdered(events)))
            }
        } catch let error as EvaluationError {
            throw error
        } catch {
            throw EvaluationError("cannot read the logs: \(error)")
        }
        guard summary.people >= minimumPeople else {
            throw EvaluationError("the logs hold \(summary.people) people, fewer than --min-people \(minimumPeople): a prior keeps only "
                                  + "what at least that many people share")
        }
        return try build(population, summary: summary)
    }

    // MARK: From tallies to the prior

    private func build(_ t: PopulationTally, summary: Summary) throws -> (prior: PopulationPrior, summary: Summary) {
        var summary = summary
        summary.engagements = t.baseline.reduce(0, +)
        summary.placeLabelsSeen = t.labels.count
        summary.widgetsSeen = t.keys.keys.filter { $0.kind == .widget }.count
        summary.appsSeen = t.keys.count - summary.widgetsSeen
        let k = minimumPeople
        // Kinds of place: labels used by at least k people, by name.
        var kinds = t.labels.indices.filter { t.labelPeople[$0] >= k }.sorted { t.labels[$0] < t.labels[$1] }
        let base = Shares(t.baseline, labels: t.labels.count, kinds: kinds)
        var apps: [String: Lifts] = [:]
        var entries: [PopulationPrior.Entry] = []
        for pass in [PopulationPrior.Entry.Kind.app, .widget] {
            for key in t.keys.keys.filter({ $0.kind == pass }).sorted(by: { $0.id < $1.id }) {
                let tally = t.keys[key]!
                guard tally.people >= k, tally.total > 0 else { continue }
                let app = pass == .widget ? tally.likeliestApp : nil
                let parent = app.flatMap { apps[$0] }
                var rate = tally.total / max(tally.exposureDays, 1.0 / 24)
                if let parent { rate = (tally.total + rateShrinkage * parent.rate) / (tally.exposureDays + rateShrinkage) }
                var lifts = Lifts(tally, base: base, kinds: kinds, rate: rate, parent: parent, shrinkage: shrinkage, minimumPeople: k)
                if pass == .app { apps[key.id] = lifts }
                let days = lifts.published(lifts.days, lifts.dayPeople)
                let parts = lifts.published(lifts.parts, lifts.partPeople)
                let hours = lifts.published(lifts.hours, lifts.hourPeople)
                var places: [[[Double?]]?] = []
                for q in kinds.indices {
                    let cells = lifts.published(lifts.places[q], lifts.placePeople[q])
                    places.append(cells.joined().contains { $0 != nil } ? cells : nil)
                }
                summary.cellsKept += lifts.kept
                summary.cellsWithheld += lifts.withheld
                if pass == .app { summary.appsKept += 1 } else { summary.widgetsKept += 1 }
                entries.append(PopulationPrior.Entry(kind: pass, id: key.id, app: app, people: tally.people, rate: Self.rounded(rate),
                                                     days: days, parts: parts, hours: hours, places: places))
            }
        }
        // Kinds of place no cell was kept for are left out.
        let used = kinds.indices.filter { q in entries.contains { $0.places[q] != nil } }
        for e in entries.indices { entries[e].places = used.map { entries[e].places[$0] } }
        kinds = used.map { kinds[$0] }
        guard !entries.isEmpty else {
            throw EvaluationError("no widget or app was engaged by at least \(k) of the \(summary.people) people: nothing to keep "
                                  + "(lower --min-people only if the people consent to less privacy)")
        }
        let prior = try PopulationPrior(placeKinds: kinds.map { t.labels[$0] }, minimumPeople: k, people: summary.people,
                                        shrinkage: shrinkage, entries: entries)
        return (prior, summary)
    }

    /// Five significant digits, as the file writes them, so the prior learnt and the prior read
    /// back from its file are the same.
    static func rounded(_ v: Double) -> Double { Double(String(format: "%.5g", v)) ?? v }
}

/// Cells: kind of place (0 none, then labels), kind of day, hour.
private enum Cells {
    static let hours = 24, days = 2
    @inline(__always) static func index(label: Int, weekend: Bool, hour: Int) -> Int { (label * days + (weekend ? 1 : 0)) * hours + hour }
    static func count(labels: Int) -> Int { (labels + 1) * days * hours }
}

/// A widget or an app, as the tallies key them.
private struct TallyKey: Hashable {
    var kind: PopulationPrior.Entry.Kind
    var id: String
}

/// One person's counts: per key and cell (labels are the person's own), exposure, apps.
private struct PersonTally {
    var labels: [String] = []
    var counts: [TallyKey: [Double]] = [:]
    var exposureStart: [TallyKey: Double] = [:]
    var widgetApps: [String: String] = [:]
    var baseline: [Double]
    var first = Double.infinity, last = -Double.infinity

    init(_ events: ArraySlice<Event>) {
        baseline = []
        var labelIndex: [String: Int] = [:]
        var label = -1
        var labelTime = -Double.infinity
        var stacks: [String: [WidgetConfig]] = [:]
        var configured: Set<String> = []
        var widgetsOfApp: [String: [String]] = [:]
        var pending: [(key: TallyKey, cell: (label: Int, weekend: Bool, hour: Int), weight: Double)] = []
        var baselinePending: [(label: Int, weekend: Bool, hour: Int, weight: Double)] = []
        for e in events {
            let t = e.time.secondsSinceEpoch
            first = min(first, t)
            last = max(last, t)
            let here = label >= 0 && t - labelTime <= PopulationPriorLearner.placeHold ? label + 1 : 0
            let cell = (label: here, weekend: e.time.isWeekend, hour: e.time.localHour)
            func engage(_ key: TallyKey, _ weight: Double) { pending.append((key, cell, weight)) }
            switch e.payload {
            case .stackConfig(let stack, let widgets):
                stacks[stack] = widgets
                configured = []
                widgetsOfApp = [:]
                for config in stacks.values.joined() where configured.insert(config.id).inserted {
                    let key = TallyKey(kind: .widget, id: config.id)
                    if exposureStart[key] == nil { exposureStart[key] = t }
                    if let app = config.app {
                        widgetsOfApp[app, default: []].append(config.id)
                        if widgetApps[config.id] == nil { widgetApps[config.id] = app }
                    }
                }
            case .place(let text):
                let key = PopulationPriorLearner.placeKey(text)
                if key.isEmpty {
                    label = -1
                } else {
                    if labelIndex[key] == nil { labelIndex[key] = labels.count; labels.append(key) }
                    label = labelIndex[key]!
                }
                labelTime = t
            case .appLaunch(let app):
                let key = TallyKey(kind: .app, id: app)
                if exposureStart[key] == nil { exposureStart[key] = first }
                engage(key, 1)
                for w in widgetsOfApp[app] ?? [] { engage(TallyKey(kind: .widget, id: w), 1) }
                baselinePending.append((cell.label, cell.weekend, cell.hour, 1))
            case .widgetTap(let widget, _):
                guard configured.contains(widget) else { break }
                engage(TallyKey(kind: .widget, id: widget), 1)
                baselinePending.append((cell.label, cell.weekend, cell.hour, 1))
            case .widgetSwipe(_, _, let to):
                guard configured.contains(to) else { break }
                engage(TallyKey(kind: .widget, id: to), 0.5)
                baselinePending.append((cell.label, cell.weekend, cell.hour, 0.5))
            default:
                break
            }
        }
        let n = Cells.count(labels: labels.count)
        baseline = [Double](repeating: 0, count: n)
        for b in baselinePending { baseline[Cells.index(label: b.label, weekend: b.weekend, hour: b.hour)] += b.weight }
        for p in pending {
            counts[p.key, default: [Double](repeating: 0, count: n)][Cells.index(label: p.cell.label, weekend: p.cell.weekend,
                                                                               hour: p.cell.hour)] += p.weight
        }
    }
}

/// Everyone's counts, merged person by person.
private struct PopulationTally {
    struct Key {
        /// Counts per cell, labels global.
        var counts: [Double] = []
        /// Distinct people who have the key and were active (engaged anything) in each cell, and
        /// in each coarser cell; `people`: who have it (a widget configured, an app launched).
        var cellPeople: [Int] = []
        var dayPeople = [0, 0]
        var partPeople = [[Int]](repeating: [0, 0, 0, 0], count: 2)
        var hourPeople = [[Int]](repeating: [Int](repeating: 0, count: 24), count: 2)
        var people = 0
        var total = 0.0
        var exposureDays = 0.0
        var apps: [String: Int] = [:]

        /// The app most people gave this widget (ties: by name).
        var likeliestApp: String? {
            apps.max { a, b in a.value < b.value || (a.value == b.value && a.key > b.key) }?.key
        }
    }

    var labels: [String] = []
    var labelIndex: [String: Int] = [:]
    var labelPeople: [Int] = []
    var baseline: [Double] = [Double](repeating: 0, count: Cells.count(labels: 0))
    var keys: [TallyKey: Key] = [:]

    mutating func add(_ person: PersonTally) {
        // The person's labels in the population's numbering.
        var map = [0]
        for label in person.labels {
            if labelIndex[label] == nil {
                labelIndex[label] = labels.count
                labels.append(label)
                labelPeople.append(0)
                grow()
            }
            let g = labelIndex[label]!
            labelPeople[g] += 1
            map.append(g + 1)
        }
        func global(_ i: Int) -> Int {
            let hour = i % Cells.hours, day = (i / Cells.hours) % Cells.days, label = i / (Cells.hours * Cells.days)
            return Cells.index(label: map[label], weekend: day == 1, hour: hour)
        }
        for i in person.baseline.indices where person.baseline[i] != 0 { baseline[global(i)] += person.baseline[i] }
        // The cells the person was active in (any engagement), at every level: a cell of a key
        // counts the people who have the key and were active there.
        var active: [Int] = []
        var day = [false, false], part = [[Bool]](repeating: [false, false, false, false], count: 2)
        var hour = [[Bool]](repeating: [Bool](repeating: false, count: 24), count: 2)
        for i in person.baseline.indices where person.baseline[i] > 0 {
            let h = i % Cells.hours, d = (i / Cells.hours) % Cells.days, label = i / (Cells.hours * Cells.days)
            if label > 0 { active.append(global(i)) }   // labels are distinct: each cell once per person
            day[d] = true; part[d][PopulationPrior.part(ofHour: h)] = true; hour[d][h] = true
        }
        let empty = fresh()
        for (key, start) in person.exposureStart {
            var k = keys[key, default: empty]
            k.exposureDays += max(person.last - start, 3600) / 86_400
            k.people += 1
            for g in active { k.cellPeople[g] += 1 }
            for d in 0..<2 {
                if day[d] { k.dayPeople[d] += 1 }
                for p in 0..<4 where part[d][p] { k.partPeople[d][p] += 1 }
                for h in 0..<24 where hour[d][h] { k.hourPeople[d][h] += 1 }
            }
            if let counts = person.counts[key] {
                for i in counts.indices where counts[i] > 0 {
                    k.counts[global(i)] += counts[i]
                    k.total += counts[i]
                }
            }
            if key.kind == .widget, let app = person.widgetApps[key.id] { k.apps[app, default: 0] += 1 }
            keys[key] = k
        }
    }

    private func fresh() -> Key {
        let n = Cells.count(labels: labels.count)
        return Key(counts: [Double](repeating: 0, count: n), cellPeople: [Int](repeating: 0, count: n))
    }

    /// Grows every per-cell array by one label's cells (appended: cell indices are label-major).
    private mutating func grow() {
        let add = Cells.days * Cells.hours
        baseline += [Double](repeating: 0, count: add)
        for key in Array(keys.keys) {
            keys[key]!.counts += [Double](repeating: 0, count: add)
            keys[key]!.cellPeople += [Int](repeating: 0, count: add)
        }
    }
}

/// The average engagement's share of each cell, at every level.
private struct Shares {
    var day = [0.0, 0.0]
    var part = [[Double]](repeating: [0, 0, 0, 0], count: 2)
    var hour = [[Double]](repeating: [Double](repeating: 0, count: 24), count: 2)
    /// Per kind kept (in `kinds` order).
    var place: [[[Double]]]

    init(_ baseline: [Double], labels: Int, kinds: [Int]) {
        place = kinds.map { _ in [[Double]](repeating: [Double](repeating: 0, count: 24), count: 2) }
        let total = baseline.reduce(0, +)
        guard total > 0 else { return }
        for label in 0...labels {
            for d in 0..<2 {
                for h in 0..<24 {
                    let v = baseline[Cells.index(label: label, weekend: d == 1, hour: h)] / total
                    day[d] += v
                    part[d][PopulationPrior.part(ofHour: h)] += v
                    hour[d][h] += v
                    if label > 0, let q = kinds.firstIndex(of: label - 1) { place[q][d][h] += v }
                }
            }
        }
    }
}

/// A key's lifts at every level (computed for every cell; published where enough people).
private struct Lifts {
    var rate: Double
    var days: [Double] = [1, 1]
    var parts = [[Double]](repeating: [1, 1, 1, 1], count: 2)
    var hours = [[Double]](repeating: [Double](repeating: 1, count: 24), count: 2)
    var places: [[[Double]]]
    var dayPeople: [Int]
    var partPeople: [[Int]]
    var hourPeople: [[Int]]
    var placePeople: [[[Int]]]
    let minimumPeople: Int
    var kept = 0, withheld = 0

    init(_ t: PopulationTally.Key, base: Shares, kinds: [Int], rate: Double, parent: Lifts?, shrinkage s: Double, minimumPeople k: Int) {
        self.rate = rate
        minimumPeople = k
        dayPeople = t.dayPeople
        partPeople = t.partPeople
        hourPeople = t.hourPeople
        places = kinds.map { _ in [[Double]](repeating: [Double](repeating: 1, count: 24), count: 2) }
        placePeople = kinds.map { q in
            (0..<2).map { d in (0..<24).map { h in t.cellPeople[Cells.index(label: q + 1, weekend: d == 1, hour: h)] } }
        }
        // The key's counts at every level (labels of dropped kinds count toward the coarser levels).
        var nDay = [0.0, 0.0]
        var nPart = [[Double]](repeating: [0, 0, 0, 0], count: 2)
        var nHour = [[Double]](repeating: [Double](repeating: 0, count: 24), count: 2)
        let labels = t.counts.count / (Cells.days * Cells.hours) - 1
        for label in 0...labels {
            for d in 0..<2 {
                for h in 0..<24 {
                    let v = t.counts[Cells.index(label: label, weekend: d == 1, hour: h)]
                    nDay[d] += v; nPart[d][PopulationPrior.part(ofHour: h)] += v; nHour[d][h] += v
                }
            }
        }
        let N = t.total
        // A published value of the app's, else nil (its structure is then not carried over).
        func shrunk(_ n: Double, _ share: Double, toward target: Double) -> Double {
            PopulationPriorLearner.rounded((n + s * target) / (N * share + s))
        }
        func ratio(_ fine: Double?, _ coarse: Double?) -> Double {
            guard let fine, let coarse, coarse > 0 else { return 1 }
            return fine / coarse
        }
        for d in 0..<2 {
            days[d] = shrunk(nDay[d], base.day[d], toward: parent?.value(day: d) ?? 1)
            for p in 0..<4 {
                let target = days[d] * ratio(parent?.value(part: d, p), parent?.value(day: d))
                parts[d][p] = shrunk(nPart[d][p], base.part[d][p], toward: target)
            }
            for h in 0..<24 {
                let p = PopulationPrior.part(ofHour: h)
                let target = parts[d][p] * ratio(parent?.value(hour: d, h), parent?.value(part: d, p))
                hours[d][h] = shrunk(nHour[d][h], base.hour[d][h], toward: target)
            }
            for (q, label) in kinds.enumerated() {
                for h in 0..<24 {
                    let target = hours[d][h] * ratio(parent?.value(place: q, d, h), parent?.value(hour: d, h))
                    let n = t.counts[Cells.index(label: label + 1, weekend: d == 1, hour: h)]
                    places[q][d][h] = shrunk(n, base.place[q][d][h], toward: target)
                }
            }
        }
    }

    // The published value of a cell (enough people), else nil.
    func value(day d: Int) -> Double? { dayPeople[d] >= minimumPeople ? days[d] : nil }
    func value(part d: Int, _ p: Int) -> Double? { partPeople[d][p] >= minimumPeople ? parts[d][p] : nil }
    func value(hour d: Int, _ h: Int) -> Double? { hourPeople[d][h] >= minimumPeople ? hours[d][h] : nil }
    func value(place q: Int, _ d: Int, _ h: Int) -> Double? { placePeople[q][d][h] >= minimumPeople ? places[q][d][h] : nil }

    /// `values` with the cells seen in fewer than `minimumPeople` people withheld.
    mutating func published(_ values: [Double], _ people: [Int]) -> [Double?] {
        zip(values, people).map { v, n in
            if n >= minimumPeople { kept += 1; return v }
            withheld += 1
            return nil
        }
    }

    mutating func published(_ values: [[Double]], _ people: [[Int]]) -> [[Double?]] {
        zip(values, people).map { published($0, $1) }
    }
}

extension PopulationPriorLearner {
    /// A `place` label as a kind of place: lowercased, without surrounding spaces.
    static func placeKey(_ text: String) -> String { text.lowercased().trimmingCharacters(in: .whitespaces) }
}
