import Testing
@testable import SmartStack

/// `contextual`'s mixture of its model with the counting baselines: never worse than counting,
/// and its weights in every explanation.
@Suite struct SignalMixtureTests {
    /// A small deterministic generator (tests never use a global random source).
    struct LCG {
        var state: UInt64
        mutating func unit() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        mutating func pick(_ weights: [Double]) -> Int {
            var u = unit() * weights.reduce(0, +)
            for (i, w) in weights.enumerated() { u -= w; if u < 0 { return i } }
            return weights.count - 1
        }
    }

    static let widgets = ["a", "b", "c", "d", "e"]
    static let frequencies = [0.3, 0.25, 0.2, 0.15, 0.1]

    /// A person with no structure: each session opens a widget drawn from fixed frequencies, at
    /// a random time, at a random place, after a random other app.
    func structureless(days: Int, seed: UInt64) -> [Event] {
        var g = LCG(state: seed)
        var events = [Event(time: Script.monday, user: "u", payload: .stackConfig(
            stack: "home", widgets: Self.widgets.map { WidgetConfig(id: $0, app: "app." + $0) }))]
        for day in 0..<days {
            var minute = 7 * 60 + Int(g.unit() * 60)
            while minute < 23 * 60 {
                let t = Script.time(day: day, 0, minute)
                events.append(Event(time: t, user: "u", payload: .place(["home", "work", "cafe"][Int(g.unit() * 3)])))
                events.append(Event(time: t.adding(seconds: 5), user: "u", payload: .appLaunch(app: "other.\(Int(g.unit() * 4))")))
                events.append(Event(time: t.adding(seconds: 30), user: "u", payload: .screenOn))
                let w = Self.widgets[g.pick(Self.frequencies)]
                events.append(Event(time: t.adding(seconds: 40), user: "u", payload: .appLaunch(app: "app." + w)))
                minute += 20 + Int(g.unit() * 60)
            }
        }
        return events
    }

    @Test func aStructurelessPersonGetsMFUsPicks() throws {
        let events = structureless(days: 56, seed: 7)
        let model = try UserEngine(user: "u", policy: PolicySpec(parsing: "contextual"))
        let mfu = try UserEngine(user: "u", policy: PolicySpec(parsing: "mfu"))
        var agree = 0, decisions = 0
        var hits = (model: 0, mfu: 0)
        for (k, event) in events.enumerated() {
            if case .screenOn = event.payload, event.time >= Script.time(day: 7, 0) {
                let ours = try model.ranking(stack: "home", at: event.time).top
                let counted = try mfu.ranking(stack: "home", at: event.time).top
                decisions += 1
                if ours == counted { agree += 1 }
                if case .appLaunch(let app) = events[k + 1].payload {
                    if "app." + (ours ?? "") == app { hits.model += 1 }
                    if "app." + (counted ?? "") == app { hits.mfu += 1 }
                }
            }
            model.record(event)
            mfu.record(event)
        }
        #expect(decisions > 800)
        #expect(Double(agree) / Double(decisions) > 0.9, "\(agree) of \(decisions)")
        #expect(hits.model >= hits.mfu - decisions / 50, "\(hits)")

    }

    @Test func theMixturesWeightsAppearInTheExplanation() throws {
        var s = Script()
        s.configure("home", ["a", "b"])
        for day in 0..<5 { s.launch("a", Script.time(day: day, 8)); s.launch("b", Script.time(day: day, 20)) }
        let r = try s.engine().ranking(stack: "home", at: Script.time(day: 5, 8))
        for w in r.widgets {
            let reason = w.reasons.first { $0.text.hasPrefix("weights: ") }
            #expect(reason?.text.hasPrefix("weights: model ") == true, "\(w.reasons)")
        }
        // Without the mixture, no weights.
        let alone = try s.engine("contextual:mixture=0").ranking(stack: "home", at: Script.time(day: 5, 8))
        #expect(alone.widgets.allSatisfy { w in !w.reasons.contains { $0.text.hasPrefix("weights: ") } })
    }

    @Test func weightsStartAtThePriorAndSumToOne() {
        let mixture = SignalMixture()
        var w: [Double] = []
        mixture.weights(at: 0, halfLife: 14 * 86_400, baselines: 0.01, into: &w)
        #expect(w.count == SignalMixture.expertCount)
        #expect(abs(w.reduce(0, +) - 1) < 1e-12)
        #expect(abs(w[SignalMixture.Expert.mfu.rawValue] - 0.0025) < 1e-12)
        #expect(abs(w[SignalMixture.Expert.model.rawValue] - 0.2475) < 1e-12)
    }
}

/// The rotation policy's record of early rotations.
@Suite struct DwellLedgerTests {
    @Test func earlyRotationsNeedConfidentEvidence() {
        var ledger = DwellLedger()
        let z = DwellLedger.z(confidence: 0.95)
        #expect(abs(z - 1.6448536) < 1e-6)
        let cell = DwellLedger.cell(gain: 0.7, isReturn: false)
        #expect(!ledger.allowsEarlyRotation(cell: cell, gain: 0.7, z: z, at: 0, halfLife: 86_400))
        for k in 0..<3 { ledger.settle(cell: cell, challengerWon: true, at: Double(k), halfLife: 86_400) }
        #expect(ledger.allowsEarlyRotation(cell: cell, gain: 0.7, z: z, at: 3, halfLife: 86_400))
        // A coin flip never earns it, however long the record.
        var noisy = DwellLedger()
        for k in 0..<400 { noisy.settle(cell: cell, challengerWon: k % 2 == 0, at: Double(k), halfLife: 86_400) }
        #expect(!noisy.allowsEarlyRotation(cell: cell, gain: 0.7, z: z, at: 400, halfLife: 86_400))
        // Returns are counted apart from new challengers, and evidence fades with the half-life.
        #expect(!ledger.allowsEarlyRotation(cell: DwellLedger.cell(gain: 0.7, isReturn: true), gain: 0.7, z: z, at: 3, halfLife: 86_400))
        #expect(!ledger.allowsEarlyRotation(cell: cell, gain: 0.7, z: z, at: 10 * 86_400, halfLife: 86_400))
        #expect(!ledger.allowsEarlyRotation(cell: cell, gain: 0.7, z: DwellLedger.z(confidence: 1), at: 3, halfLife: 86_400))
        // The scorer's own claim stands in for a record only when it is near certain.
        let top = DwellLedger.cell(gain: 0.95, isReturn: false)
        #expect(DwellLedger().allowsEarlyRotation(cell: top, gain: 0.95, z: z, at: 0, halfLife: 86_400))
        #expect(!DwellLedger().allowsEarlyRotation(cell: top, gain: 0.8, z: z, at: 0, halfLife: 86_400))
    }

    @Test func aThinCellBorrowsTheRecordOfLessConfidentChallengers() {
        let z = DwellLedger.z(confidence: 0.95)
        // Wins spread over the lower gain bands: no one cell is convincing, their pool is.
        var ledger = DwellLedger()
        for (k, gain) in [0.15, 0.35, 0.55].enumerated() {
            ledger.settle(cell: DwellLedger.cell(gain: gain, isReturn: false), challengerWon: true, at: Double(k), halfLife: 86_400)
        }
        let thin = DwellLedger.cell(gain: 0.75, isReturn: false)
        #expect(ledger.allowsEarlyRotation(cell: thin, gain: 0.75, z: z, at: 3, halfLife: 86_400))
        #expect(!DwellLedger().allowsEarlyRotation(cell: thin, gain: 0.75, z: z, at: 3, halfLife: 86_400))
        #expect(!ledger.allowsEarlyRotation(cell: DwellLedger.cell(gain: 0.15, isReturn: false), gain: 0.15, z: z, at: 3, halfLife: 86_400))
        // Never upward: wins of confident challengers say nothing for less confident ones, and
        // new challengers' wins say nothing for returns.
        var confident = DwellLedger()
        for k in 0..<6 {
            confident.settle(cell: DwellLedger.cell(gain: 0.85, isReturn: false), challengerWon: true, at: Double(k), halfLife: 86_400)
        }
        #expect(!confident.allowsEarlyRotation(cell: DwellLedger.cell(gain: 0.3, isReturn: false), gain: 0.3, z: z, at: 6, halfLife: 86_400))
        #expect(!ledger.allowsEarlyRotation(cell: DwellLedger.cell(gain: 0.75, isReturn: true), gain: 0.75, z: z, at: 3, halfLife: 86_400))
        // Losses at lower gains count against the pool too.
        var mixed = ledger
        for k in 0..<3 { mixed.settle(cell: DwellLedger.cell(gain: 0.15, isReturn: false), challengerWon: false, at: Double(3 + k), halfLife: 86_400) }
        #expect(!mixed.allowsEarlyRotation(cell: thin, gain: 0.75, z: z, at: 6, halfLife: 86_400))
    }

    @Test func confidenceIsARotationParameter() throws {
        #expect(RotationParameters().description == "margin=0.1,dwell=15m,cap=48,swipe_hold=10m,confidence=0.95,new_confidence=0.8")
        #expect(try RotationParameters(parsing: "confidence=off").earlyRotationConfidence == 1)
        #expect(try RotationParameters(parsing: "confidence=0.99").earlyRotationConfidence == 0.99)
        #expect(throws: EngineError.self) { try RotationParameters(parsing: "confidence=0.3") }
    }
}

/// `contextual`'s per-widget offsets: what the signals together mispredict for one widget.
@Suite struct WidgetOffsetTests {
    @Test func theOffsetLearnsWhatTheSignalsMiss() {
        var model = BanditModel()
        let F = ContextualModel.featureCount
        let x = [Double](repeating: 0, count: 3 * F)  // signals that tell the widgets nothing
        var p: [Double] = []
        for _ in 0..<50 {
            model.learn(features: x, widgets: [4, 1, 7], count: 3, engaged: 0, rate: 0.3, adaptive: true, probabilities: &p)
        }
        #expect(model.bias(of: 4) > 0.5)
        #expect(model.bias(of: 1) < 0 && model.bias(of: 7) < 0)
        #expect(model.bias(of: 3) == 0 && model.bias(of: 99) == 0)
        model.softmax(features: x, widgets: [4, 1, 7], count: 3, temperature: 1, into: &p)
        #expect(p[0] > 0.6)
        // `bandit` keeps its plain model: no offsets.
        var bandit = BanditModel()
        for _ in 0..<50 {
            bandit.learn(features: x, widgets: [4, 1, 7], count: 3, engaged: 0, rate: 0.3, adaptive: false, probabilities: &p)
        }
        #expect(bandit.bias.isEmpty)
    }

    @Test func aWidgetPickedAtLooksMoreThanItsUseSaysRisesAndSaysWhy() throws {
        // At every look (screen-on) "a" is picked, and then "b" is opened twice from the app
        // drawer within the same session: "b" is used more, "a" is what the looks want.
        var s = Script()
        s.configure("home", ["a", "b"])
        for day in 0..<10 {
            for hour in stride(from: 8, to: 20, by: 2) {
                s.add(Script.time(day: day, hour, 40), .screenOn)
                s.launch("a", Script.time(day: day, hour, 41))
                s.launch("b", Script.time(day: day, hour, 43))
                s.launch("b", Script.time(day: day, hour, 45))
            }
        }
        let at = Script.time(day: 10, 9, 40)
        let learned = try s.engine().ranking(stack: "home", at: at)
        let fixed = try s.engine("contextual:learning_rate=0").ranking(stack: "home", at: at)
        let reason = learned.widget("a")?.reasons.first { $0.text == "picked more often than the signals predict" }
        #expect(reason != nil, "\(learned.widget("a")?.reasons ?? [])")
        #expect((reason?.contribution ?? 0) > 0)
        #expect(fixed.widget("a")?.reasons.contains { $0.text.hasPrefix("picked") } == false)
        let gap = { (r: Ranking) in (r.widget("a")?.score ?? 0) - (r.widget("b")?.score ?? 0) }
        #expect(gap(learned) > gap(fixed))
    }
}
