import Foundation
import SmartStack
import SmartStackDatasets

/// What one shard's evaluation contributes to a report: every user's sufficient statistics
/// (per user-day tallies of every policy, per-hour tallies, logged impressions and each
/// policy's action at them, the timeline day) plus the options, policies and dataset identity.
/// Partials of disjoint users merge into the report one `evaluate` over all of them would give,
/// byte for byte (`Evaluator.merge`). File format: `Datasets/PARTIAL-FORMAT.md`.
///
/// ```swift
/// let partial = try Evaluator(options: options).partial(.files(["shard-0.jsonl"]), policies: factories)
/// try partial.write(to: "shard-0.partial")
/// let report = try Evaluator.merge([try PartialEvaluation(contentsOf: "shard-0.partial")])
/// ```
public struct PartialEvaluation: Sendable {
    /// The format's name and version, first in every file.
    public static let format = "smartstack-partial"
    public static let version = 1

    /// The options that shape figures (threads and spill budget do not).
    struct Options: Sendable, Hashable {
        var window: Double
        var mergeRepeats: Bool
        var warmupDays: Int
        var seed: UInt64
        var rotation: String
        var bootstrapResamples: Int
        var flickerWindow: Double
        var offPolicyEstimates: Bool
        var offPolicyRoundLimit: Int
        var reference: String?

        init(_ o: ReplayOptions, reference: String?) {
            window = o.window; mergeRepeats = o.mergeRepeats; warmupDays = o.warmupDays; seed = o.seed
            rotation = o.rotation.description; bootstrapResamples = o.bootstrapResamples
            flickerWindow = o.flickerWindow; offPolicyEstimates = o.offPolicyEstimates
            offPolicyRoundLimit = o.offPolicyRoundLimit; self.reference = reference
        }

        init(window: Double, mergeRepeats: Bool, warmupDays: Int, seed: UInt64, rotation: String, bootstrapResamples: Int,
             flickerWindow: Double, offPolicyEstimates: Bool, offPolicyRoundLimit: Int, reference: String?) {
            self.window = window; self.mergeRepeats = mergeRepeats; self.warmupDays = warmupDays; self.seed = seed
            self.rotation = rotation; self.bootstrapResamples = bootstrapResamples; self.flickerWindow = flickerWindow
            self.offPolicyEstimates = offPolicyEstimates; self.offPolicyRoundLimit = offPolicyRoundLimit
            self.reference = reference
        }

        /// The replay options they stand for (`threads` for the merge's bootstrap).
        func replayOptions(threads: Int) throws(EvaluationError) -> ReplayOptions {
            var o = ReplayOptions()
            o.window = window; o.mergeRepeats = mergeRepeats; o.warmupDays = warmupDays; o.seed = seed
            do { o.rotation = try RotationParameters(parsing: rotation) } catch {
                throw EvaluationError("partial options: rotation '\(rotation)' does not parse: \(error)")
            }
            o.bootstrapResamples = bootstrapResamples; o.flickerWindow = flickerWindow
            o.offPolicyEstimates = offPolicyEstimates; o.offPolicyRoundLimit = offPolicyRoundLimit
            o.threads = threads
            return o
        }
    }

    /// The dataset's short name and sources, as this shard's own report would print them.
    public internal(set) var name: String
    public internal(set) var sources: [String]
    var options: Options
    /// Policy names (with parameters), in evaluation order.
    public internal(set) var policies: [String]
    /// Events read and their time range (all events, users skipped or not).
    var events: Int
    var first: EventTime?
    var last: EventTime?
    /// Every user's replay result, sorted by user id.
    var users: [UserReplayResult]

    /// Users in this partial.
    public var userCount: Int { users.count }
}

extension Evaluator {
    /// Replays `source` like `evaluate` and returns its sufficient statistics instead of a
    /// report, for `merge` with the partials of other shards. Nothing is required of the data
    /// as a whole here (a shard may hold only skipped users): `merge` checks that.
    ///
    /// - Throws: `EvaluationError` for unreadable data or a failing policy.
    /// - Complexity: O(events × policies), divided among threads.
    public func partial(_ source: EvaluationSource, policies: [PolicyFactory], reference: String? = nil,
                        progress: (@Sendable (ReplayProgress) -> Void)? = nil) throws -> PartialEvaluation {
        guard !policies.isEmpty else { throw EvaluationError("no policy to evaluate") }
        if let reference, !policies.contains(where: { $0.name == reference }) {
            throw EvaluationError("reference policy '\(reference)' is not among the evaluated policies (\(policies.map(\.name).joined(separator: ", ")))")
        }
        let counters = ProgressCounters()
        let reporter = progress.map { ProgressReporter(counters: counters, sink: $0) }
        reporter?.start()
        defer { reporter?.stop() }
        let replayed = try replayUsers(source, policies: policies, counters: counters)
        return PartialEvaluation(name: source.name, sources: source.descriptions,
                                 options: .init(options, reference: reference), policies: policies.map(\.name),
                                 events: replayed.scan.totalEvents, first: replayed.scan.first, last: replayed.scan.last,
                                 users: replayed.results)
    }

    /// The report of all the partials' users together: byte-identical to `evaluate` over the
    /// union of their data. `name` and `sources` replace the dataset's name and sources (by
    /// default the first partial's name and every partial's sources).
    ///
    /// - Throws: `EvaluationError` when the partials were made with different options or
    ///   policies, when a user is in two of them, or when the whole has nothing to evaluate.
    /// - Complexity: O(users log users + the bootstrap's resamples × policies × user-days).
    public static func merge(_ partials: [PartialEvaluation], labels: [String]? = nil, name: String? = nil,
                             sources: [String]? = nil, threads: Int = ReplayOptions.availableCores) throws -> EvaluationReport {
        guard let head = partials.first else { throw EvaluationError("no partial to merge") }
        let labels = labels ?? partials.indices.map { "partial \($0 + 1)" }
        for (k, p) in partials.enumerated().dropFirst() {
            if p.policies != head.policies {
                throw EvaluationError("cannot merge \(labels[k]) with \(labels[0]): evaluated with different policies (\(p.policies.joined(separator: ",")) vs \(head.policies.joined(separator: ",")))")
            }
            if p.options != head.options {
                throw EvaluationError("cannot merge \(labels[k]) with \(labels[0]): evaluated with different options (\(describe(p.options, against: head.options)))")
            }
        }
        var owner: [String: Int] = [:]
        var results: [UserReplayResult] = []
        results.reserveCapacity(partials.reduce(0) { $0 + $1.users.count })
        var scan = UserEventReader.Scan()
        for (k, p) in partials.enumerated() {
            for u in p.users {
                if let other = owner.updateValue(k, forKey: u.user) {
                    throw EvaluationError("user '\(u.user)' is in both \(labels[other]) and \(labels[k]): it would be counted twice (shard the data by user, e.g. with 'smartstack shard')")
                }
            }
            results += p.users
            scan.totalEvents += p.events
            if let f = p.first, scan.first.map({ f < $0 }) ?? true { scan.first = f }
            if let l = p.last, scan.last.map({ l > $0 }) ?? true { scan.last = l }
        }
        results.sort { $0.user < $1.user }
        let options = try head.options.replayOptions(threads: max(1, threads))
        let reference = head.options.reference.flatMap { r in head.policies.firstIndex(of: r) }
        return try Evaluator(options: options).assemble(
            name: name ?? head.name, sources: sources ?? partials.flatMap(\.sources), scan: scan, results: results,
            policyNames: head.policies, referenceIndex: reference)
    }

    private static func describe(_ a: PartialEvaluation.Options, against b: PartialEvaluation.Options) -> String {
        var d: [String] = []
        if a.window != b.window { d.append("window \(a.window) s vs \(b.window) s") }
        if a.mergeRepeats != b.mergeRepeats { d.append("merge repeats \(a.mergeRepeats) vs \(b.mergeRepeats)") }
        if a.warmupDays != b.warmupDays { d.append("warm-up \(a.warmupDays) vs \(b.warmupDays) days") }
        if a.seed != b.seed { d.append("seed \(a.seed) vs \(b.seed)") }
        if a.rotation != b.rotation { d.append("rotation \(a.rotation) vs \(b.rotation)") }
        if a.bootstrapResamples != b.bootstrapResamples { d.append("bootstrap \(a.bootstrapResamples) vs \(b.bootstrapResamples)") }
        if a.flickerWindow != b.flickerWindow { d.append("flicker window \(a.flickerWindow) vs \(b.flickerWindow) s") }
        if a.offPolicyEstimates != b.offPolicyEstimates { d.append("off-policy estimates \(a.offPolicyEstimates) vs \(b.offPolicyEstimates)") }
        if a.offPolicyRoundLimit != b.offPolicyRoundLimit { d.append("off-policy round limit \(a.offPolicyRoundLimit) vs \(b.offPolicyRoundLimit)") }
        if a.reference != b.reference { d.append("reference \(a.reference ?? "none") vs \(b.reference ?? "none")") }
        return d.joined(separator: ", ")
    }
}
