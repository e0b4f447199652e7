import Foundation

/// The baseline policies, each a few lines over `FeatureState`:
/// - `static`: the configured order (`n - position`);
/// - `round-robin`: the widget at position `floor(local time / interval) mod n` first, then the
///   following ones in order (slots aligned to local midnight);
/// - `mru`: time of the last engagement; `mfu`: all-time engagement count;
/// - `frecency`: engagements decayed with `half_life` (default 3 days);
/// - `time-of-day`: engagements in the current local hour (all days), ties by all-time count.
/// Ties always fall back to the configured order.
enum Baselines {
    /// Fills `scores` (at least as long as the stack) for the widgets of one stack.
    /// - Complexity: O(n).
    static func scores(
        _ kind: ResolvedPolicy.Kind, policy: ResolvedPolicy, _ fs: FeatureState,
        widgets: [Int32], at time: EventTime, into scores: UnsafeMutableBufferPointer<Double>
    ) {
        let n = widgets.count
        let ts = time.secondsSinceEpoch
        // What every widget's score reads of the moment, computed once per stack.
        switch kind {
        case .staticOrder:
            for i in 0..<n { scores[i] = Double(n - i) }
        case .roundRobin:
            let slot = roundRobinSlot(time, interval: policy.interval, count: n)
            for i in 0..<n { scores[i] = Double(n - ((i - slot + n) % n)) }
        case .mru:
            for i in 0..<n {
                let w = Int(widgets[i])
                scores[i] = fs.signals[w].lastUsed == FeatureState.never ? -1e300 : -(ts - fs.signals[w].lastUsed) / 3600
            }
        case .mfu:
            for i in 0..<n { scores[i] = fs.signals[Int(widgets[i])].totalUses }
        case .frecency:
            let factor = fs.frecencyClock.factor(at: ts)
            for i in 0..<n { scores[i] = fs.signals[Int(widgets[i])].frecency * factor }
        case .timeOfDay:
            let hour = time.localHour
            for i in 0..<n {
                let w = Int(widgets[i])
                scores[i] = fs.bins[WidgetBins.hourCounts.index(w, hour)] + 1e-6 * fs.signals[w].totalUses
            }
        case .contextual, .bandit, .external:
            for i in 0..<n { scores[i] = 0 }
        }
    }

    static func roundRobinSlot(_ time: EventTime, interval: Double, count n: Int) -> Int {
        guard n > 0 else { return 0 }
        let local = time.secondsSinceEpoch + Double(time.utcOffsetSeconds)
        let slot = Int64((local / interval).rounded(.down))
        return Int(((slot % Int64(n)) + Int64(n)) % Int64(n))
    }

    /// The explanation of a baseline score.
    static func reasons(
        _ kind: ResolvedPolicy.Kind, policy: ResolvedPolicy, _ fs: FeatureState,
        widget w: Int, position i: Int, count n: Int, score: Double, at time: EventTime
    ) -> [Reason] {
        let ts = time.secondsSinceEpoch
        switch kind {
        case .staticOrder:
            return [Reason(text: "position \(i + 1) in the stack", contribution: score)]
        case .roundRobin:
            let slot = roundRobinSlot(time, interval: policy.interval, count: n)
            if i == slot {
                let local = ts + Double(time.utcOffsetSeconds)
                let end = ((local / policy.interval).rounded(.down) + 1) * policy.interval
                let s = Int(end.truncatingRemainder(dividingBy: 86_400))
                return [Reason(text: "its turn until \(ReasonText.clock(secondOfDay: s))", contribution: score)]
            }
            return [Reason(text: "turn \((i - slot + n) % n + 1) of \(n)", contribution: score)]
        case .mru:
            if fs.signals[w].lastUsed == FeatureState.never { return [Reason(text: "never used", contribution: 0)] }
            return [Reason(text: "used " + ReasonText.ago(ts - fs.signals[w].lastUsed), contribution: score)]
        case .mfu:
            return [Reason(text: "used " + ReasonText.times(fs.signals[w].totalUses), contribution: score)]
        case .frecency:
            return [Reason(text: "frecency " + ReasonText.number(score) + " (used " + ReasonText.times(fs.signals[w].totalUses) + ")",
                           contribution: score)]
        case .timeOfDay:
            let h = time.localHour
            let text = "used " + ReasonText.times(fs.bins[WidgetBins.hourCounts.index(w, h)]) + " between "
                + ReasonText.clock(secondOfDay: h * 3600) + " and " + ReasonText.clock(secondOfDay: (h + 1) * 3600)
            return [Reason(text: text, contribution: score)]
        case .contextual, .bandit, .external:
            return []
        }
    }
}
