/// Saving and restoring a user's whole learned state.
extension UserEngine {
    /// Everything an engine learned, as saved by `snapshot()`.
    struct Snapshot: Codable {
        // 2: optional fields carry a presence byte; 3: pending screen-on stacks; 4: per-widget
        // signals as `WidgetSignals`, per-bin values as `WidgetBins` rows; 5: visits, sequence
        // contexts, wake clock, UTC-offset contexts, the mixture, AdaGrad, the early-rotation ledger;
        // 6: per-widget offsets of the learned scores; 7: sequence contexts over widgets' apps;
        // 8: the policy's `sequence_prior`; 9: apps' time-of-day profiles (`AppHours`); 10: which
        // app each app followed (`AppTransitions`); 12: the policy's `population` (the weight of a
        // host's population prior, which is not saved: it is an input, like the policy)
        static let currentVersion = 12
        var version = Snapshot.currentVersion
        var user: String
        var policy: ResolvedPolicy
        var features: FeatureState
        var rotation: RotationState
        var bandit: BanditModel
        var mixture: SignalMixture
        var generator: SeededGenerator
    }

    /// Serialized state, restorable with `init(user:policy:rotation:seed:restoring:)`.
    /// A compact binary encoding of the learned state (`SnapshotCoder`: about 4 KB per widget,
    /// 0.6 KB per app for the first 4,096 apps, plus the context tables). An outside
    /// `WidgetScorer`'s own state is not included.
    /// - Complexity: O(size of the state).
    public func snapshot() -> [UInt8] {
        let s = Snapshot(user: user, policy: scorer.policy, features: features, rotation: rotation.state, bandit: scorer.bandit, mixture: scorer.mixture,
                         generator: rotation.generator)
        do { return try SnapshotCoder.encode(s) } catch {
            // Every field is a plain number, string or array of them: encoding cannot fail.
            preconditionFailure("encoding a UserEngine snapshot failed: \(error)")
        }
    }

    /// Restores an engine from `snapshot()` bytes. The snapshot's generator state is used, not
    /// `seed`; the policy must be the one the snapshot was taken with. A population `prior` is
    /// not part of the snapshot: give the one the state was learnt with (``Engine`` keeps states
    /// learnt with different priors apart).
    /// - Complexity: O(size of the state).
    public convenience init(user: String, policy: PolicySpec, rotation: RotationParameters = RotationParameters(), seed: UInt64 = 0,
                            restoring snapshot: [UInt8], prior: PopulationPrior? = nil) throws(EngineError) {
        let resolved = try ResolvedPolicy(policy)
        // The version is the first field: another version's layout is refused as such, not by
        // where its bytes stop making sense in this one.
        if let version = try? SnapshotCoder.decodePrefix(Int.self, from: snapshot), version != Snapshot.currentVersion {
            throw EngineError(.invalidSnapshot, "snapshot for user '\(user)' has version \(version); this engine reads version \(Snapshot.currentVersion)")
        }
        let s: Snapshot
        do { s = try SnapshotCoder.decode(Snapshot.self, from: snapshot) } catch {
            throw EngineError(.invalidSnapshot, "snapshot for user '\(user)' is not readable (\(snapshot.count) bytes): \(error)")
        }
        let stacks = s.features.stacks.count, widgets = s.features.widgets.count
        let r = s.rotation
        guard s.features.isConsistent,
              [r.top.count, r.since.count, r.day.count, r.rotationsToday.count, r.holdWidget.count, r.holdUntil.count, r.early.count,
               r.replaced.count, r.isUnseenSwipe.count]
                .allSatisfy({ $0 <= stacks && $0 == r.top.count }),
              (r.top + r.holdWidget + r.replaced).allSatisfy({ $0 >= -1 && $0 < widgets }),
              r.early.allSatisfy({ $0.challenger >= -1 && $0.challenger < widgets && $0.incumbent >= -1 && $0.incumbent < widgets }),
              r.ledger.isConsistent,
              s.bandit.isConsistent(widgets: widgets), s.mixture.isConsistent else {
            throw EngineError(.invalidSnapshot, "snapshot for user '\(user)' is inconsistent (corrupt bytes?)")
        }
        guard s.user == user else {
            throw EngineError(.invalidSnapshot, "snapshot is for user '\(s.user)', not '\(user)'")
        }
        guard s.policy == resolved else {
            throw EngineError(.invalidSnapshot, "snapshot for user '\(user)' was taken with policy '\(s.policy.kind.rawValue)' and other parameters than '\(policy)'")
        }
        self.init(user: user, resolved: resolved, name: policy.description, rotation: rotation, seed: seed, external: nil,
                  features: s.features, prior: prior)
        self.rotation.state = s.rotation
        scorer.bandit = s.bandit
        scorer.mixture = s.mixture
        self.rotation.generator = s.generator
    }
}
