/// Time since the person's day began: since their first activity (a screen-on, an app launch,
/// a tap) after a pause of at least `sleepGap`.
///
/// Much of a routine is anchored to waking rather than to the clock (the weather and the news
/// in the first hour, whatever time that is): for shift workers, on weekends, after a flight.
/// The scorer counts engagements per band of time awake (`bandEdges`) and reads them like any
/// other context, backing off to overall use.
///
/// ```swift
/// var clock = WakeClock()
/// clock.activity(at: 7 * 3600)          // the first activity after the night
/// clock.band(at: 7 * 3600 + 1200)       // 1: between 15 and 30 minutes awake
/// ```
struct WakeClock: Sendable, Codable, Hashable {
    /// A pause at least this long (seconds) ends the person's day; the next activity starts one.
    static let sleepGap = 4 * 3600.0
    /// Upper edges (seconds awake) of the bands; the last band is open.
    static let bandEdges: [Double] = [900, 1800, 3600, 7200, 14_400, 28_800]
    static let bandCount = bandEdges.count + 1

    /// The newest activity and the start of the day it belongs to (-∞: none yet).
    private(set) var lastActivity = -Double.infinity
    private(set) var wake = -Double.infinity

    init() {}

    /// Records an activity at `ts` (late activities change nothing).
    mutating func activity(at ts: Double) {
        guard ts >= lastActivity else { return }
        if ts - lastActivity >= Self.sleepGap { wake = ts }
        lastActivity = ts
    }

    /// The band of time awake at `ts`, -1 before any activity. A moment after a pause of at
    /// least `sleepGap` starts a day: band 0.
    @inline(__always) func band(at ts: Double) -> Int {
        guard lastActivity.isFinite, ts >= wake else { return -1 }
        if ts - lastActivity >= Self.sleepGap { return 0 }
        let awake = ts - wake
        for (i, edge) in Self.bandEdges.enumerated() where awake < edge { return i }
        return Self.bandEdges.count
    }

    /// Seconds since the day began at `ts`, or `nil`.
    func awake(at ts: Double) -> Double? {
        guard lastActivity.isFinite, ts >= wake else { return nil }
        return ts - lastActivity >= Self.sleepGap ? 0 : ts - wake
    }
}
