import Foundation
import SmartStack

/// The choices that change evaluation figures. Every report prints them.
///
/// ```swift
/// var options = ReplayOptions()
/// options.window = 5 * 60      // attribute engagements up to 5 minutes after a decision
/// options.warmupDays = 3
/// ```
public struct ReplayOptions: Sendable, Hashable {
    /// Attribution window in seconds: a decision's target is the first engagement of one of the
    /// stack's widgets in `[decision, decision + window]`, cut at the user's next decision point.
    /// Default 600 (10 minutes).
    public var window: Double = 600
    /// Merge consecutive repeats of the same app: an `app_launch` of the same app as the user's
    /// previous `app_launch`, with no `screen_on` in between, is dropped before replay (the
    /// policy never sees it and it is no engagement). Default `true`: recordings made by polling
    /// the foreground app (StudentLife) repeat one use many times, which would otherwise
    /// inflate frequencies and, without `screen_on`, decision points.
    public var mergeRepeats: Bool = true
    /// Days at the start of each user's data (from their first event, in elapsed time) whose
    /// decisions are replayed, so the policy learns, but not scored. Default 7: one full week,
    /// so that weekday/weekend and hour-of-day policies have seen each day of the week once.
    public var warmupDays: Int = 7
    /// Seed for the policies' generators (mixed with each user's id) and the bootstrap.
    public var seed: UInt64 = 0
    /// The rotation policy applied on top of every policy's scores (hysteresis margin, dwell,
    /// daily cap, swipe hold). Default: the engine's documented defaults.
    public var rotation = RotationParameters()
    /// Bootstrap resamples over user-days for the 95% intervals (0 turns intervals off).
    public var bootstrapResamples: Int = 1000
    /// A return to the previous top within this many seconds is a flicker. Default 900 (15 min).
    public var flickerWindow: Double = 900
    /// Whether logged `widget_impression` events with a propensity are paired with each policy
    /// and given to the off-policy estimators (`ope` in the report). Default `true`.
    public var offPolicyEstimates: Bool = true
    /// The most logged impressions given to the off-policy estimators per policy; beyond it, a
    /// seeded uniform sample of this size (the same impressions for every policy) keeps their
    /// memory bounded. Default 250 000.
    public var offPolicyRoundLimit: Int = 250_000
    /// Worker threads replaying users in parallel (results do not depend on it).
    public var threads: Int = ReplayOptions.availableCores
    /// Whether every decision, warm-up included, is also tallied by day since its user's stacks
    /// were first configured (day 1: the 24 hours from that instant), for the report's learning
    /// curve (`EvaluationReport.byDay`). Default `false`.
    public var byDay: Bool = false
    /// The largest number of events grouped in memory at once when a dataset is not sorted by
    /// user and has to be spilled to temporary files (a single larger user is kept whole).
    public var spillBudget: Int = 1_000_000

    /// Creates the default options.
    public init() {}

    /// The number of active processor cores.
    public static var availableCores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}
