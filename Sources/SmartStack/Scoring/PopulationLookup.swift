/// One person's reading of a `PopulationPrior`: which of the prior's rows each of their widgets
/// takes (by id, else by its app) and which kind of place each of their places is, resolved once
/// and kept; and the terms the model smooths toward, computed per scoring into `terms`.
///
/// Owned by the person's `Scorer` and used from its thread only; caches grow with the widgets
/// and places interned and follow a widget whose app is reconfigured.
final class PopulationLookup {
    let prior: PopulationPrior
    /// The policy's `population`: pseudo-engagements of the prior's rates in `p0`.
    let weight: Double

    /// Per interned widget: the prior's row (-1 none, `unresolved`), and the widget's app when
    /// it was resolved.
    @exclusivity(unchecked) private var rows: [Int32] = []
    @exclusivity(unchecked) private var rowApps: [Int32] = []
    /// Per interned place: its kind's index (-1 none, `unresolved`).
    @exclusivity(unchecked) private var kinds: [Int32] = []
    private static let unresolved: Int32 = -2

    /// Per widget of the stack scored last: `p0` and the time-of-day target (`2i`, `2i + 1`) in a
    /// buffer of its own (the model reads it through a pointer), then each widget's row
    /// (`rowOf`), its rate share and lift.
    private(set) var termsBuffer = UnsafeMutablePointer<Double>.allocate(capacity: 0)
    private var termsCapacity = 0
    @exclusivity(unchecked) var rowOf: [Int32] = []
    @exclusivity(unchecked) var shares: [Double] = []
    @exclusivity(unchecked) var liftOf: [Double] = []
    /// The kind of place the last terms were computed for (-1: any place).
    @exclusivity(unchecked) var placeKind = -1

    init(prior: PopulationPrior, weight: Double) {
        self.prior = prior
        self.weight = weight
    }

    deinit { termsBuffer.deallocate() }

    /// The prior's row for widget `w` of `fs`, -1 when it names neither the widget nor its app.
    @inline(__always) func row(_ w: Int, _ fs: FeatureState) -> Int32 {
        if w >= rows.count {
            rows.append(contentsOf: repeatElement(Self.unresolved, count: w + 1 - rows.count))
            rowApps.append(contentsOf: repeatElement(Self.unresolved, count: w + 1 - rowApps.count))
        }
        let app = fs.signals[w].app
        if rows[w] == Self.unresolved || rowApps[w] != app {
            rows[w] = prior.row(widget: fs.widgets.names[w], app: app >= 0 ? fs.apps.names[Int(app)] : nil)
            rowApps[w] = app
        }
        return rows[w]
    }

    /// The kind of place of place `p` of `fs` (-1 for a place found from coordinates, or a label
    /// the prior does not know).
    @inline(__always) func kind(ofPlace p: Int, _ fs: FeatureState) -> Int {
        guard p >= 0 else { return -1 }
        if p >= kinds.count { kinds.append(contentsOf: repeatElement(Self.unresolved, count: p + 1 - kinds.count)) }
        if kinds[p] == Self.unresolved {
            kinds[p] = fs.placeIsCluster[p] ? -1 : Int32(prior.placeKind(label: fs.places.names[p]))
        }
        return Int(kinds[p])
    }

    /// Grows the per-widget buffers to `n` widgets.
    func prepare(widgets n: Int) {
        if termsCapacity < 2 * n {
            termsBuffer.deallocate()
            termsBuffer = .allocate(capacity: 2 * n)
            termsBuffer.initialize(repeating: 0, count: 2 * n)
            termsCapacity = 2 * n
        }
        if rowOf.count < n {
            rowOf = [Int32](repeating: -1, count: n)
            shares = [Double](repeating: 0, count: n)
            liftOf = [Double](repeating: 1, count: n)
        }
    }
}
