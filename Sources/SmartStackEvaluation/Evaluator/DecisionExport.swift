import Foundation
import SmartStack

/// One decision of the replay for one stack: what a policy knew and what the person engaged.
///
/// The decision points, their scoring (after warm-up) and their targets are the evaluator's own
/// (`Evaluator`): the export runs the same replay code and observes it.
public struct DecisionRecord: Sendable, Hashable {
    /// Whose decision.
    public var user: String
    /// The decision instant (the policy saw only events strictly before it).
    public var time: EventTime
    /// The stack decided.
    public var stack: String
    /// The stack's configured widgets, in configured order.
    public var candidates: [String]
    /// Per candidate, whether it may be shown (no active relevance hint `<= 0`).
    public var eligible: [Bool]
    /// Per candidate, its `FeatureVector.values` (names in `FeatureVector.names`).
    public var features: [[Double]]
    /// The widgets engaged within the window (several when widgets share the engaged app), or
    /// `nil` when the decision has no target.
    public var target: [String]?
    /// Whether the decision is scored (after the warm-up).
    public var isScored: Bool
    /// The exported policy's widget on top after the rotation layer (what the evaluator scores).
    public var pick: String?
    /// The probability with which the policy put `pick` on top (1 unless it explores): with
    /// `pick` it is the impression a host logs, `widget_impression`'s `propensity`.
    public var propensity: Double = 1
    /// The exported policy's display order (top first) that the evaluator ranks targets against.
    public var order: [String]
    /// The exported policy's raw scorer ranking (before hysteresis, dwell and caps), top first.
    public var ranking: [String]
    /// Per candidate, the exported policy's raw score.
    public var scores: [Double]

    /// The 1-based rank of the first target widget in `order` (`nil` without a target).
    public var targetRank: Int? {
        target.map { UserReplay.rank(of: $0, in: order) }
    }

    /// The record as one JSON object on one line (no trailing newline). Non-finite numbers are
    /// written as `null`.
    ///
    /// - Complexity: O(candidates · features).
    public var jsonLine: String {
        var s = "{\"user\":" + Self.quote(user) + ",\"time\":" + Self.quote(time.rfc3339)
        s += ",\"stack\":" + Self.quote(stack) + ",\"scored\":" + (isScored ? "true" : "false")
        s += ",\"candidates\":" + Self.list(candidates)
        s += ",\"eligible\":[" + eligible.map { $0 ? "true" : "false" }.joined(separator: ",") + "]"
        s += ",\"features\":[" + features.map { "[" + $0.map(Self.number).joined(separator: ",") + "]" }.joined(separator: ",") + "]"
        s += ",\"target\":" + (target.map(Self.list) ?? "null")
        s += ",\"pick\":" + (pick.map(Self.quote) ?? "null") + ",\"propensity\":" + Self.number(propensity)
        s += ",\"order\":" + Self.list(order) + ",\"ranking\":" + Self.list(ranking)
        s += ",\"scores\":[" + scores.map(Self.number).joined(separator: ",") + "]}"
        return s
    }

    static func number(_ v: Double) -> String { v.isFinite ? "\(v)" : "null" }
    static func list(_ items: [String]) -> String { "[" + items.map(quote).joined(separator: ",") + "]" }
    static func quote(_ text: String) -> String { JSONLWriter.string(text) }
}

/// Counts of an export, matching the evaluator's counts for the same options.
public struct DecisionExportSummary: Sendable, Hashable {
    /// Users read.
    public var users = 0
    /// Users skipped (no events or no stack), with the reason.
    public var skipped: [SkippedUser] = []
    /// Decisions exported (decision points × stacks, scored or not).
    public var decisions = 0
    /// Scored decisions (the evaluator's `decisions`).
    public var scoredDecisions = 0
    /// Scored decisions with a target (the evaluator's `decisions_with_target`).
    public var scoredWithTarget = 0
    /// Scored decisions with a target whose `pick` is a target (hit@1 = hits / scoredWithTarget).
    public var hits = 0
    /// With `DecisionExport.timesReplay`: seconds the policy alone took to replay every user's
    /// parsed events (record each event, decide at each decision point), as in `evaluate`.
    public var replaySeconds: Double?

    /// Creates an empty summary.
    public init() {}
}

/// Exports the evaluator's decision stream with SmartStack's features and one policy's choices.
///
/// ```swift
/// let export = DecisionExport(options: ReplayOptions())
/// let summary = try export.run(.files(["Datasets/commuter.jsonl"])) { print($0.jsonLine) }
/// ```
///
/// Users are replayed one after the other in the order the source holds them; within a user,
/// records come in time order (stacks in configuration order at each instant).
public struct DecisionExport: Sendable {
    /// The replay options (window, warm-up, repeat merging, seed) — the evaluator's.
    public var options: ReplayOptions
    /// The policy whose picks and rankings are exported (default: the engine's default).
    public var policy: PolicySpec
    /// The population prior handed to the policy, if any (it uses it when it takes one).
    public var prior: PopulationPrior?
    /// Whether to also time a plain replay of each user through the policy alone (no feature
    /// export), from events already parsed, into `DecisionExportSummary.replaySeconds`.
    public var timesReplay = false

    /// Creates an export.
    public init(options: ReplayOptions = ReplayOptions(), policy: PolicySpec = PolicySpec(name: PolicyRegistry.defaultPolicy)) {
        self.options = options
        self.policy = policy
    }

    /// Replays `source` and hands every decision to `emit`, in order.
    ///
    /// - Throws: `EvaluationError` for unreadable data or a policy failure, or what `emit` throws.
    /// - Complexity: O(events + decisions · widgets) per user, one user in memory at a time.
    public func run(_ source: EvaluationSource, emit: (DecisionRecord) throws -> Void) throws -> DecisionExportSummary {
        var summary = DecisionExportSummary()
        let replay = UserReplay(options: options)
        // Records are emitted as users are read, so the reader must never withdraw a user.
        var reader = UserEventReader(options: options, counters: ProgressCounters())
        reader.readsTwice = true
        let policy = self.policy, prior = self.prior
        let seed = options.seed
        _ = try reader.read(source) { _, user, events in
            summary.users += 1
            let engine: UserEngine
            do {
                engine = try UserEngine(user: user, policy: policy, rotation: options.rotation,
                                        seed: SeededGenerator.mix(seed, SeededGenerator.hash(user)), prior: prior)
            } catch {
                throw EvaluationError("cannot build policy '\(policy)': \(error)")
            }
            engine.explainsRankings = false
            let observer = DecisionObserver(user: user, engine: engine)
            var records: [DecisionRecord] = []
            let result = try replay.run(user: user, events: Evaluator.timeOrdered(events), policies: [observer],
                                        collectImpressions: false, closed: { stack, _, scored, target in
                guard var record = observer.pending.removeValue(forKey: stack) else { return }
                record.isScored = scored
                record.target = target
                records.append(record)
            })
            if let reason = result.skipReason { summary.skipped.append(SkippedUser(user: user, reason: reason)) }
            if timesReplay {
                let ordered = Evaluator.timeOrdered(events)
                let factory = PolicyFactory.engine(policy, rotation: options.rotation, prior: prior)
                let clock = ContinuousClock()
                let start = clock.now
                let plain = try factory.make(user, SeededGenerator.mix(seed, SeededGenerator.hash(user)))
                _ = try replay.run(user: user, events: ordered, policies: [plain], collectImpressions: false)
                let elapsed = clock.now - start
                summary.replaySeconds = (summary.replaySeconds ?? 0)
                    + Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
            for record in records {
                summary.decisions += 1
                if record.isScored {
                    summary.scoredDecisions += 1
                    if let target = record.target {
                        summary.scoredWithTarget += 1
                        if let pick = record.pick, target.contains(pick) { summary.hits += 1 }
                    }
                }
                try emit(record)
            }
        }
        return summary
    }
}

/// Hosts the exported policy in the replay and keeps each stack's open decision.
final class DecisionObserver: ReplayPolicy {
    let user: String
    let inner: EngineReplayPolicy
    var pending: [String: DecisionRecord] = [:]

    init(user: String, engine: UserEngine) {
        self.user = user
        self.inner = EngineReplayPolicy(engine: engine)
    }

    func record(_ event: Event) { inner.record(event) }

    func decide(stack: String, widgets: [WidgetConfig], at time: EventTime) throws -> ReplayDecision {
        let engine = inner.engine
        let vectors = try engine.featureVectors(stack: stack, at: time)
        let raw = try engine.ranking(stack: stack, at: time)
        let decision = try inner.decide(stack: stack, widgets: widgets, at: time)
        var scoreOf: [String: Double] = [:]
        for w in raw.widgets { scoreOf[w.widget] = w.score }
        pending[stack] = DecisionRecord(
            user: user, time: time, stack: stack, candidates: vectors.map(\.widget), eligible: vectors.map(\.isEligible),
            features: vectors.map(\.values), target: nil, isScored: false, pick: decision.top, order: decision.order,
            ranking: raw.widgets.map(\.widget), scores: vectors.map { scoreOf[$0.widget] ?? -Double.infinity })
        pending[stack]?.propensity = decision.propensity
        return decision
    }
}
