/// One policy's finished dwells, sorted once, so the median dwell of any resample of user-days
/// is found without sorting: a resample is a multiset of units, and its median is a weighted
/// selection over the sorted dwells where each dwell weighs its unit's multiplicity. The value
/// is exactly the one sorting the resample's dwells gives, including the mean of the middle two
/// for an even count.
///
/// The *pivot* is the value holding the median of all dwells; each unit counts its dwells below
/// and at the pivot (`DayCounts`). A resample sums those counts with the rest of its tallies, and
/// when its middle ranks fall on the pivot value (most resamples: dwells are in whole minutes in
/// simulated data, and resampling moves the median little) that is all; otherwise it walks the
/// sorted dwells outward from the pivot, only as far as the middle ranks.
///
/// Storage: 4 bytes per dwell (its unit) plus each distinct value once.
struct DwellOrder: Sendable {
    private struct Entry {
        var minutes: Double
        var unit: Int32
    }

    /// Dwells as they come, until `finish`.
    private var pending: [Entry] = []
    /// The distinct values, ascending.
    private(set) var values: [Double] = []
    /// Value `j`'s dwells are `units[runEnds[j - 1] ..< runEnds[j]]` (from 0 for `j == 0`).
    private var runEnds: [Int] = []
    /// The unit of each dwell, dwells in ascending order of value.
    private var units: [Int32] = []
    /// The index in `values` of the pivot, -1 without dwells.
    private(set) var pivot = -1

    /// Adds a dwell of `unit`.
    mutating func add(_ minutes: Double, unit: Int32) {
        pending.append(Entry(minutes: minutes, unit: unit))
    }

    /// Sorts the dwells, picks the pivot and fills each unit's `dwellsBelowPivot` and
    /// `dwellsAtPivot`.
    ///
    /// - Complexity: O(dwells log dwells).
    mutating func finish(counts: inout [DayCounts]) {
        pending.sort { $0.minutes < $1.minutes }
        units.reserveCapacity(pending.count)
        for e in pending {
            if values.last != e.minutes {
                if !values.isEmpty { runEnds.append(units.count) }
                values.append(e.minutes)
            }
            units.append(e.unit)
        }
        if !values.isEmpty { runEnds.append(units.count) }
        pending = []
        guard !units.isEmpty else { return }
        let middle = (units.count - 1) / 2
        pivot = runEnds.firstIndex { $0 > middle }!
        for j in 0...pivot {
            for x in start(of: j)..<runEnds[j] {
                let u = Int(units[x])
                if j < pivot { counts[u].dwellsBelowPivot += 1 } else { counts[u].dwellsAtPivot += 1 }
            }
        }
    }

    private func start(of run: Int) -> Int { run == 0 ? 0 : runEnds[run - 1] }

    /// The median dwell of a multiset of units: `count` dwells in all, `below` of them shorter
    /// than the pivot and `atPivot` equal to it; `weight[u]` is unit `u`'s multiplicity, read
    /// only when the middle ranks are off the pivot. `nil` without dwells.
    ///
    /// - Complexity: O(1) when the middle ranks are at the pivot, else O(dwells between).
    func median(count: Int, below: Int, atPivot: Int, weight: UnsafeBufferPointer<Int32>) -> Double? {
        guard count > 0 else { return nil }
        let low = value(atRank: (count - 1) / 2, below: below, atPivot: atPivot, weight: weight)
        guard count % 2 == 0 else { return low }
        return (low + value(atRank: count / 2, below: below, atPivot: atPivot, weight: weight)) / 2
    }

    /// Whether `median` with these counts walks off the pivot (and so reads `weight`).
    func walksOffPivot(count: Int, below: Int, atPivot: Int) -> Bool {
        count > 0 && ((count - 1) / 2 < below || count / 2 >= below + atPivot)
    }

    /// The value at 0-based `rank` of the weighted multiset.
    private func value(atRank rank: Int, below: Int, atPivot: Int, weight: UnsafeBufferPointer<Int32>) -> Double {
        if rank < below {
            var before = below   // weighted dwells before run j
            for j in stride(from: pivot - 1, through: 0, by: -1) {
                before -= runWeight(j, weight)
                if rank >= before { return values[j] }
            }
        } else if rank >= below + atPivot {
            var through = below + atPivot   // weighted dwells up to and including run j
            for j in (pivot + 1)..<values.count {
                through += runWeight(j, weight)
                if rank < through { return values[j] }
            }
        } else {
            return values[pivot]
        }
        preconditionFailure("rank \(rank) outside the resample's dwells")
    }

    private func runWeight(_ run: Int, _ weight: UnsafeBufferPointer<Int32>) -> Int {
        var w = 0
        for x in start(of: run)..<runEnds[run] { w += Int(weight[Int(units[x])]) }
        return w
    }
}
