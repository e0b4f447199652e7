import Testing
@testable import SmartStackEvaluation

/// The progress bar's line: a rate that means something in every phase.
@Suite struct ReplayProgressTests {
    @Test func bootstrappingShowsNoEventRate() {
        // 10M events replayed, then 0.08 s into the bootstrap: once printed "125635.9M/s".
        let p = ReplayProgress(phase: .bootstrapping, events: 10_050_000, totalEvents: 10_050_000,
                               decisionPoints: 1_700_000, elapsed: 0.08)
        #expect(p.rate == 0)
        #expect(!p.line().contains("/s"))
        #expect(p.line().hasPrefix("bootstrapping intervals"))
        #expect(p.secondsLeft == nil)
    }

    @Test func readingOnceMeasuresProgressByBytesAndRateByEventsReplayed() {
        let p = ReplayProgress(phase: .replaying, events: 3_000_000, totalEvents: 0, decisionPoints: 500_000,
                               elapsed: 2, bytes: 250, totalBytes: 1_000)
        #expect(p.fraction == 0.25)
        #expect(p.rate == 1_500_000)
        #expect(p.secondsLeft == 6)
        #expect(p.line().contains(" 25% 3.0M events, 500.0k decisions, 1.5M/s, ETA 0m06s"))
    }

    @Test func knownEventTotalsWinOverBytes() {
        let p = ReplayProgress(phase: .replaying, events: 50, totalEvents: 100, decisionPoints: 0, elapsed: 1,
                               bytes: 10, totalBytes: 1_000)
        #expect(p.fraction == 0.5)
        #expect(p.secondsLeft == 1)
    }
}
