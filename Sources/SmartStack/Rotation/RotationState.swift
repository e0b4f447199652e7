/// The rotation policy's memory per stack: what is on top since when, the day's rotation count
/// and any manual-swipe hold. Indexed by interned stack number.
struct RotationState: Sendable, Codable, Hashable {
    var top: [Int32] = []
    var since: [Double] = []
    var day: [Int32] = []
    var rotationsToday: [Int] = []
    var holdWidget: [Int32] = []
    var holdUntil: [Double] = []

    init() {}

    mutating func ensure(stacks n: Int) {
        while top.count < n {
            top.append(-1); since.append(-.infinity); day.append(Int32.min); rotationsToday.append(0)
            holdWidget.append(-1); holdUntil.append(-.infinity)
        }
    }

    /// The person swiped stack `s` to widget `w` at `ts`: it is on top and held.
    mutating func swiped(stack s: Int, to w: Int32, at ts: Double, hold: Double) {
        ensure(stacks: s + 1)
        if top[s] != w { since[s] = ts }
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

    /// Records that `s` now shows `w` (from `previous`) at `ts` on local day `today`.
    mutating func show(_ w: Int32, stack s: Int, previous: Int32, at ts: Double, today: Int32) {
        guard w != previous else { return }
        top[s] = w
        since[s] = ts
        if previous >= 0 && w >= 0 {
            if day[s] != today { day[s] = today; rotationsToday[s] = 0 }
            rotationsToday[s] += 1
        }
    }
}
