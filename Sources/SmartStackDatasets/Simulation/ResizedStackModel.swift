import SmartStack

/// A persona with one stack of a chosen size instead of its own stacks (`--stack-size`).
///
/// The stack holds the first widgets of the person's own stacks, in their order; when it holds
/// more than the persona has, generic widgets with habits of their own fill it (a smart-home
/// remote at home in the morning and evening, banking on the person's own weekday, a step
/// counter on walks and rides, a shopping list on errands, a TV guide in the evening, parking
/// on drives), so a stack of 12 has no dead weight. The person's routine is the persona's own;
/// only the layout and the extra habits differ.
struct ResizedStackModel: PersonaModel {
    static let extraNames = ["smarthome", "banking", "steps", "shopping", "tvguide", "parking"]

    private var base: any PersonaModel
    let size: Int
    let catalog: [WidgetConfig]
    /// Catalog indices of the extra widgets (after the persona's own).
    private let extras: [Int]
    private let extraAmp: [Double]
    /// The banking habit: a weekday (1...7) and an hour.
    private let bankingDay: Int
    private let bankingHour: Double

    /// Wraps `base`; the extra widgets' personal habits come from `rng` (a stream of its own, so
    /// the persona's draws are untouched).
    init(base: any PersonaModel, size: Int, rng: inout SimulationRandom) {
        self.base = base
        self.size = size
        let own = base.catalog
        let names = Set(own.map(\.id))
        let extraWidgets = Self.extraNames.filter { !names.contains($0) }.map { WidgetConfig(id: $0, app: "org.example.\($0)") }
        catalog = own + extraWidgets
        extras = Array(own.count..<catalog.count)
        extraAmp = extraWidgets.map { _ in Shape.jitter(&rng, 0.3) }
        bankingDay = 1 + rng.nextInt(below: 7)
        bankingHour = rng.uniform(8...21)
    }

    var places: [SimPlace] { base.places }
    var otherApps: [String] { base.otherApps }
    var sessionGapMean: Double { base.sessionGapMean }
    var minimumSessionGap: Int { base.minimumSessionGap }
    var otherAppChance: Double { base.otherAppChance }
    func sessionGapMean(after segment: Segment) -> Double { base.sessionGapMean(after: segment) }
    func headphonesChance(_ motion: Motion) -> Double { base.headphonesChance(motion) }
    func startOffset(day: Int) -> Int32 { base.startOffset(day: day) }
    func engageProbability(_ c: IntentContext) -> Double { base.engageProbability(c) }

    mutating func plan(day: Int, weekday: Int, length: Int, rng: inout SimulationRandom) -> DayPlan {
        base.plan(day: day, weekday: weekday, length: length, rng: &rng)
    }

    /// One stack, `home`: the person's own widgets in their order, then the extras, `size` in all.
    func stacks(day: Int) -> [(id: String, widgets: [Int])] {
        var seen = Set<Int>()
        var order: [Int] = []
        for s in base.stacks(day: day) { for w in s.widgets where seen.insert(w).inserted { order.append(w) } }
        return [("home", Array((order + extras).prefix(size)))]
    }

    func intent(_ c: IntentContext, into w: inout [Double]) {
        var own = [Double](repeating: 0, count: base.catalog.count)
        var context = c
        context.hints = Array(c.hints.prefix(own.count))
        base.intent(context, into: &own)
        for i in own.indices { w[i] = own[i] }
        let hr = c.hour, tag = c.segment.tag
        let atHome = c.segment.place == 0 && !c.segment.isSleep
        var motion: Motion?
        if case .travel(_, _, let m) = c.segment.kind { motion = m }
        for (k, index) in extras.enumerated() {
            let value: Double
            switch catalog[index].id {
            case "smarthome": value = 0.04 + (atHome ? 1.6 * (Shape.bump(hr, 7.3, 0.6) + Shape.bump(hr, 19.5, 1.0)) : 0)
            case "banking": value = 0.03 + (c.weekday == bankingDay ? 2.2 * Shape.bump(hr, bankingHour, 1.0) : 0)
            case "steps": value = 0.04 + (motion == .walking || motion == .cycling ? 2.0 : 0) + 0.5 * Shape.bump(hr, 21.8, 0.6)
            case "shopping": value = 0.03 + (tag == "shop" || tag == "errand" ? 2.5 : 0) + (c.weekday == 6 ? 0.4 * Shape.bump(hr, 10, 1.5) : 0)
            case "tvguide": value = 0.03 + (atHome ? 1.8 * Shape.bump(hr, 20.5, 0.8) * (c.isWeekend ? 1.5 : 1) : 0)
            default: value = 0.02 + (motion == .driving ? 2.5 : 0)  // parking
            }
            w[index] = value * extraAmp[k]
        }
    }
}
