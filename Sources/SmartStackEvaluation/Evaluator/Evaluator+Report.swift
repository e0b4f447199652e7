import SmartStack
import SmartStackDatasets

extension Evaluator {
    /// The report of replay results sorted by user id (`evaluate`'s last step): each result
    /// goes to a `ReportBuilder` and is then let go.
    func assemble(name: String, sources: [String], scan: UserEventReader.Scan, results: consuming [UserReplayResult],
                  policyNames: [String], referenceIndex: Int?, truth: TruthFile?) throws -> EvaluationReport {
        let impressions = results.reduce(0) { $0 + ($1.skipReason == nil ? $1.impressions.count : 0) }
        var builder = ReportBuilder(options: options, policyNames: policyNames, referenceIndex: referenceIndex,
                                    impressions: impressions, truth: truth)
        for i in results.indices {
            let r = results[i]
            results[i] = UserReplayResult(user: r.user)
            try builder.add(r)
            if r.skipReason == nil, let candidate = TimelineCandidate(r) { builder.offer(candidate) }
        }
        return try builder.report(name: name, sources: sources, events: scan.totalEvents, first: scan.first, last: scan.last)
    }
}

/// The truth file of an evaluation as reports and partials identify it.
struct TruthFile: Sendable, Hashable {
    var file: PolicyInputFile
    /// Lines (entries) in the file.
    var lines: Int
    /// The keys of its lines that the format does not define (ignored; the report warns).
    var ignoredFields: [IgnoredTruthField] = []
}

extension TruthFile {
    /// The identity and counts of `truth`'s file.
    init(_ truth: EvaluationTruth) {
        self.init(file: truth.file, lines: truth.lines, ignoredFields: truth.truth.ignoredFields)
    }
}

/// Builds a report from users' replay results given one at a time in increasing order of user
/// id, keeping only what the report needs: the scored user-days laid out flat for the bootstrap
/// (`ScoredDays`), running totals per local hour, each user's breakdown, the off-policy sample
/// and the best timeline day so far. `evaluate` feeds it its results, `merge` the users of all
/// partials as it streams them, so both give the same report, byte for byte.
struct ReportBuilder {
    private let options: ReplayOptions
    private let policyNames: [String]
    private let referenceIndex: Int?
    private var table: ScoredDays
    /// Per policy, the tally of each local hour of day over the users given so far.
    private var hours: [[DecisionTally]]
    private var byUser: [[UserBreakdown]]
    private var offPolicy: OffPolicyIntegration
    private var timeline: TimelineCandidate?
    private var lastUser: String?
    private var users = 0, evaluated = 0, events = 0, mergedRepeats = 0, decisionPoints = 0, screenOnUsers = 0
    private var skipped: [SkippedUser] = []
    private let truth: TruthFile?
    private var truthMatches = TruthMatches()
    /// Impressions per logging policy name, and the order names were first met.
    private var loggers: [String: Int] = [:]
    private var loggerOrder: [String] = []
    /// With `byDay`: per policy, the tally of each day since the stacks' configuration over the
    /// users given so far, and the users with a decision each day.
    private var elapsed: [[DecisionTally]]
    private var elapsedUsers: [Int] = []

    /// A builder for `policyNames`; `impressions` is the number of logged impressions of all
    /// evaluated users to come (the off-policy sample is drawn in one pass); `truth` the truth
    /// file the users were replayed with, if any.
    init(options: ReplayOptions, policyNames: [String], referenceIndex: Int?, impressions: Int, truth: TruthFile? = nil) {
        self.options = options
        self.policyNames = policyNames
        self.referenceIndex = referenceIndex
        self.truth = truth
        table = ScoredDays(policies: policyNames.count)
        hours = Array(repeating: Array(repeating: DecisionTally(), count: 24), count: policyNames.count)
        byUser = Array(repeating: [], count: policyNames.count)
        elapsed = Array(repeating: [], count: options.byDay ? policyNames.count : 0)
        offPolicy = OffPolicyIntegration(total: impressions, roundLimit: options.offPolicyRoundLimit, seed: options.seed,
                                         policies: policyNames.count)
    }

    /// Adds the next user (a larger id than the last one).
    ///
    /// - Throws: `EvaluationError` when a count is out of range or the policies' tallies differ
    ///   in number.
    /// - Complexity: O(size of the result).
    mutating func add(_ r: UserReplayResult) throws(EvaluationError) {
        precondition(lastUser.map { $0 < r.user } ?? true, "users must come in increasing order")
        lastUser = r.user
        users += 1
        events += r.events
        mergedRepeats += r.mergedRepeats
        for l in r.loggingPolicies {
            if loggers[l.name] == nil { loggerOrder.append(l.name) }
            loggers[l.name, default: 0] += l.impressions
        }
        guard r.skipReason == nil else {
            skipped.append(SkippedUser(user: r.user, reason: r.skipReason ?? ""))
            // A user without stacks has no decision: its truth lines name stacks it never had.
            truthMatches.lines += r.truthMatches.lines
            truthMatches.unknownStackLines += r.truthMatches.lines
            return
        }
        truthMatches += r.truthMatches
        evaluated += 1
        decisionPoints += r.decisionPoints
        if r.rule == .screenOn { screenOnUsers += 1 }
        try table.appendUser(universe: r.universe, days: r.perPolicy.map(\.days), name: r.user)
        for p in policyNames.indices {
            for h in 0..<24 { hours[p][h] += r.perPolicy[p].byHour[h] }
            byUser[p].append(UserBreakdown(user: r.user, metrics: MetricValues(days: r.perPolicy[p].days, universe: r.universe)))
        }
        offPolicy.add(stacks: r.stacks, impressions: r.impressions, actions: r.perPolicy.map(\.impressionActions))
        if options.byDay { addElapsedDays(r) }
    }

    /// Adds a user's by-day tallies (in user order, so `merge` sums them as `evaluate` does).
    private mutating func addElapsedDays(_ r: UserReplayResult) {
        for p in policyNames.indices where p < r.perPolicy.count {
            for (d, t) in r.perPolicy[p].elapsedDays.enumerated() { elapsed[p][growing: d] += t }
        }
        for (d, t) in (r.perPolicy.first?.elapsedDays ?? []).enumerated() where t.decisions > 0 {
            if d >= elapsedUsers.count { elapsedUsers.append(contentsOf: repeatElement(0, count: d + 1 - elapsedUsers.count)) }
            elapsedUsers[d] += 1
        }
    }

    /// Offers a day for the timeline chart: kept when it has more decisions with a target than
    /// the day kept so far, or as many and an earlier user.
    mutating func offer(_ candidate: TimelineCandidate) {
        if let t = timeline, !candidate.isPreferred(over: t) { return }
        timeline = candidate
    }

    /// The report of every user given. `events`, `first` and `last` cover all events read.
    ///
    /// - Throws: `EvaluationError` when there is nothing to evaluate.
    /// - Complexity: the bootstrap's O(resamples × policies × user-days) / threads, plus the
    ///   off-policy estimators'.
    consuming func report(name: String, sources: [String], events totalEvents: Int, first: EventTime?, last: EventTime?)
        throws(EvaluationError) -> EvaluationReport {
        // Which files were read, for the errors that blame the data as a whole.
        let read = sources.isEmpty ? "" : " (read: " + sources.prefix(3).joined(separator: ", ")
            + (sources.count > 3 ? ", and \(sources.count - 3) more" : "") + ")"
        guard totalEvents > 0 else { throw EvaluationError("the dataset has no events" + read) }
        guard evaluated > 0 else {
            throw EvaluationError("the dataset has no stacks: no user has a stack_config event, so there is no rotation to evaluate" + read)
        }
        guard decisionPoints > 0 else {
            throw EvaluationError("the dataset has no decision points: no screen_on and no engagement of a stacked widget (a launch of a widget's app or a widget tap) after a stack_config" + read)
        }
        guard table.unitCount > 0 else {
            throw EvaluationError("no decision point falls after the warm-up (\(options.warmupDays) days from each user's first event); lower --warmup-days")
        }
        guard offPolicy.impressionsGiven == offPolicy.total else {
            throw EvaluationError("the partials announce \(offPolicy.total) logged impressions but hold \(offPolicy.impressionsGiven)")
        }
        let truthSummary = try summariseTruth()
        table.finish()
        offPolicy.finish()
        let threads = max(1, options.threads)
        let boot = Bootstrap.run(table, resamples: options.bootstrapResamples, seed: options.seed,
                                 threads: threads, reference: referenceIndex)
        let day = timeline.map(TimelineDay.init)
        let reference = referenceIndex.map { table.values(policy: $0) }
        let reports = policyNames.indices.map { p in
            let metrics = table.values(policy: p)
            var paired: PairedComparison?
            if let ref = referenceIndex, let reference, ref != p {
                paired = PairedComparison(reference: policyNames[ref], difference: metrics - reference,
                                          ci: boot.pairedIntervals[p] ?? MetricIntervals())
            }
            return PolicyReport(
                name: policyNames[p], metrics: metrics, ci: boot.intervals[p],
                byHour: hours[p].enumerated().map { HourBreakdown(hour: $0.offset, tally: $0.element) },
                byUser: byUser[p],
                ope: offPolicy.report(policy: p, resamples: options.bootstrapResamples, seed: options.seed, threads: threads),
                paired: paired, timeline: day?.intervals(policy: p) ?? [])
        }
        let dataset = DatasetSummary(
            name: name, sources: sources, events: events, mergedRepeats: mergedRepeats, users: users,
            usersEvaluated: evaluated, usersSkipped: skipped, decisionPoints: decisionPoints,
            usersWithScreenOn: screenOnUsers, userDays: table.unitCount, first: first?.rfc3339, last: last?.rfc3339)
        let referenceName = referenceIndex.map { policyNames[$0] }
        let measure: EvaluationMeasure = truthSummary.map { $0.decisionsWithTruth > 0 } == true ? .counterfactual
            : reports.contains { $0.ope?.estimates?[.doublyRobust()]?.value != nil } ? .offPolicy : .logged
        let verdict = VerdictBuilder(measure: measure, policies: reports, bootstrap: boot, offPolicy: offPolicy,
                                     resamples: options.bootstrapResamples, seed: options.seed).verdict
        let loggingPolicies = loggerOrder.map { LoggingPolicy(name: $0, impressions: loggers[$0] ?? 0) }
            .enumerated().sorted { $0.element.impressions != $1.element.impressions ? $0.element.impressions > $1.element.impressions : $0.offset < $1.offset }
            .map(\.element)
        let byDay = options.byDay ? LearningCurve(policies: policyNames, tallies: elapsed, users: elapsedUsers,
                                                  counterfactual: measure == .counterfactual) : nil
        return EvaluationReport(dataset: dataset, options: OptionsSummary(options, reference: referenceName),
                                policies: reports, timeline: day?.sample, measure: measure, verdict: verdict,
                                truth: truthSummary, loggingPolicies: loggingPolicies, warnings: warnings(truthSummary),
                                byDay: byDay)
    }

    /// The truth summary, `nil` without a truth file.
    ///
    /// - Throws: `EvaluationError` when the truth matches none of the scored decisions (the
    ///   truth of another dataset, or of other users).
    private func summariseTruth() throws(EvaluationError) -> TruthSummary? {
        guard let truth else { return nil }
        let m = truthMatches
        let measured = m.atInstant + m.earlier
        var lift: Double?
        if measured > 0, let first = policyNames.indices.first {
            var total = DecisionTally()
            for h in hours[first] { total += h }
            lift = m.withIntent > 0 ? total.displayLift : nil
        }
        let summary = TruthSummary(
            file: truth.file.path, digest: truth.file.digest, lines: truth.lines, decisionsWithTruth: measured,
            matchedAtInstant: m.atInstant, matchedEarlier: m.earlier, leftOutWithoutLine: m.missing,
            leftOutUnknownWidget: m.unknownWidget, linesOfUnknownUsers: max(0, truth.lines - m.lines),
            linesOfUnknownStacks: m.unknownStackLines, displayLift: lift)
        guard measured > 0 else {
            var why = "none of its \(truth.lines) lines matches one of the \(m.missing + m.unknownWidget) scored decisions"
            if summary.linesOfUnknownUsers == truth.lines {
                why += " (it names none of the data's users)"
            } else if m.unknownWidget > 0, let example = m.firstUnknownWidget {
                why += " (\(m.unknownWidget) lines name widgets their stack does not hold, e.g. \(example))"
            } else {
                why += " (no line is at a decision point: the truth's times are the screen_on instants it was written for)"
            }
            throw EvaluationError("the truth file '\(truth.file.path)' does not describe this dataset: \(why)")
        }
        return summary
    }

    /// What the reader should know about how the truth met the data.
    private func warnings(_ t: TruthSummary?) -> [String] {
        guard let t else { return [] }
        var out: [String] = []
        let scored = t.decisionsWithTruth + t.leftOutWithoutLine + t.leftOutUnknownWidget
        if t.leftOutWithoutLine > 0 {
            out.append("\(t.leftOutWithoutLine) of \(scored) scored decisions have no line in the truth file '\(t.file)' and are left out of the counterfactual measure")
        }
        if t.leftOutUnknownWidget > 0 {
            var w = "\(t.leftOutUnknownWidget) scored decisions are left out of the counterfactual measure: their truth line names a widget the stack did not hold"
            if let e = truthMatches.firstUnknownWidget { w += " (first: \(e))" }
            out.append(w)
        }
        if t.matchedEarlier > 0 {
            out.append("\(t.matchedEarlier) decisions of users without screen_on were matched to the truth line of the session their engagement belongs to (the latest line within the attribution window before it)")
        }
        if t.linesOfUnknownUsers > 0 {
            out.append("\(t.linesOfUnknownUsers) lines of the truth file name users not in the data and were skipped")
        }
        if t.linesOfUnknownStacks > 0 {
            out.append("\(t.linesOfUnknownStacks) lines of the truth file name stacks their user never configured and were skipped")
        }
        let withIntent = truthMatches.withIntent
        if withIntent > 0, withIntent < t.decisionsWithTruth {
            out.append("\(t.decisionsWithTruth - withIntent) of \(t.decisionsWithTruth) measured decisions have a truth line without intent: "
                + "their distribution is measured instead, which includes the display lift of what the logging policy showed "
                + "and so favours policies that pick as it did")
        }
        for field in truth?.ignoredFields ?? [] {
            let lines = field.lines == 1 ? "1 line (line \(field.firstLine))" : "\(field.lines) lines (first: line \(field.firstLine))"
            out.append("the truth file '\(t.file)' has a field '\(field.name)' on \(lines) that the format does not define; "
                + "it was ignored (a misspelt optional field reads as absent: a line without intent is measured by its distribution)")
        }
        return out
    }
}

/// A user's busiest scored day (the most decisions with a target, the earliest on ties) with
/// what the timeline chart draws of it: the report shows the best of all users'.
struct TimelineCandidate: Sendable, Hashable {
    var user: String
    /// Decisions with a target that day.
    var targets: Int
    /// The local day number and the UTC offset of its first decision point.
    var dayNumber: Int
    var offset: Int32
    /// The user's last event (the chart stops there).
    var lastEventNanoseconds: Int64
    /// Stack ids by slot.
    var stacks: [String]
    /// Engagements of stacked widgets that day.
    var engagements: [EngagementRecord]
    /// Per policy, its top changes relevant to that day.
    var topChanges: [[TopChange]]

    /// The busiest day of `r`, `nil` when it has no scored day.
    init?(_ r: UserReplayResult) {
        guard let d = r.bestDay else { return nil }
        self.init(user: r.user, targets: r.dayTargets[d], dayNumber: r.dayNumbers[d], offset: r.dayOffsets[d],
                  lastEventNanoseconds: r.lastEventNanoseconds, stacks: r.stacks, engagements: r.engagements,
                  topChanges: r.perPolicy.map(\.topChanges))
    }

    /// Whether the chart shows this day rather than `other`: more decisions with a target, or
    /// as many and an earlier user (the first such user in user order).
    func isPreferred(over other: TimelineCandidate) -> Bool {
        targets != other.targets ? targets > other.targets : user < other.user
    }

    init(user: String, targets: Int, dayNumber: Int, offset: Int32, lastEventNanoseconds: Int64, stacks: [String],
         engagements: [EngagementRecord], topChanges: [[TopChange]]) {
        self.user = user; self.targets = targets; self.dayNumber = dayNumber; self.offset = offset
        self.lastEventNanoseconds = lastEventNanoseconds; self.stacks = stacks; self.engagements = engagements
        self.topChanges = topChanges
    }
}

/// The user-day of the rotation timeline chart with what was engaged that day.
private struct TimelineDay {
    let day: TimelineCandidate
    let sample: TimelineSample
    /// The day's start and end (UTC ns) and its UTC offset.
    let start: Int64, end: Int64, offset: Int32

    init(_ day: TimelineCandidate) {
        let offset = day.offset
        let (start, end) = UserReplay.dayBounds(day: day.dayNumber, offset: offset)
        let startTime = EventTime(nanosecondsSinceEpoch: start, utcOffsetSeconds: offset)
        (self.day, self.start, self.end, self.offset) = (day, start, end, offset)
        sample = TimelineSample(
            user: day.user, date: String(startTime.rfc3339.prefix(10)), start: startTime.rfc3339,
            end: EventTime(nanosecondsSinceEpoch: end, utcOffsetSeconds: offset).rfc3339, stacks: day.stacks,
            engagements: day.engagements.map {
                TimelineEngagement(time: $0.time.rfc3339, minute: Double($0.time.nanosecondsSinceEpoch - start) / 60e9,
                                   stack: day.stacks[$0.stack], widget: $0.widget)
            })
    }

    /// Policy `p`'s tops of each stack over the day: its top changes clipped to the day (and to
    /// the user's last event), per stack.
    func intervals(policy p: Int) -> [TimelineInterval] {
        let changes = day.topChanges[p]
        let stop = min(end, max(start, day.lastEventNanoseconds))
        var out: [TimelineInterval] = []
        for slot in day.stacks.indices {
            let mine = changes.filter { $0.stack == slot }
            for (k, c) in mine.enumerated() {
                let s = max(start, c.nanoseconds)
                let e = min(stop, k + 1 < mine.count ? mine[k + 1].nanoseconds : stop)
                guard e > s else { continue }
                out.append(TimelineInterval(
                    stack: day.stacks[slot], widget: c.widget,
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
