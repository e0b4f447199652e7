import SmartStack

/// One user's line of a partial file (everything `ReportBuilder.add` reads of a replay result)
/// and the timeline line.
extension PartialEvaluation {
    /// `byDay`: whether the policies' by-day tallies are written (the header's `by_day`).
    static func write(_ u: UserReplayResult, byDay: Bool, _ w: inout PartialWriter) {
        w.raw("{")
        w.key("user", first: true); w.string(u.user)
        w.key("events"); w.int(u.events)
        w.key("merged_repeats"); w.int(u.mergedRepeats)
        w.key("skip"); w.optionalString(u.skipReason)
        w.key("rule"); w.string(u.rule == .screenOn ? "screen_on" : "engagement")
        w.key("decision_points"); w.int(u.decisionPoints)
        w.key("universe"); w.int(u.universe)
        w.key("stacks"); w.array(u.stacks) { $0.string($1) }
        w.key("impressions"); w.array(u.impressions) { w, i in
            w.raw("["); w.double(i.propensity); w.raw(","); w.int(i.actionCount); w.raw(","); w.int(i.loggedAction)
            w.raw(","); w.int(i.stack); w.raw(","); w.int(i.hour); w.raw(","); w.int(i.isEngaged ? 1 : 0)
            w.raw(","); w.int(i.day); w.raw("]")
        }
        w.key("logging_policies"); w.array(u.loggingPolicies) { w, l in
            w.raw("["); w.string(l.name); w.raw(","); w.int(l.impressions); w.raw("]")
        }
        let m = u.truthMatches
        w.key("truth"); w.raw("[")
        for (k, v) in [m.lines, m.atInstant, m.earlier, m.withIntent, m.unknownWidget, m.missing, m.unknownStackLines].enumerated() {
            if k > 0 { w.raw(",") }
            w.int(v)
        }
        w.raw(","); w.optionalString(m.firstUnknownWidget); w.raw("]")
        w.key("policies"); w.array(u.perPolicy) { w, p in
            w.raw("{")
            w.key("days", first: true); w.array(p.days) { w, d in
                w.raw("["); writeTally(d.tally, &w); w.raw(","); w.array(d.topKeys) { $0.int($1) }; w.raw("]")
            }
            w.key("hours"); w.array(p.byHour) { w, h in
                w.raw("["); writeTally(h, &w); w.raw("]")
            }
            w.key("impression_actions"); w.array(p.impressionActions) { $0.int($1) }
            if byDay {
                w.key("by_day"); w.array(p.elapsedDays) { w, t in
                    w.raw("["); writeTally(t, &w); w.raw("]")
                }
            }
            w.raw("}")
        }
        w.raw("}")
    }

    /// A `DecisionTally` as its fields in order, dwells last as an array (no brackets around).
    static func writeTally(_ t: DecisionTally, _ w: inout PartialWriter) {
        w.int(t.decisions); w.raw(","); w.int(t.decisionsWithTarget); w.raw(","); w.int(t.hitsAt1)
        w.raw(","); w.int(t.hitsAt3); w.raw(","); w.double(t.reciprocalRankSum); w.raw(","); w.double(t.ndcgSum)
        w.raw(","); w.int(t.activeHours); w.raw(","); w.int(t.rotations); w.raw(","); w.int(t.flickers)
        w.raw(","); w.int(t.unnecessaryRotations); w.raw(","); w.int(t.decisionsWithTruth)
        w.raw(","); w.double(t.counterfactualSum); w.raw(","); w.double(t.ceilingSum); w.raw(","); w.double(t.liftSum)
        w.raw(",")
        w.array(t.dwellMinutes) { $0.double($1) }
    }

    static func readTally(_ s: inout PartialScanner) throws(EvaluationError) -> DecisionTally {
        var t = DecisionTally()
        t.decisions = try s.int(); try s.expect(",")
        t.decisionsWithTarget = try s.int(); try s.expect(",")
        t.hitsAt1 = try s.int(); try s.expect(",")
        t.hitsAt3 = try s.int(); try s.expect(",")
        t.reciprocalRankSum = try s.double(); try s.expect(",")
        t.ndcgSum = try s.double(); try s.expect(",")
        t.activeHours = try s.int(); try s.expect(",")
        t.rotations = try s.int(); try s.expect(",")
        t.flickers = try s.int(); try s.expect(",")
        t.unnecessaryRotations = try s.int(); try s.expect(",")
        t.decisionsWithTruth = try s.int(); try s.expect(",")
        t.counterfactualSum = try s.double(); try s.expect(",")
        t.ceilingSum = try s.double(); try s.expect(",")
        t.liftSum = try s.double(); try s.expect(",")
        guard t.decisionsWithTruth >= 0, t.counterfactualSum >= 0, t.ceilingSum >= 0, t.liftSum >= 0 else {
            throw s.failure("a negative counterfactual count or sum")
        }
        try s.array { (s: inout PartialScanner) throws(EvaluationError) in
            let minutes = try s.double()
            guard minutes >= 0 else { throw s.failure("negative dwell") }
            t.dwellMinutes.append(minutes)
        }
        return t
    }

    static func readUser(_ s: inout PartialScanner, policies: Int, byDay: Bool) throws(EvaluationError) -> UserReplayResult {
        try s.expect("{")
        try s.key("user", first: true)
        var u = UserReplayResult(user: try s.string())
        try s.key("events"); u.events = try s.int()
        try s.key("merged_repeats"); u.mergedRepeats = try s.int()
        try s.key("skip"); u.skipReason = try s.optionalString()
        try s.key("rule")
        switch try s.string() {
        case "screen_on": u.rule = .screenOn
        case "engagement": u.rule = .engagement
        case let other: throw s.failure("unknown decision point rule '\(other)'")
        }
        try s.key("decision_points"); u.decisionPoints = try s.int()
        try s.key("universe"); u.universe = try s.int()
        try s.key("stacks"); u.stacks = try s.strings()
        let stackCount = u.stacks.count
        try s.key("impressions")
        try s.array { (s: inout PartialScanner) throws(EvaluationError) in
            try s.expect("[")
            let propensity = try s.double(); try s.expect(",")
            let count = try s.int(); try s.expect(",")
            let logged = try s.int(); try s.expect(",")
            let stack = try s.int(); try s.expect(",")
            let hour = try s.int(); try s.expect(",")
            let engaged = try s.int(); try s.expect(",")
            let day = try s.int(); try s.expect("]")
            guard let c = Int16(exactly: count), let l = Int16(exactly: logged), let st = Int16(exactly: stack),
                  c > 0, l >= 0, l < c, st >= 0, Int(st) < stackCount, let h = UInt8(exactly: hour), h < 24,
                  engaged == 0 || engaged == 1, let d = Int32(exactly: day) else {
                throw s.failure("impression field out of range")
            }
            guard propensity > 0, propensity <= 1 else {
                throw s.failure("impression propensity \(propensity): must be in (0, 1]")
            }
            u.impressions.append(LoggedImpression(propensity: propensity, actionCount: c, loggedAction: l, stack: st,
                                                  hour: h, day: d, isEngaged: engaged == 1))
        }
        try s.key("logging_policies")
        try s.array { (s: inout PartialScanner) throws(EvaluationError) in
            try s.expect("[")
            let name = try s.string(); try s.expect(",")
            let count = try s.int(); try s.expect("]")
            guard count >= 0 else { throw s.failure("a negative impression count") }
            u.loggingPolicies.append((name, count))
        }
        try s.key("truth"); try s.expect("[")
        var counts: [Int] = []
        for k in 0..<7 {
            if k > 0 { try s.expect(",") }
            let v = try s.int()
            guard v >= 0 else { throw s.failure("a negative truth count") }
            counts.append(v)
        }
        try s.expect(",")
        u.truthMatches = TruthMatches(atInstant: counts[1], earlier: counts[2], withIntent: counts[3], unknownWidget: counts[4],
                                      missing: counts[5], unknownStackLines: counts[6], lines: counts[0],
                                      firstUnknownWidget: try s.optionalString())
        try s.expect("]")
        try s.key("policies")
        try s.array { (s: inout PartialScanner) throws(EvaluationError) in
            var p = PolicyUserTallies()
            p.byHour = []
            try s.expect("{")
            try s.key("days", first: true)
            try s.array { (s: inout PartialScanner) throws(EvaluationError) in
                var d = DaySummary()
                try s.expect("[")
                d.tally = try readTally(&s)
                try s.expect(",")
                try s.array { (s: inout PartialScanner) throws(EvaluationError) in
                    guard let k = Int32(exactly: try s.int()), k >= 0, Int(k) < u.universe else { throw s.failure("top key out of range") }
                    d.topKeys.append(k)
                }
                try s.expect("]")
                p.days.append(d)
            }
            try s.key("hours")
            try s.array { (s: inout PartialScanner) throws(EvaluationError) in
                try s.expect("[")
                p.byHour.append(try readTally(&s))
                try s.expect("]")
            }
            try s.key("impression_actions")
            try s.array { (s: inout PartialScanner) throws(EvaluationError) in
                guard let a = Int16(exactly: try s.int()) else { throw s.failure("impression action out of range") }
                p.impressionActions.append(a)
            }
            if byDay {
                try s.key("by_day")
                try s.array { (s: inout PartialScanner) throws(EvaluationError) in
                    try s.expect("[")
                    p.elapsedDays.append(try readTally(&s))
                    try s.expect("]")
                }
            }
            try s.expect("}")
            guard p.days.count == (u.perPolicy.first?.days.count ?? p.days.count), p.byHour.count == 24,
                  p.impressionActions.count == u.impressions.count,
                  p.elapsedDays.count == (u.perPolicy.first?.elapsedDays.count ?? p.elapsedDays.count) else {
                throw s.failure("a policy's days, hours, impression actions or by-day tallies do not match the user's")
            }
            u.perPolicy.append(p)
        }
        try s.expect("}")
        try s.end()
        guard u.perPolicy.count == policies else {
            throw s.failure("\(u.perPolicy.count) policies' tallies where the header names \(policies)")
        }
        return u
    }

    /// The timeline line: `{"timeline":null}` or the shard's busiest day.
    static func write(_ t: TimelineCandidate?, _ w: inout PartialWriter) {
        w.raw("{")
        w.key("timeline", first: true)
        guard let t else { w.raw("null}"); return }
        w.raw("{")
        w.key("user", first: true); w.string(t.user)
        w.key("targets"); w.int(t.targets)
        w.key("day"); w.int(t.dayNumber)
        w.key("offset"); w.int(t.offset)
        w.key("last_event_ns"); w.int(t.lastEventNanoseconds)
        w.key("stacks"); w.array(t.stacks) { $0.string($1) }
        w.key("engagements"); w.array(t.engagements) { w, e in
            w.raw("["); w.int(e.time.nanosecondsSinceEpoch); w.raw(","); w.int(e.time.utcOffsetSeconds)
            w.raw(","); w.int(e.stack); w.raw(","); w.string(e.widget); w.raw("]")
        }
        w.key("top_changes"); w.array(t.topChanges) { w, changes in
            w.array(changes) { w, c in
                w.raw("["); w.int(c.nanoseconds); w.raw(","); w.int(c.stack); w.raw(","); w.string(c.widget); w.raw("]")
            }
        }
        w.raw("}}")
    }

    static func readTimeline(_ s: inout PartialScanner, policies: Int) throws(EvaluationError) -> TimelineCandidate? {
        try s.expect("{")
        try s.key("timeline", first: true)
        if try s.takeNull() {
            try s.expect("}")
            try s.end()
            return nil
        }
        try s.expect("{")
        try s.key("user", first: true); let user = try s.string()
        try s.key("targets"); let targets = try s.int()
        try s.key("day"); let day = try s.int()
        try s.key("offset")
        guard let offset = Int32(exactly: try s.int()) else { throw s.failure("UTC offset out of range") }
        try s.key("last_event_ns"); let last = Int64(try s.int())
        try s.key("stacks"); let stacks = try s.strings()
        var engagements: [EngagementRecord] = []
        try s.key("engagements")
        try s.array { (s: inout PartialScanner) throws(EvaluationError) in
            try s.expect("[")
            let ns = try s.int(); try s.expect(",")
            let offset = try s.int(); try s.expect(",")
            let stack = try s.int(); try s.expect(",")
            let widget = try s.string(); try s.expect("]")
            guard stack >= 0, stack < stacks.count else { throw s.failure("engagement of an unknown stack slot \(stack)") }
            guard let o = Int32(exactly: offset) else { throw s.failure("UTC offset out of range") }
            engagements.append(EngagementRecord(time: EventTime(nanosecondsSinceEpoch: Int64(ns), utcOffsetSeconds: o),
                                                stack: stack, widget: widget))
        }
        var topChanges: [[TopChange]] = []
        try s.key("top_changes")
        try s.array { (s: inout PartialScanner) throws(EvaluationError) in
            var changes: [TopChange] = []
            try s.array { (s: inout PartialScanner) throws(EvaluationError) in
                try s.expect("[")
                let ns = try s.int(); try s.expect(",")
                let stack = try s.int(); try s.expect(",")
                let widget = try s.string(); try s.expect("]")
                guard stack >= 0, stack < stacks.count else { throw s.failure("top change of an unknown stack slot \(stack)") }
                changes.append(TopChange(nanoseconds: Int64(ns), stack: stack, widget: widget))
            }
            topChanges.append(changes)
        }
        try s.expect("}")
        try s.expect("}")
        try s.end()
        guard topChanges.count == policies else {
            throw s.failure("\(topChanges.count) policies' top changes where the header names \(policies)")
        }
        return TimelineCandidate(user: user, targets: targets, dayNumber: day, offset: offset, lastEventNanoseconds: last,
                                 stacks: stacks, engagements: engagements, topChanges: topChanges)
    }
}
