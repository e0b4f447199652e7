import SmartStack

extension Evaluator {
    /// Turns per-user results into the report: the scored user-days go to the metrics and the
    /// bootstrap, each policy's logged impressions to the off-policy estimators, and the best
    /// user-day to the timeline. It needs nothing but the results (sorted by user id), so
    /// `merge` calls it with the results of several shards.
    func assemble(name: String, sources: [String], scan: UserEventReader.Scan, results: [UserReplayResult],
                  policyNames: [String], referenceIndex: Int?) throws -> EvaluationReport {
        guard scan.totalEvents > 0 else { throw EvaluationError("the dataset has no events") }
        let evaluated = results.filter { $0.skipReason == nil }
        let skipped = results.compactMap { r in r.skipReason.map { SkippedUser(user: r.user, reason: $0) } }
        guard !evaluated.isEmpty else {
            throw EvaluationError("the dataset has no stacks: no user has a stack_config event, so there is no rotation to evaluate")
        }
        let decisionPoints = evaluated.reduce(0) { $0 + $1.decisionPoints }
        guard decisionPoints > 0 else {
            throw EvaluationError("the dataset has no decision points: no screen_on and no engagement of a stacked widget (a launch of a widget's app or a widget tap) after a stack_config")
        }
        let scored = ScoredResults(evaluated, policies: policyNames.count)
        guard !scored.table.dayUser.isEmpty else {
            throw EvaluationError("no decision point falls after the warm-up (\(options.warmupDays) days from each user's first event); lower --warmup-days")
        }
        let boot = Bootstrap.run(scored.table, resamples: options.bootstrapResamples, seed: options.seed,
                                 threads: max(1, options.threads), reference: referenceIndex)
        let timeline = TimelineDay(evaluated)
        let reports = policyNames.indices.map { p in
            let metrics = scored.table.values(policy: p)
            var paired: PairedComparison?
            if let ref = referenceIndex, ref != p {
                paired = PairedComparison(reference: policyNames[ref], difference: metrics - scored.table.values(policy: ref),
                                          ci: boot.pairedIntervals[p] ?? MetricIntervals())
            }
            let impressions = evaluated.map {
                UserImpressions(stacks: $0.stacks, impressions: $0.impressions, actions: $0.perPolicy[p].impressionActions)
            }
            return PolicyReport(
                name: policyNames[p], metrics: metrics, ci: boot.intervals[p],
                byHour: scored.hours[p].enumerated().map { HourBreakdown(hour: $0.offset, tally: $0.element) },
                byUser: evaluated.indices.map {
                    UserBreakdown(user: evaluated[$0].user, metrics: scored.table.values(policy: p, indices: scored.userDays[$0]))
                },
                ope: OffPolicyIntegration.report(impressions: impressions, roundLimit: options.offPolicyRoundLimit,
                                                 resamples: options.bootstrapResamples, seed: options.seed),
                paired: paired, timeline: timeline?.intervals(policy: p) ?? [])
        }
        let dataset = DatasetSummary(
            name: name, sources: sources,
            events: results.reduce(0) { $0 + $1.events }, mergedRepeats: results.reduce(0) { $0 + $1.mergedRepeats },
            users: results.count,
            usersEvaluated: evaluated.count, usersSkipped: skipped, decisionPoints: decisionPoints,
            usersWithScreenOn: evaluated.filter { $0.rule == .screenOn }.count, userDays: scored.table.dayUser.count,
            first: scan.first?.rfc3339, last: scan.last?.rfc3339)
        let referenceName = referenceIndex.map { policyNames[$0] }
        return EvaluationReport(dataset: dataset, options: OptionsSummary(options, reference: referenceName),
                                policies: reports, timeline: timeline?.sample)
    }
}

/// The evaluated users' tallies laid out for the metrics: every scored user-day of every policy
/// (users in sorted order), and each policy's hours summed over users.
private struct ScoredResults {
    var table: ScoredDays
    /// The units (indices into `table`) of each user's days.
    var userDays: [[Int]] = []
    /// Per policy, the tally of each local hour of day over all users.
    var hours: [[DecisionTally]]

    init(_ evaluated: [UserReplayResult], policies: Int) {
        table = ScoredDays(policies: policies)
        hours = Array(repeating: Array(repeating: DecisionTally(), count: 24), count: policies)
        var keyOffset = 0
        for (u, r) in evaluated.enumerated() {
            table.users.append(r.user)
            table.userKeyOffsets.append(keyOffset)
            table.userUniverses.append(r.universe)
            keyOffset += r.universe
            userDays.append(Array(table.dayUser.count..<table.dayUser.count + r.dayNumbers.count))
            table.dayUser.append(contentsOf: repeatElement(u, count: r.dayNumbers.count))
            for p in 0..<policies {
                table.summaries[p].append(contentsOf: r.perPolicy[p].days)
                for h in 0..<24 { hours[p][h] += r.perPolicy[p].byHour[h] }
            }
        }
    }
}

/// The user-day of the rotation timeline chart: the scored user-day with the most decisions
/// with a target (ties: the earlier user, then the earlier day), with what was engaged that day.
private struct TimelineDay {
    let user: UserReplayResult
    let sample: TimelineSample
    /// The day's start and end (UTC ns) and its UTC offset.
    let start: Int64, end: Int64, offset: Int32

    /// The timeline day of `evaluated`, `nil` when no user has a scored day.
    init?(_ evaluated: [UserReplayResult]) {
        var chosen: (user: Int, day: Int)?
        for (u, r) in evaluated.enumerated() {
            guard let d = r.bestDay else { continue }
            if let c = chosen, evaluated[c.user].dayTargets[c.day] >= r.dayTargets[d] { continue }
            chosen = (u, d)
        }
        guard let (u, d) = chosen else { return nil }
        let r = evaluated[u]
        let offset = r.dayOffsets[d]
        let (start, end) = UserReplay.dayBounds(day: r.dayNumbers[d], offset: offset)
        let startTime = EventTime(nanosecondsSinceEpoch: start, utcOffsetSeconds: offset)
        (user, self.start, self.end, self.offset) = (r, start, end, offset)
        sample = TimelineSample(
            user: r.user, date: String(startTime.rfc3339.prefix(10)), start: startTime.rfc3339,
            end: EventTime(nanosecondsSinceEpoch: end, utcOffsetSeconds: offset).rfc3339, stacks: r.stacks,
            engagements: r.engagements.map {
                TimelineEngagement(time: $0.time.rfc3339, minute: Double($0.time.nanosecondsSinceEpoch - start) / 60e9,
                                   stack: r.stacks[$0.stack], widget: $0.widget)
            })
    }

    /// Policy `p`'s tops of each stack over the day: its top changes clipped to the day (and to
    /// the user's last event), per stack.
    func intervals(policy p: Int) -> [TimelineInterval] {
        let changes = user.perPolicy[p].topChanges
        let stop = min(end, max(start, user.lastEventNanoseconds))
        var out: [TimelineInterval] = []
        for slot in user.stacks.indices {
            let mine = changes.filter { $0.stack == slot }
            for (k, c) in mine.enumerated() {
                let s = max(start, c.nanoseconds)
                let e = min(stop, k + 1 < mine.count ? mine[k + 1].nanoseconds : stop)
                guard e > s else { continue }
                out.append(TimelineInterval(
                    stack: user.stacks[slot], widget: c.widget,
                    start: EventTime(nanosecondsSinceEpoch: s, utcOffsetSeconds: offset).rfc3339,
                    end: EventTime(nanosecondsSinceEpoch: e, utcOffsetSeconds: offset).rfc3339,
                    startMinute: Double(s - start) / 60e9, endMinute: Double(e - start) / 60e9))
            }
        }
        return out
    }
}

extension OptionsSummary {
    /// The summary of `options`, as every report prints it.
    public init(_ options: ReplayOptions, reference: String?) {
        self.init(windowMinutes: options.window / 60, mergeRepeats: options.mergeRepeats, warmupDays: options.warmupDays,
                  seed: options.seed, bootstrapResamples: options.bootstrapResamples,
                  confidenceLevel: Bootstrap.confidenceLevel, flickerWindowMinutes: options.flickerWindow / 60,
                  reference: reference,
                  decisionPointRule: "each screen_on for users whose data has any; otherwise each engagement (launch of a stacked widget's app or tap on a widget)",
                  rotation: options.rotation.description)
    }
}
