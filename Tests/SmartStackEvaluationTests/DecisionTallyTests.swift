import Foundation
import Testing
import SmartStack
@testable import SmartStackEvaluation

@Suite struct DecisionTallyTests {
    /// Six decisions and four rotations worked out by hand below.
    static func handTally() -> DecisionTally {
        var t = DecisionTally()
        for rank in [1, 2, nil, 4, Int.max, 3] as [Int?] { t.addDecision(targetRank: rank) }
        t.addRotation(isFlicker: false)
        t.addRotation(isFlicker: true)
        t.addRotation(isFlicker: false)
        t.addRotation(isFlicker: false)
        t.addUnnecessaryRotation()
        for minutes in [10.0, 30, 20] { t.addDwell(minutes: minutes) }
        t.activeHours = 2
        return t
    }

    @Test func aKnownSequenceGivesTheFiguresWorkedOutByHand() throws {
        let t = Self.handTally()
        #expect(t.decisions == 6)
        #expect(t.decisionsWithTarget == 5)            // all but the decision without target
        #expect(t.hitAt1 == 1.0 / 5)                   // rank 1
        #expect(t.hitAt3 == 3.0 / 5)                   // ranks 1, 2, 3
        // Reciprocal ranks 1, 1/2, 1/4, 0 (missing from the order), 1/3.
        let mrr: Double = (1 + 0.5 + 0.25 + 1.0 / 3) / 5
        #expect(abs(try #require(t.meanReciprocalRank) - mrr) < 1e-12)
        // nDCG@3 of ranks 1, 2, 3: 1, 1/log2(3), 1/2; ranks beyond 3 give 0.
        let ndcg: Double = (1 + 1 / log2(3.0) + 0.5) / 5
        #expect(abs(try #require(t.ndcgAt3) - ndcg) < 1e-12)
        #expect(t.rotationsPerActiveHour == 2)         // 4 rotations in 2 active hours
        #expect(t.flickerRate == 0.25)
        #expect(t.unnecessaryRotationRate == 0.25)
        #expect(t.medianDwellMinutes == 20)            // 10, 20, 30
        #expect(t.dwellMinutes == [10, 30, 20])        // kept in the order they ended
    }

    @Test func ratiosWithoutTheirDenominatorAreUndefinedNotZero() {
        var t = DecisionTally()
        t.addDecision(targetRank: nil)
        #expect(t.decisions == 1)
        #expect(t.hitAt1 == nil && t.hitAt3 == nil && t.meanReciprocalRank == nil && t.ndcgAt3 == nil)
        #expect(t.rotationsPerActiveHour == nil && t.flickerRate == nil && t.unnecessaryRotationRate == nil)
        #expect(t.medianDwellMinutes == nil)
    }

    @Test func theMedianOfAnEvenCountAveragesTheMiddleTwo() {
        var t = DecisionTally()
        for minutes in [4.0, 1, 3, 2] { t.addDwell(minutes: minutes) }
        #expect(t.medianDwellMinutes == 2.5)
        #expect(t.dwellMinutes == [4, 1, 3, 2])        // reading the median sorts a copy
    }

    @Test func talliesOfTheTwoPartsOfASequenceAddUpToTheWhole() throws {
        let ranks: [Int?] = [1, 2, nil, 4, Int.max, 3, 2, nil]
        let rotations: [(flicker: Bool, dwell: Double)] = [(false, 12), (true, 3), (false, 40), (true, 7)]
        func tally(_ r: ArraySlice<Int?>, _ rot: ArraySlice<(flicker: Bool, dwell: Double)>, activeHours: Int) -> DecisionTally {
            var t = DecisionTally()
            for rank in r { t.addDecision(targetRank: rank) }
            for x in rot {
                t.addRotation(isFlicker: x.flicker)
                t.addDwell(minutes: x.dwell)
                if !x.flicker { t.addUnnecessaryRotation() }
            }
            t.activeHours = activeHours
            return t
        }
        // Split between hours: the morning has two active hours, the evening three.
        let whole = tally(ranks[...], rotations[...], activeHours: 5)
        let morning = tally(ranks[..<3], rotations[..<1], activeHours: 2)
        let evening = tally(ranks[3...], rotations[1...], activeHours: 3)
        let sum = morning + evening
        #expect(sum.decisions == whole.decisions && sum.decisionsWithTarget == whole.decisionsWithTarget)
        #expect(sum.hitsAt1 == whole.hitsAt1 && sum.hitsAt3 == whole.hitsAt3)
        #expect(abs(sum.reciprocalRankSum - whole.reciprocalRankSum) < 1e-12)
        #expect(abs(sum.ndcgSum - whole.ndcgSum) < 1e-12)
        #expect(sum.activeHours == whole.activeHours)
        #expect(sum.rotations == whole.rotations && sum.flickers == whole.flickers)
        #expect(sum.unnecessaryRotations == whole.unnecessaryRotations)
        #expect(sum.dwellMinutes == whole.dwellMinutes)
        var accumulated = DecisionTally()
        accumulated += morning
        accumulated += evening
        #expect(accumulated == sum)
    }

    @Test func aTallySurvivesAJSONRoundTripExactly() throws {
        let t = Self.handTally()
        let decoded = try JSONDecoder().decode(DecisionTally.self, from: JSONEncoder().encode(t))
        #expect(decoded == t)
    }

    /// A replay tallies every decision and rotation into its day and its hour, so a user's days
    /// and hours add up to the same totals (dwells are tallied by day only).
    @Test func aReplaysDaysAndHoursAddUpToTheSameTotals() throws {
        let events = syntheticDataset(users: 1, days: 4, seed: 7)
        let r = try Fixture.replay(events, policies: [RecentPolicy(seed: 3)], options: Fixture.options(warmupDays: 1))
        let tallies = r.perPolicy[0]
        #expect(tallies.days.count >= 2)
        let byDay = tallies.days.reduce(DecisionTally()) { $0 + $1.tally }
        let byHour = tallies.byHour.reduce(DecisionTally(), +)
        #expect(byDay.decisions > 0 && byDay.rotations > 0 && byDay.unnecessaryRotations > 0)
        #expect(byDay.decisions == byHour.decisions && byDay.decisionsWithTarget == byHour.decisionsWithTarget)
        #expect(byDay.hitsAt1 == byHour.hitsAt1 && byDay.hitsAt3 == byHour.hitsAt3)
        #expect(abs(byDay.reciprocalRankSum - byHour.reciprocalRankSum) < 1e-9)
        #expect(abs(byDay.ndcgSum - byHour.ndcgSum) < 1e-9)
        #expect(byDay.activeHours == byHour.activeHours)
        #expect(byDay.rotations == byHour.rotations && byDay.flickers == byHour.flickers)
        #expect(byDay.unnecessaryRotations == byHour.unnecessaryRotations)
        #expect(!byDay.dwellMinutes.isEmpty && byHour.dwellMinutes.isEmpty)
        // The days' sum is what the metrics of the user report.
        let m = Fixture.metrics(r)
        #expect(m[.decisions] == Double(byDay.decisions))
        #expect(m[.hitAt1] == byDay.hitAt1)
        #expect(m[.rotationsPerActiveHour] == byDay.rotationsPerActiveHour)
    }
}
