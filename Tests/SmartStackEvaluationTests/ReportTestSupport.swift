import Foundation
import SmartStackDatasets
import SmartStack
@testable import SmartStackEvaluation

/// Hand-built evaluation reports for the renderer tests: every figure is chosen here, so the
/// tests know what the report must say.
enum ReportFixture {
    /// One policy's headline figures.
    struct Figures {
        var name: String
        var hitAt1: Double
        var hitAt1CI: ClosedRange<Double>
        var rotations: Double
        var rotationsCI: ClosedRange<Double>
        var flicker: Double = 0.05
        var unnecessary: Double = 0.3
        /// Paired hit@1 difference against the reference and its interval (nil for the reference).
        var paired: (Double, ClosedRange<Double>)?
    }

    static let frecency = Figures(name: "frecency", hitAt1: 0.412, hitAt1CI: 0.380...0.444, rotations: 3.10, rotationsCI: 2.80...3.40,
                                  flicker: 0.120, unnecessary: 0.410, paired: (0.046, 0.021...0.071))
    static let recency = Figures(name: "recency", hitAt1: 0.366, hitAt1CI: 0.331...0.401, rotations: 1.20, rotationsCI: 1.05...1.35,
                                 flicker: 0.030, unnecessary: 0.250, paired: nil)
    static let contextual = Figures(name: "contextual:half_life=14d", hitAt1: 0.351, hitAt1CI: 0.318...0.384, rotations: 2.40,
                                    rotationsCI: 2.10...2.70, paired: (-0.015, -0.040...0.010))
    static let oracle = Figures(name: "oracle", hitAt1: 0.720, hitAt1CI: 0.690...0.750, rotations: 4.50, rotationsCI: 4.10...4.90,
                                paired: (0.354, 0.320...0.388))

    /// A widget name that needs escaping everywhere.
    static let nastyWidget = "<b>Mail & \"News\"</b>"

    /// A report of `figures` (first three decimals as given), with 24 hours of breakdown, a
    /// timeline day over two stacks, optional reference and off-policy estimates.
    static func report(_ figures: [Figures] = [frecency, recency, contextual, oracle], reference: String? = "recency",
                       withOPE: Bool = true, withTimeline: Bool = true, bootstrap: Int = 1000, datasetName: String = "commuters",
                       leads: [String: ClosedRange<Double>] = [:]) -> EvaluationReport {
        var options = ReplayOptions()
        options.bootstrapResamples = bootstrap
        options.seed = 7
        options.warmupDays = 2
        let dataset = datasetSummary(name: datasetName)
        let stacks = ["home", "work & <play>"]
        let widgetsByStack = [["weather", "calendar", nastyWidget], ["notes", "music"]]
        var policies: [PolicyReport] = []
        for (index, f) in figures.enumerated() {
            var m = MetricValues()
            m[.hitAt1] = f.hitAt1
            m[.hitAt3] = min(1, f.hitAt1 + 0.35)
            m[.mrr] = f.hitAt1 + 0.12
            m[.ndcgAt3] = f.hitAt1 + 0.15
            m[.rotationsPerActiveHour] = f.rotations
            m[.flickerRate] = f.flicker
            m[.medianDwellMinutes] = 60 / f.rotations
            m[.unnecessaryRotationRate] = f.unnecessary
            m[.coverage] = 0.8
            m[.decisions] = 4_321
            m[.decisionsWithTarget] = 1_234
            var ci = MetricIntervals()
            if bootstrap > 0 {
                ci[.hitAt1] = f.hitAt1CI
                ci[.rotationsPerActiveHour] = f.rotationsCI
                ci[.mrr] = (f.hitAt1 + 0.10)...(f.hitAt1 + 0.14)
            }
            let byHour = (0..<24).map { h -> HourBreakdown in
                let active = h >= 6 && h != 3
                let n = active ? 20 + (h * 7 + index * 3) % 40 : 0
                // A smooth daily shape per policy, within [0, 1].
                let v = max(0, min(1, f.hitAt1 + 0.15 * sin(Double(h + index * 2) / 24 * 2 * .pi)))
                return HourBreakdown(hour: h, decisions: n * 2, decisionsWithTarget: n, hitAt1: active ? v : nil, hitAt3: active ? min(1, v + 0.3) : nil,
                                     mrr: active ? v + 0.1 : nil, ndcgAt3: active ? v + 0.12 : nil, rotations: n / 3)
            }
            var paired: PairedComparison?
            if let reference, let (d, dci) = f.paired {
                var diff = MetricValues(); diff[.hitAt1] = d; diff[.rotationsPerActiveHour] = f.rotations - 1.20
                var pci = MetricIntervals(); pci[.hitAt1] = dci; pci[.rotationsPerActiveHour] = (f.rotations - 1.5)...(f.rotations - 0.9)
                paired = PairedComparison(reference: reference, difference: diff, ci: pci)
            }
            var intervals: [TimelineInterval] = []
            if withTimeline {
                for (s, stack) in stacks.enumerated() {
                    let widgets = widgetsByStack[s]
                    var start = 0.0, k = index + s
                    while start < 1440 {
                        let length = 40 + Double((k * 37 + index * 11) % 200)
                        let end = min(1440, start + length)
                        intervals.append(TimelineInterval(stack: stack, widget: widgets[k % widgets.count], start: "", end: "", startMinute: start, endMinute: end))
                        start = end; k += 1
                    }
                }
            }
            var ope: OffPolicyReport?
            if withOPE {
                ope = offPolicyReport(base: 0.004 + 0.0005 * Double(index))
            }
            policies.append(PolicyReport(name: f.name, metrics: m, ci: ci, byHour: byHour, byUser: [], ope: ope,
                                         paired: f.name == reference ? nil : paired, timeline: intervals))
        }
        var timeline: TimelineSample?
        if withTimeline {
            let engagements: [TimelineEngagement] = [
                (415.0, 0, "weather"), (480, 0, "calendar"), (545, 1, "notes"), (610, 0, nastyWidget), (760, 1, "music"),
                (905, 0, "calendar"), (1010, 1, "notes"), (1185, 0, nastyWidget),
            ].map { TimelineEngagement(time: "", minute: $0.0, stack: stacks[$0.1], widget: $0.2) }
            timeline = TimelineSample(user: "u07", date: "2024-01-17", start: "2024-01-17T00:00:00-05:00", end: "2024-01-18T00:00:00-05:00",
                                      stacks: stacks, engagements: engagements)
        }
        return EvaluationReport(dataset: dataset, options: OptionsSummary(options, reference: reference), policies: policies,
                                timeline: timeline, verdict: verdict(figures, bootstrap: bootstrap, leads: leads))
    }

    /// The verdict on the figures' hit@1 (the fixture's reports are logged): the best first,
    /// each other's difference to it with the interval `leads` gives it, by default the
    /// difference ± 0.025 (so a lead under 0.025 is a tie), none without bootstrap.
    static func verdict(_ figures: [Figures], bootstrap: Int, leads: [String: ClosedRange<Double>]) -> Verdict? {
        let ranked = figures.filter { !ReportFindings.isOracle($0.name) }.enumerated()
            .sorted { $0.element.hitAt1 != $1.element.hitAt1 ? $0.element.hitAt1 > $1.element.hitAt1 : $0.offset < $1.offset }
            .map(\.element)
        guard let best = ranked.first else { return nil }
        let differences = ranked.dropFirst().map { f -> VerdictDifference in
            let d = best.hitAt1 - f.hitAt1
            let ci = bootstrap > 0 ? (leads[f.name] ?? (d - 0.025)...(d + 0.025)) : nil
            return VerdictDifference(policy: f.name, difference: d, interval: ci.map { [$0.lowerBound, $0.upperBound] })
        }
        let tied = [best.name] + differences.filter { ($0.interval?[0] ?? 0) <= 0 }.map(\.policy)
        return Verdict(metric: "hit_at_1", ranking: ranked.map(\.name), best: best.name, tied: tied,
                       winner: tied.count == 1 && !differences.isEmpty ? best.name : nil, runnerUp: differences.first?.policy,
                       lead: differences.first?.difference, leadInterval: differences.first?.interval, differences: differences)
    }
}

extension ReportFixture {
    /// 123456 events (after merging 789 repeats), 11 of 12 users (u99 skipped), 4321 decision
    /// points, 300 user-days; decoded from its `report.json` form so the fixture keeps working
    /// when the summary gains fields.
    static func datasetSummary(name: String) -> DatasetSummary {
        let object: [String: Any] = [
            "name": name, "sources": ["data/\(name).jsonl"], "events": 123_456, "merged_repeats": 789, "users": 12,
            "users_evaluated": 11, "users_skipped": [["user": "u99", "reason": "no stack_config event"]], "decision_points": 4_321,
            "users_with_screen_on": 11, "user_days": 300, "first": "2024-01-01T06:00:00-05:00", "last": "2024-02-01T23:00:00-05:00",
        ]
        do {
            return try JSONDecoder().decode(DatasetSummary.self, from: JSONSerialization.data(withJSONObject: object))
        } catch {
            fatalError("DatasetSummary no longer decodes its documented keys: \(error)")
        }
    }

    /// Off-policy results with IPS, SNIPS and DR estimates (DR without interval), 812 effective
    /// samples and a largest weight of 14.5, built from their `report.json` encoding. Both
    /// encodings of the estimates are tried (an object keyed by estimator, or a list), so the
    /// fixture does not depend on which Swift type carries them.
    static func offPolicyReport(base: Double) -> OffPolicyReport {
        func n(_ v: Double) -> String { String(format: "%.6f", v) }
        let keyed = """
        {"impressions": 5000, "logged_rate": 0.0038, "note": null, "estimates": {
          "ips": {"value": \(n(base)), "ci": [\(n(base - 0.001)), \(n(base + 0.001))]},
          "snips": {"value": \(n(base * 0.98)), "ci": [\(n(base - 0.0012)), \(n(base + 0.0009))]},
          "dr": {"value": \(n(base * 1.01)), "ci": null},
          "diagnostics": {"ess": 812, "max_weight": 14.5, "mean_weight": 1.0, "zero_weight_share": 0.5,
                          "zero_support_share": null, "support_known_rounds": 0, "replay_accepted": 2500},
          "rounds": 5000, "bootstrap": {"samples": 1000, "alpha": 0.05, "seed": 7}}}
        """
        let listed = """
        {"impressions": 5000, "logged_rate": 0.0038, "estimates": [
          {"estimator": "ips", "value": \(n(base)), "ci": [\(n(base - 0.001)), \(n(base + 0.001))], "diagnostics": {"ess": 812, "max_weight": 14.5}},
          {"estimator": "snips", "value": \(n(base * 0.98)), "ci": [\(n(base - 0.0012)), \(n(base + 0.0009))], "diagnostics": {}},
          {"estimator": "dr", "value": \(n(base * 1.01)), "diagnostics": {}}]}
        """
        for json in [keyed, listed] {
            if let report = try? JSONDecoder().decode(OffPolicyReport.self, from: Data(json.utf8)) { return report }
        }
        fatalError("OffPolicyReport decodes neither documented encoding")
    }
}

/// A decoded 8-bit PNG (grey, grey+alpha, RGB or RGBA, not interlaced): enough to judge a
/// browser's screenshot.
struct PNGImage {
    var width: Int
    var height: Int
    /// RGB triples, row by row (alpha dropped).
    var rgb: [UInt8]

    struct DecodeError: Error, CustomStringConvertible {
        var description: String
    }

    init(data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count > 8, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw DecodeError(description: "not a PNG (bad signature)")
        }
        func u32(_ i: Int) -> Int { Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) }
        var offset = 8
        var idat: [UInt8] = []
        var width = 0, height = 0, bitDepth = 0, colourType = 0, interlace = 0
        while offset + 8 <= bytes.count {
            let length = u32(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let start = offset + 8
            guard start + length + 4 <= bytes.count else { throw DecodeError(description: "truncated chunk \(type)") }
            switch type {
            case "IHDR":
                width = u32(start); height = u32(start + 4)
                bitDepth = Int(bytes[start + 8]); colourType = Int(bytes[start + 9]); interlace = Int(bytes[start + 12])
            case "IDAT": idat += bytes[start..<(start + length)]
            default: break
            }
            offset = start + length + 4
            if type == "IEND" { break }
        }
        let channels: Int
        switch colourType {
        case 0: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        default: throw DecodeError(description: "unsupported colour type \(colourType)")
        }
        guard bitDepth == 8, interlace == 0, width > 0, height > 0 else {
            throw DecodeError(description: "unsupported PNG: bit depth \(bitDepth), interlace \(interlace), \(width)x\(height)")
        }
        let stride = width * channels
        let raw = try Self.inflate(idat, expected: (stride + 1) * height)
        guard raw.count == (stride + 1) * height else { throw DecodeError(description: "image data is \(raw.count) bytes, expected \((stride + 1) * height)") }
        var pixels = [UInt8](repeating: 0, count: stride * height)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            let src = row * (stride + 1) + 1, dst = row * stride
            for i in 0..<stride {
                let x = Int(raw[src + i])
                let a = i >= channels ? Int(pixels[dst + i - channels]) : 0
                let b = row > 0 ? Int(pixels[dst - stride + i]) : 0
                let c = row > 0 && i >= channels ? Int(pixels[dst - stride + i - channels]) : 0
                let value: Int
                switch filter {
                case 0: value = x
                case 1: value = x + a
                case 2: value = x + b
                case 3: value = x + (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    value = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)
                default: throw DecodeError(description: "bad filter \(filter) in row \(row)")
                }
                pixels[dst + i] = UInt8(truncatingIfNeeded: value)
            }
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for p in 0..<(width * height) {
            for k in 0..<3 { rgb[p * 3 + k] = channels >= 3 ? pixels[p * channels + k] : pixels[p * channels] }
        }
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    /// Inflates zlib data (the importers' reader detects zlib as well as gzip).
    static func inflate(_ input: [UInt8], expected: Int) throws -> [UInt8] {
        let output = try GzipReader.inflate(input, name: "PNG image data")
        guard output.count == expected else { throw DecodeError(description: "inflated \(output.count) bytes, expected \(expected)") }
        return output
    }

    /// The RGB of pixel (`x`, `y`).
    func pixel(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * width + x) * 3
        return (rgb[i], rgb[i + 1], rgb[i + 2])
    }

    /// Distinct colours, counting up to `limit`.
    func distinctColours(limit: Int = 100_000) -> Int {
        var seen = Set<UInt32>()
        for p in 0..<(width * height) {
            seen.insert(UInt32(rgb[p * 3]) << 16 | UInt32(rgb[p * 3 + 1]) << 8 | UInt32(rgb[p * 3 + 2]))
            if seen.count >= limit { break }
        }
        return seen.count
    }

    /// Pixels within `tolerance` of `hex` (`#RRGGBB`) in each channel, within rows `rows`.
    func count(colour hex: String, tolerance: Int = 4, rows: Range<Int>? = nil) -> Int {
        let v = Int(hex.dropFirst(), radix: 16) ?? 0
        let target = [(v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF]
        let range = rows.map { max(0, $0.lowerBound)..<min(height, $0.upperBound) } ?? 0..<height
        var n = 0
        for y in range {
            for x in 0..<width {
                let i = (y * width + x) * 3
                if abs(Int(rgb[i]) - target[0]) <= tolerance, abs(Int(rgb[i + 1]) - target[1]) <= tolerance, abs(Int(rgb[i + 2]) - target[2]) <= tolerance {
                    n += 1
                }
            }
        }
        return n
    }

    /// Share of pixels that are not (near) white.
    var nonWhiteShare: Double {
        var n = 0
        for p in 0..<(width * height) where Int(rgb[p * 3]) + Int(rgb[p * 3 + 1]) + Int(rgb[p * 3 + 2]) < 3 * 245 { n += 1 }
        return Double(n) / Double(width * height)
    }
}

/// Replay policies and a seeded dataset for rendering reports the real evaluator produced.
enum ReportReplayFixture {
    /// Keeps the configured order: never rotates.
    final class ConfiguredOrder: ReplayPolicy {
        func record(_ event: Event) {}
        func decide(stack: String, widgets: [WidgetConfig], at time: EventTime) throws -> ReplayDecision {
            ReplayDecision(top: widgets.first?.id, order: widgets.map(\.id))
        }
    }

    /// Puts the most recently launched widget on top.
    final class LastLaunched: ReplayPolicy {
        var lastSeen: [String: Int64] = [:]
        func record(_ event: Event) {
            if case .appLaunch(let app) = event.payload { lastSeen[app] = event.time.nanosecondsSinceEpoch }
        }
        func decide(stack: String, widgets: [WidgetConfig], at time: EventTime) throws -> ReplayDecision {
            let order = widgets.enumerated().sorted { a, b in
                let x = lastSeen[a.element.app ?? ""] ?? .min, y = lastSeen[b.element.app ?? ""] ?? .min
                return x != y ? x > y : a.offset < b.offset
            }.map(\.element.id)
            return ReplayDecision(top: order.first, order: order)
        }
    }

    static let policies = [
        PolicyFactory(name: "configured") { _, _ in ConfiguredOrder() },
        PolicyFactory(name: "last <launched> & co") { _, _ in LastLaunched() },
    ]

    /// `users` users over `days` days: one stack of four widgets, screen_on sessions through the
    /// day, each followed by a launch of a widget's app drawn with a per-user preference.
    static func events(users: Int = 3, days: Int = 4, seed: UInt64 = 11) -> [Event] {
        var g = SeededGenerator(seed: seed)
        let widgets = ["weather", "mail", "maps", "music"]
        let day: Int64 = 86_400 * 1_000_000_000, minute: Int64 = 60 * 1_000_000_000
        let start: Int64 = 1_704_067_200 * 1_000_000_000   // 2024-01-01T00:00:00Z
        var events: [Event] = []
        for u in 0..<users {
            let user = "u\(u)"
            func at(_ ns: Int64) -> EventTime { EventTime(nanosecondsSinceEpoch: ns, utcOffsetSeconds: -5 * 3600) }
            events.append(Event(time: at(start), user: user, payload: .stackConfig(stack: "main", widgets: widgets.map { WidgetConfig(id: $0, app: "app.\($0)") })))
            for d in 0..<days {
                var t = start + Int64(d) * day + 7 * 60 * minute
                while t < start + Int64(d) * day + 22 * 60 * minute {
                    events.append(Event(time: at(t), user: user, payload: .screenOn))
                    // Mornings favour weather and mail, evenings music, with the user's own twist.
                    let hour = Int((t - start) % day / (60 * minute))
                    let r = g.index(below: 10)
                    let pick = r < 6 ? (hour < 12 ? (u % 2 == 0 ? 0 : 1) : hour < 17 ? 2 : 3) : g.index(below: 4)
                    events.append(Event(time: at(t + Int64(1 + g.index(below: 4)) * minute), user: user, payload: .appLaunch(app: "app.\(widgets[pick])")))
                    t += Int64(25 + g.index(below: 60)) * minute
                }
            }
        }
        return events
    }
}
