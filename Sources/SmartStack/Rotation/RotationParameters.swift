/// Parameters of the rotation policy applied on top of any scorer.
///
/// At each decision point, in this order:
/// 1. **Pins win**: a pinned widget is on top until unpinned (even if its hint is `<= 0`).
/// 2. **A manual swipe wins** for `swipeHold` (default 10 min, one session): the widget swiped to
///    stays on top while it is eligible.
/// 3. The scorer's best eligible widget not currently on top of another of the person's stacks
///    (**one stack top**) is the challenger. It replaces the current top only if the current top
///    is gone, ineligible or on top elsewhere, or if all of these hold:
///    - **dwell**: the current top has been on top at least `minimumDwell` (default 15 min),
///      unless this person's record shows that rotations this confident win inside the dwell
///      (see below);
///    - **cap**: fewer than `maximumRotationsPerDay` (default 48) rotations happened on this
///      stack since local midnight;
///    - **hysteresis**: the challenger is stronger than the current top by at least
///      `hysteresisMargin` (default 0.1) of the challenger's strength. Strength is positive and
///      scale-free: `exp(score)` for `contextual`/`bandit` (whose scores are log-likelihoods:
///      0.1 means about 0.105 nats), the count for `mfu`/`frecency`/`time-of-day`,
///      `1 / (1 + hours since use)` for `mru`, the position in the score range for an outside
///      scorer.
///
/// **Earned calm.** The dwell, the daily cap and a swipe's hold keep noisy score wobbles off
/// the screen, but they cannot follow a person whose next need changes every few minutes,
/// predictably ("open A, then B"). Each time one of them holds back a challenger that clears the
/// margin, the engine notes it, and the stack's first engagement within 10 minutes says who was
/// right: the challenger or the top it would have replaced (`DwellLedger`, per person, by how
/// much stronger the challenger was — five bands of relative gain — and by whether it would
/// return to the widget the top replaced, decayed with the policy's `half_life`). A held-back
/// challenger in a cell whose win share is above 1/2 with one-sided confidence
/// `earlyRotationConfidence` (default 0.95) for a return, `newChallengerConfidence` (default 0.8)
/// for any other challenger, replaces the top at once (ending a swipe's hold). Only a return
/// can make the A, B, A that people see as flicker, so a new challenger needs less proof (the
/// issue 14 test bed's tuning seeds: 0.8 left flicker unchanged on every bundled persona while
/// it cut the dwell's cost on the one-day `sequence` set, whose needs change by the minute, from
/// 0.045 to 0.028 hit@1; 0.7 raised flicker). The
/// person only sees the top when they look (a screen-on, or the engagement itself in data
/// without screen-on), so what matters is whether the early rotation was right, which is exactly
/// what is counted. A widget swiped to between two looks counts as shown from the first look
/// that shows it, so the dwell after its hold runs from there.
///
/// The defaults come from a sweep of the evaluator over the five simulated personas and the
/// StudentLife recordings (docs/design.md, "Rotation policy and why its defaults"): a 15-minute
/// dwell removes most flicker (A → B → A within 15 minutes: 0.020 → 0.003 of rotations) for
/// −0.001 hit@1, the defaults together take nearly a ninth of the rotations off an undamped top
/// for −0.003, and `newChallengerConfidence` 0.8 measures there as 0.95 did (+0.0003). The swipe
/// hold is one session (10 minutes, the window in which an engagement is credited to a
/// decision): on a stack of 12 widgets people swipe to find a widget more often than to keep it,
/// and a 30-minute hold raised unnecessary rotations above the undamped scorer's there
/// (issue 14's test bed, tuning seeds).
///
/// A cell of the record with little evidence of its own borrows that of less confident
/// challengers of the same kind (`DwellLedger`), so calm is earned within the first day.
///
/// ```swift
/// var r = RotationParameters()
/// r.minimumDwell = 30 * 60
/// let engine = try UserEngine(user: "u00", policy: PolicySpec(parsing: "contextual"), rotation: r)
/// ```
public struct RotationParameters: Sendable, Hashable, Codable {
    /// Relative strength (0...1) a challenger must win by. Default 0.1.
    /// 0 turns hysteresis off: the scorer's pick (or the bandit's sampled pick) always wins.
    public var hysteresisMargin: Double
    /// Seconds a widget stays on top before it may be replaced (unless it became ineligible).
    /// Default 900 (15 minutes).
    public var minimumDwell: Double
    /// Automatic rotations allowed per stack per local day. Default 48.
    public var maximumRotationsPerDay: Int
    /// Seconds a manually swiped-to widget stays on top. Default 600 (10 minutes, one session).
    public var swipeHold: Double
    /// One-sided confidence (0.5...1) with which this person's record must show that rotations
    /// as confident as this one win inside the dwell before one is made early: the test for a
    /// challenger that returns to the widget the top replaced (the signature of a wobble), and
    /// for every challenger when `newChallengerConfidence` is higher. Default 0.95; 1 never
    /// rotates inside the dwell (the fixed dwell).
    public var earlyRotationConfidence: Double
    /// The same confidence for a *new* challenger, one that is not the widget the top replaced
    /// (capped by `earlyRotationConfidence`): such a rotation cannot make the A, B, A a person
    /// sees as flicker, so it needs less proof. Default 0.8; 1 holds new challengers to
    /// `earlyRotationConfidence`.
    public var newChallengerConfidence: Double

    /// The documented defaults.
    public init() {
        hysteresisMargin = 0.1
        minimumDwell = 900
        maximumRotationsPerDay = 48
        swipeHold = 600
        earlyRotationConfidence = 0.95
        newChallengerConfidence = 0.8
    }

    /// Custom parameters (negative values are treated as 0).
    public init(hysteresisMargin: Double, minimumDwell: Double, maximumRotationsPerDay: Int, swipeHold: Double,
                earlyRotationConfidence: Double = 0.95, newChallengerConfidence: Double = 0.8) {
        self.hysteresisMargin = hysteresisMargin
        self.minimumDwell = minimumDwell
        self.maximumRotationsPerDay = maximumRotationsPerDay
        self.swipeHold = swipeHold
        self.earlyRotationConfidence = earlyRotationConfidence
        self.newChallengerConfidence = newChallengerConfidence
    }

    /// The confidence the early-rotation test uses for a challenger that returns to the widget
    /// the top replaced, or for a new one: 1 (never early) when `earlyRotationConfidence` is 1.
    func confidence(isReturn: Bool) -> Double {
        earlyRotationConfidence >= 1 || isReturn ? earlyRotationConfidence : min(earlyRotationConfidence, newChallengerConfidence)
    }

    private enum CodingKeys: String, CodingKey {
        case hysteresisMargin, minimumDwell, maximumRotationsPerDay, swipeHold, earlyRotationConfidence, newChallengerConfidence
    }

    /// Decodes the parameters; those written before a parameter existed get its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = RotationParameters()
        hysteresisMargin = try c.decode(Double.self, forKey: .hysteresisMargin)
        minimumDwell = try c.decode(Double.self, forKey: .minimumDwell)
        maximumRotationsPerDay = try c.decode(Int.self, forKey: .maximumRotationsPerDay)
        swipeHold = try c.decode(Double.self, forKey: .swipeHold)
        earlyRotationConfidence = try c.decodeIfPresent(Double.self, forKey: .earlyRotationConfidence) ?? defaults.earlyRotationConfidence
        newChallengerConfidence = try c.decodeIfPresent(Double.self, forKey: .newChallengerConfidence) ?? defaults.newChallengerConfidence
    }

    /// Parameters that never hold anything back: the top is always the scorer's best eligible
    /// widget (pins, swipes and one-stack-top still apply).
    public static let immediate = RotationParameters(
        hysteresisMargin: 0, minimumDwell: 0, maximumRotationsPerDay: Int.max, swipeHold: 0)
}
