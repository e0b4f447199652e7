import Testing
import SmartStack
@testable import SmartStackEvaluation

/// The bootstrap measures a resample without sorting or allocating (`ScoredDays`,
/// `DwellOrder`, `ResampleScratch`); these tests hold every figure to what adding the drawn
/// days' tallies one after another and sorting their dwells gives, bit for bit.
@Suite struct ResampleTests {
    /// Random users and days: dwells in whole minutes (many ties, as simulated data) or in
    /// fractions (all distinct, as recorded data), days without dwells, users with more than 64
    /// configured widgets (several coverage words) and users with none on top.
    static func table(users: Int, policies: Int, wholeMinutes: Bool, seed: UInt64)
        -> (table: ScoredDays, days: [[[DaySummary]]], universes: [Int]) {
        var g = SeededGenerator(seed: seed)
        var table = ScoredDays(policies: policies)
        var all: [[[DaySummary]]] = []
        var universes: [Int] = []
        for u in 0..<users {
            let universe = [3, 8, 70, 130][g.index(below: 4)]
            let dayCount = g.index(below: 5)
            var perPolicy: [[DaySummary]] = []
            for _ in 0..<policies {
                var days: [DaySummary] = []
                for _ in 0..<dayCount {
                    var d = DaySummary()
                    for _ in 0..<g.index(below: 12) {
                        let rank = g.index(below: 6)
                        d.tally.addDecision(targetRank: rank == 0 ? nil : rank == 5 ? Int.max : rank)
                    }
                    d.tally.activeHours = g.index(below: 5)
                    for _ in 0..<g.index(below: 7) {
                        d.tally.addRotation(isFlicker: g.index(below: 4) == 0)
                        if g.index(below: 3) == 0 { d.tally.addUnnecessaryRotation() }
                        let minutes = wholeMinutes ? Double(10 + g.index(below: 8) * 15)
                                                   : Double(g.index(below: 1_000_000)) / 997
                        d.tally.addDwell(minutes: minutes)
                    }
                    d.topKeys = Array(Set((0..<g.index(below: 4)).map { _ in Int32(g.index(below: universe)) })).sorted()
                    days.append(d)
                }
                perPolicy.append(days)
            }
            try! table.appendUser(universe: universe, days: perPolicy, name: "u\(u)")
            all.append(perPolicy)
            universes.append(universe)
        }
        table.finish()
        return (table, all, universes)
    }

    /// What the metrics of `units` were before: their tallies added in order, their dwells
    /// sorted for the median, coverage over the distinct users drawn.
    static func reference(_ days: [[[DaySummary]]], universes: [Int], policy p: Int, units: [Int]) -> MetricValues {
        var flat: [(user: Int, day: DaySummary)] = []
        for (u, user) in days.enumerated() { for d in user[p] { flat.append((u, d)) } }
        var total = DecisionTally()
        var users: Set<Int> = []
        var covered: Set<[Int]> = []
        for i in units {
            total += flat[i].day.tally
            users.insert(flat[i].user)
            for k in flat[i].day.topKeys { covered.insert([flat[i].user, Int(k)]) }
        }
        let universe = users.reduce(0) { $0 + universes[$1] }
        return MetricValues(total, medianDwell: DecisionTally.median(&total.dwellMinutes), covered: covered.count,
                            universe: universe)
    }

    @Test(arguments: [true, false])
    func aResampleMeasuresExactlyWhatSummingAndSortingGives(wholeMinutes: Bool) {
        let (table, days, universes) = Self.table(users: 40, policies: 2, wholeMinutes: wholeMinutes, seed: wholeMinutes ? 1 : 2)
        #expect(table.unitCount > 50)
        var scratch = ResampleScratch(table)
        var offPivot = 0
        for r in 0..<300 {
            var g = SeededGenerator(seed: SeededGenerator.mix(7, UInt64(r)))
            scratch.draw(&g)
            let units = scratch.draws.map(Int.init)
            for p in 0..<2 {
                let counts = units.reduce(into: (all: 0, below: 0, at: 0)) {
                    let c = table.policies[p].packed[$1].truthAndDwells   // decisions with truth, dwells, below, at
                    $0.all += Int(c[1]); $0.below += Int(c[2]); $0.at += Int(c[3])
                }
                if table.policies[p].dwells.walksOffPivot(count: counts.all, below: counts.below, atPivot: counts.at) { offPivot += 1 }
                #expect(scratch.values(of: table, policy: p) == Self.reference(days, universes: universes, policy: p, units: units))
            }
        }
        #expect(offPivot > 0)   // the walk away from the pivot is exercised, not only the shortcut
        for p in 0..<2 {
            #expect(table.values(policy: p) == Self.reference(days, universes: universes, policy: p, units: Array(0..<table.unitCount)))
        }
    }

    /// A resample adds counts in 32-bit lanes only where no sum can outgrow them: three days of
    /// 1.5 billion decisions each (a sum beyond 2^31) still add up exactly, whole and resampled.
    @Test func countsWhoseSumsOutgrow32BitsAddUpExactly() throws {
        var table = ScoredDays(policies: 1)
        var day = DaySummary()
        day.tally.decisions = 1_500_000_000
        day.tally.decisionsWithTarget = 1_500_000_000
        day.tally.hitsAt1 = 1_000_000_000
        try table.appendUser(universe: 1, days: [[day, day, day]], name: "u")
        table.finish()
        #expect(!table.policies[0].countsSumIn32Bits)
        #expect(table.values(policy: 0)[.decisions] == 4_500_000_000)
        #expect(table.values(policy: 0)[.hitAt1] == 2.0 / 3.0)
        var scratch = ResampleScratch(table)
        scratch.draw([0, 0, 2])
        #expect(scratch.values(of: table, policy: 0)[.decisions] == 4_500_000_000)
        var small = ScoredDays(policies: 1)
        day.tally.decisions = 3
        day.tally.decisionsWithTarget = 3
        day.tally.hitsAt1 = 2
        try small.appendUser(universe: 1, days: [[day, day]], name: "u")
        small.finish()
        #expect(small.policies[0].countsSumIn32Bits)
        #expect(small.values(policy: 0)[.decisions] == 6)
    }

    @Test func evenAndOddCountsAndDaysWithoutDwellsTakeTheSortedMedian() throws {
        // Unit 0: dwells 1, 5; unit 1: none; unit 2: 3, 4, 9.
        var table = ScoredDays(policies: 1)
        var days = [DaySummary(), DaySummary(), DaySummary()]
        for (d, minutes) in [(0, [1.0, 5]), (2, [3.0, 4, 9])] { for m in minutes { days[d].tally.addDwell(minutes: m) } }
        try table.appendUser(universe: 2, days: [days], name: "u")
        table.finish()
        var scratch = ResampleScratch(table)
        let cases: [([Int32], Double?)] = [
            ([0, 1, 2], 4),            // 1 3 4 5 9
            ([0, 0, 1], 3),            // 1 1 5 5: the mean of the middle two
            ([1, 1, 1], nil),          // no dwell
            ([2, 2, 0], 4),            // 1 3 3 4 4 5 9 9
            ([0, 0, 0], 3),            // 1 1 1 5 5 5
            ([2, 1, 1], 4),            // 3 4 9
            ([2, 2, 2], 4),            // 3 3 3 4 4 4 9 9 9
            ([1, 0, 1], 3),            // 1 5
        ]
        for (draws, median) in cases {
            scratch.draw(draws)
            #expect(scratch.values(of: table, policy: 0)[.medianDwellMinutes] == median, "\(draws)")
        }
    }

    @Test func aDayCountBeyondTheTableIsRefusedNamingTheUser() {
        var table = ScoredDays(policies: 1)
        var day = DaySummary()
        day.tally.decisions = Int(Int32.max) + 1
        #expect(throws: EvaluationError.self) { try table.appendUser(universe: 1, days: [[day]], name: "big") }
        do { try table.appendUser(universe: 1, days: [[day]], name: "big") } catch {
            #expect(error.message.hasPrefix("user 'big': 2147483648 decisions in one day is out of range"))
        }
    }
}
