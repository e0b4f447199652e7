/// The rotation policy's memory per stack: what is on top since when, the day's rotation count
/// and any manual-swipe hold. Indexed by interned stack number.
struct RotationState: Sendable, Codable, Hashable {
    var top: [Int32] = []
    var since: [Double] = []
    var day: [Int32] = []
    var rotationsToday: [Int] = []
    var holdWidget: [Int32] = []
    var holdUntil: [Double] = []
    /// Per stack, the widget the latest change of top replaced (-1: none), and whether a
    /// swiped-to widget has not been shown at a decision yet.
    var replaced: [Int32] = []
    var isUnseenSwipe: [Bool] = []
    /// Per stack, the latest decision that held a stronger challenger inside the dwell, or
    /// rotated to it early, waiting for the stack's first engagement to settle it in `ledger`.
    var early: [EarlyChoice] = []
    /// What early rotations would have won, per gain band (see `DwellLedger`).
    var ledger = DwellLedger()

    /// A challenger and the incumbent it was weighed against inside the dwell.
    struct EarlyChoice: Sendable, Codable, Hashable {
        var challenger: Int32 = -1
        var incumbent: Int32 = -1
        /// The ledger's cell (`DwellLedger.cell(gain:isReturn:)`).
        var cell: Int32 = 0
        var at: Double = -.infinity
    }

    init() {}

    mutating func ensure(stacks n: Int) {
        while top.count < n {
            top.append(-1); since.append(-.infinity); day.append(Int32.min); rotationsToday.append(0)
            holdWidget.append(-1); holdUntil.append(-.infinity); early.append(EarlyChoice())
            replaced.append(-1); isUnseenSwipe.append(false)
        }
    }

    /// Whether some stack has an early choice waiting for its engagement.
    var hasOpenEarlyChoice: Bool {
        for e in early where e.challenger >= 0 { return true }
        return false
    }

    /// Settles the open early choice of every stack holding `w`, engaged at `ts`: the first
    /// engagement of the stack within `DwellLedger.outcomeWindow` decides it.
    mutating func settleEarly(engaged w: Int32, at ts: Double, stackWidgets: [[Int32]], halfLife: Double) {
        for s in early.indices where early[s].challenger >= 0 {
            let e = early[s]
            guard ts >= e.at else { continue }
            if ts - e.at > DwellLedger.outcomeWindow {
                early[s].challenger = -1
            } else if s < stackWidgets.count, stackWidgets[s].contains(w) {
                if w == e.challenger || w == e.incumbent {
                    ledger.settle(cell: Int(e.cell), challengerWon: w == e.challenger, at: e.at, halfLife: halfLife)
                }
                early[s].challenger = -1
            }
        }
    }

    /// The person swiped stack `s` to widget `w` at `ts`: it is on top and held.
    mutating func swiped(stack s: Int, to w: Int32, at ts: Double, hold: Double) {
        ensure(stacks: s + 1)
        if top[s] != w {
            since[s] = ts
            replaced[s] = top[s]
            isUnseenSwipe[s] = true
        }
        top[s] = w
        holdWidget[s] = w
        holdUntil[s] = ts + hold
    }

    /// Whether widget `w` is on top of a stack other than `s`.
    func isOnTopElsewhere(_ w: Int32, except s: Int) -> Bool {
        for i in top.indices where i != s && top[i] == w { return true }
        return false
    }

    /// Rotations already made on `s` during local day `today`.
    func rotations(stack s: Int, today: Int32) -> Int { day[s] == today ? rotationsToday[s] : 0 }

    /// Records that `s` now shows `w` (from `previous`) at `ts` on local day `today`. A widget
    /// swiped to between two decisions counts as shown from the first decision that shows it:
    /// the dwell runs from there, so a look does not see it come and go within the dwell.
    mutating func show(_ w: Int32, stack s: Int, previous: Int32, at ts: Double, today: Int32) {
        if isUnseenSwipe[s] {
            isUnseenSwipe[s] = false
            if w == previous && w == holdWidget[s] { since[s] = ts }
        }
        guard w != previous else { return }
        // A swipe's hold ends when its widget leaves the top (ineligible, or released early).
        if holdWidget[s] >= 0 && w != holdWidget[s] { holdWidget[s] = -1 }
        replaced[s] = previous
        top[s] = w
        since[s] = ts
        if previous >= 0 && w >= 0 {
            if day[s] != today { day[s] = today; rotationsToday[s] = 0 }
            rotationsToday[s] += 1
        }
    }
}
