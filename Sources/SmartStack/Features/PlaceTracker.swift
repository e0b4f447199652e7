import Foundation

/// Where the person is: the current *visit* (a place and when they arrived), held until
/// evidence says they left, with a confidence that falls as the visit outlasts the person's
/// usual stays there.
///
/// - **Evidence of a place**: a `place` event, or a `location` fix clustered by
///   `PlaceClusterer`. A fix in the visit's own cluster, or the visit's label again, confirms
///   the visit; a label arriving within `bindingWindow` of a fix in a cluster with no label yet
///   names that cluster from then on (and a fix arriving within it after a label does the
///   same), so labelled and unlabelled arrivals at one place count as one place. A fix whose
///   error circle is wider than a place (`accuracy` above the clusterer's radius) and that more
///   likely than not comes from one known place (`PlaceClusterer.likeliestPlace`: Bayes' rule
///   over the known places, the visit in force weighed by its confidence) is evidence of that
///   place worth that probability: change-only services often report an arrival with a
///   cell-tower fix hundreds of metres wide.
/// - **Evidence of leaving**: a fix that is outside the visit's place even at the near edge of
///   its error circle (distance − accuracy > the clusterer's radius), or another label. A fix
///   whose error circle still reaches the place says nothing either way, unless it named
///   another place (above). A fix coarser than the clusterer's limit (250 m) founds and moves
///   no place; one that names no place can still end a visit and name the known place whose
///   centre is within its reach (radius + accuracy) at the weight `(radius / accuracy)²`; a
///   coarse fix confirming the visit never lowers its confidence. Late evidence is ignored.
/// - **Confidence**: both dense (every few minutes) and change-only reporting (one fix on
///   arrival, none while the person stays) leave long silences inside a visit, so silence
///   alone never ends one. Instead the visit's confidence is the probability that a stay at
///   this place lasts at least as long as this one has, given that it lasted until the last
///   evidence: `S(now − arrival) / S(last evidence − arrival)`, where `S` is the survival
///   function of the person's completed visits there (arrival to the first evidence of
///   leaving), in log-spaced duration bins, decayed with `half_life`, smoothed toward all of
///   the person's visits and those toward a default (stays of 15 min to 32 h equally likely on
///   a log scale) with `prior` pseudo-visits, the model's usual back-off. The confidence is
///   also scaled by the last fix's accuracy (1 up to the radius, falling as its square beyond).
///
/// The scorer mixes the place's distribution with the place-free one by this confidence, and
/// engagements count at the place with it as weight.
struct PlaceTracker: Sendable, Codable, Hashable {
    /// Upper edges of the visit-duration bins in seconds (the last bin is open).
    static let binEdges: [Double] = [900, 1800, 3600, 7200, 14_400, 28_800, 57_600, 115_200]
    static let binCount = binEdges.count + 1
    /// Seconds within which a label and a fix in an unlabelled cluster name the same place.
    static let bindingWindow = 600.0
    /// Below this confidence the place is treated as unknown.
    static let minimumConfidence = 0.01

    /// The current visit's place (interned place number), -1 for none.
    private(set) var place: Int32 = -1
    /// The current visit's cluster, -1 if only a label is known.
    private(set) var cluster: Int32 = -1
    private(set) var arrival = -Double.infinity
    /// The last evidence the person was at `place`, and how much it was worth (accuracy).
    private(set) var evidence = -Double.infinity
    private(set) var evidenceWeight = 1.0
    /// The newest place evidence taken (older evidence arriving late is ignored).
    private(set) var newest = -Double.infinity

    /// Per cluster, the place number of its label (-1: none yet).
    private(set) var clusterLabel: [Int32] = []
    /// Per place, decayed completed-visit counts by duration bin (`binCount` per place), and
    /// the same over every place.
    private(set) var durations: [Double] = []
    private(set) var allDurations = [Double](repeating: 0, count: PlaceTracker.binCount)

    init() {}

    // MARK: Evidence

    /// Adds per-place rows up to place number `p`.
    mutating func ensure(places n: Int) {
        if durations.count < n * Self.binCount {
            durations.append(contentsOf: repeatElement(0, count: n * Self.binCount - durations.count))
        }
    }

    /// A `place` event: label `p` (a place number, or -1 when no more places can be kept).
    mutating func label(_ p: Int32, at ts: Double, prior: Double, decay lw: Double) {
        guard ts >= newest else { return }
        newest = ts
        if p >= 0 && p == place { confirm(at: ts, weight: 1, prior: prior); return }
        if p >= 0, cluster >= 0, clusterLabel[Int(cluster)] < 0, ts - evidence <= Self.bindingWindow, ts >= arrival {
            // The label names the cluster the person was just seen in: the same visit.
            clusterLabel[Int(cluster)] = p
            place = p
            confirm(at: ts, weight: 1, prior: prior)
            return
        }
        arrive(at: p, cluster: -1, time: ts, weight: 1, decay: lw)
    }

    /// A `location` fix assigned to cluster `c` (-1: no cluster could take it), `place` the
    /// cluster's own place number, `distance` from the visit's cluster centre (∞ if none).
    /// `named`: the probability that a fix wider than a place comes from cluster `c`
    /// (`PlaceClusterer.likeliestPlace`), which is then its weight and settles where the person
    /// is; otherwise a fix wider than a place weighs `(radius / accuracy)²`.
    mutating func fix(cluster c: Int32, place clusterPlace: Int32, distanceFromVisit distance: Double, accuracy: Double,
                      named: Double? = nil, radius: Double, at ts: Double, prior: Double, decay lw: Double) {
        guard ts >= newest else { return }
        newest = ts
        while clusterLabel.count <= Int(c) { clusterLabel.append(-1) }
        let weight = named ?? (accuracy > radius ? (radius / accuracy) * (radius / accuracy) : 1)
        // In the visit's cluster (`currentCluster`, whose scan runs only for a fix in a cluster
        // bearing the visit's label).
        let inVisit = c >= 0
            && (c == cluster || (cluster < 0 && place >= 0 && clusterLabel[Int(c)] == place && c == currentCluster))
        if inVisit {
            confirm(at: ts, weight: weight, prior: prior)
            return
        }
        if c >= 0, cluster < 0, place >= 0, ts - evidence <= Self.bindingWindow,
           clusterLabel[Int(c)] < 0 || clusterLabel[Int(c)] == place {
            // A fix just after a label: the label's place is this cluster.
            clusterLabel[Int(c)] = place
            cluster = c
            confirm(at: ts, weight: weight, prior: prior)
            return
        }
        // Outside the visit's place only if even the error circle's near edge is (a named fix
        // has already weighed that).
        if named == nil && cluster >= 0 && distance - accuracy <= radius { return }
        guard c >= 0 else {
            if place >= 0 { leave(at: ts, decay: lw) }
            return
        }
        let label = clusterLabel[Int(c)]
        arrive(at: label >= 0 ? label : clusterPlace, cluster: c, time: ts, weight: weight, decay: lw)
    }

    /// Evidence at `ts` worth `weight` that the person is at the visit's place: a coarse one
    /// never lowers the confidence it confirms.
    private mutating func confirm(at ts: Double, weight: Double, prior: Double) {
        evidenceWeight = max(weight, place >= 0 && ts >= arrival ? confidence(at: ts, prior: prior) : 0)
        evidence = ts
    }

    private mutating func arrive(at p: Int32, cluster c: Int32, time ts: Double, weight: Double, decay lw: Double) {
        if place >= 0 { leave(at: ts, decay: lw) }
        guard p >= 0 else { return }
        place = p
        cluster = c
        arrival = ts
        evidence = ts
        evidenceWeight = weight
    }

    /// Ends the visit at `ts` (the first evidence of leaving) and learns its duration.
    private mutating func leave(at ts: Double, decay lw: Double) {
        if place >= 0, arrival.isFinite {
            let b = Self.bin(of: ts - arrival)
            ensure(places: Int(place) + 1)
            durations[Int(place) * Self.binCount + b] += lw
            allDurations[b] += lw
        }
        place = -1
        cluster = -1
        arrival = -.infinity
    }

    /// Multiplies the decayed duration counts by `factor` (the long clock's rescale).
    mutating func scale(by factor: Double) {
        for i in durations.indices { durations[i] *= factor }
        for i in allDurations.indices { allDurations[i] *= factor }
    }

    // MARK: Reading

    /// The cluster of the visit's place: its own, or the cluster its label names (-1: none).
    /// - Complexity: O(clusters) for a visit known by its label only.
    var currentCluster: Int32 {
        if cluster >= 0 || place < 0 { return cluster }
        return clusterLabel.firstIndex(of: place).map { Int32($0) } ?? -1
    }

    // The readings below are `mutating` though they change nothing: called on a stored
    // property (`FeatureState.visits`), a non-mutating call would copy the tracker and retain
    // its arrays, twice per engagement and per moment; a mutating one reads it in place.

    /// The place of the visit in force at `ts` and the confidence that the person is still
    /// there, or `nil`.
    /// - Complexity: O(duration bins).
    @inline(__always)
    mutating func current(at ts: Double, prior: Double) -> (place: Int32, confidence: Double)? {
        guard place >= 0, ts >= arrival - 60 else { return nil }
        let c = confidence(at: ts, prior: prior)
        return c >= Self.minimumConfidence ? (place, c) : nil
    }

    /// `evidenceWeight · S(ts − arrival) / S(evidence − arrival)` for the visit's place.
    mutating func confidence(at ts: Double, prior: Double) -> Double {
        guard ts > evidence else { return evidenceWeight }
        let later = survival(Int(place), ts - arrival, prior: prior)
        let earlier = survival(Int(place), max(0, evidence - arrival), prior: prior)
        guard earlier > 0 else { return 0 }
        return evidenceWeight * min(1, later / earlier)
    }

    /// The bin of a duration in seconds.
    static func bin(of d: Double) -> Int {
        for (i, edge) in binEdges.enumerated() where d < edge { return i }
        return binEdges.count
    }

    /// The smoothed probability that a visit at place `p` lasts longer than `d` seconds.
    mutating func survival(_ p: Int, _ d: Double, prior a: Double) -> Double {
        let B = Self.binCount
        let row = p * B
        let hasRow = p >= 0 && row + B <= durations.count
        let k = Self.bin(of: d)
        // Within bin k, the mass still to come falls linearly (log-linearly past the last edge).
        let lower = k == 0 ? 0 : Self.binEdges[k - 1]
        let remaining: Double
        if k < Self.binEdges.count {
            remaining = (Self.binEdges[k] - d) / (Self.binEdges[k] - lower)
        } else {
            remaining = exp2(-(d - lower) / lower)
        }
        // The default: equal mass in bins 1...B-1 (stays of 15 min to 32 h and longer).
        let d0 = 1.0 / Double(B - 1)
        return allDurations.withUnsafeBufferPointer { pooled in
            durations.withUnsafeBufferPointer { rows in
                // Totals and the mass at or beyond the bin of `d`, place-specific and pooled,
                // each summed in bin order. A place without a row has no mass of its own.
                let own = hasRow ? rows.baseAddress! + row : nil
                var n = 0.0, all = 0.0
                for b in 0..<B { all += pooled[b]; if let own { n += own[b] } }
                var sPlace = 0.0, sAll = 0.0, sBase = 0.0
                for b in (k + 1)..<max(k + 1, B) {
                    sPlace += own?[b] ?? 0; sAll += pooled[b]; sBase += d0
                }
                sPlace += remaining * (own?[k] ?? 0); sAll += remaining * pooled[k]; sBase += remaining * (k == 0 ? 0 : d0)
                let pooledShare = (sAll + a * sBase) / (all + a)
                return (sPlace + a * pooledShare) / (n + a)
            }
        }
    }

    /// Whether the stored arrays are usable with `places` places and `clusters` clusters.
    func isConsistent(places: Int, clusters: Int) -> Bool {
        durations.count <= places * Self.binCount && durations.count % Self.binCount == 0
            && allDurations.count == Self.binCount && clusterLabel.count <= clusters + 1
            && clusterLabel.allSatisfy { $0 >= -1 && $0 < places }
            && place >= -1 && place < places && cluster >= -1 && cluster < max(clusters, clusterLabel.count)
    }
}
