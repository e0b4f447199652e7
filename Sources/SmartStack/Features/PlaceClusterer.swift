import Foundation

/// Online leader clustering of raw `location` fixes into the person's significant places.
///
/// - A fix whose `accuracy` is above `maximumAccuracy` (default 250 m) is ignored: it cannot
///   tell two places 150 m apart. Fixes without accuracy are taken at face value.
/// - A fix within `radius` (default 150 m) of the nearest place joins it; the place's centre
///   moves toward the fix by the fix's weight `min(1, 50 m / accuracy)` over the place's total
///   weight, so precise fixes count more than coarse ones.
/// - Otherwise the fix founds a new place (numbered 1, 2, ... in order of discovery), up to
///   `maximumPlaces` (default 200); beyond that, far fixes belong to no place.
/// - A fix whose error circle is wider than a place (`accuracy` > `radius`) is first read as
///   evidence about the places already known (`likeliestPlace`): which of them it most likely
///   comes from, and how likely, before it may found anything.
///
/// Work per fix is O(log places) plus the places within the nearest one's latitude band:
/// places are kept in latitude order, and a place whose latitude difference alone exceeds the
/// best distance found cannot be nearer. The result is exactly that of scanning every place in
/// order (the nearest by the same arithmetic, the lowest number among equals).
struct PlaceClusterer: Sendable, Codable, Hashable {
    var radius: Double = 150
    var maximumAccuracy: Double = 250
    var maximumPlaces = 200
    private(set) var latitudes: [Double] = []
    private(set) var longitudes: [Double] = []
    private(set) var weights: [Double] = []
    /// Place numbers sorted by latitude, and each place's position there (derived: rebuilt
    /// when decoded, not saved or compared).
    private var byLatitude: [Int] = []
    private var position: [Int] = []

    init() {}

    enum CodingKeys: String, CodingKey { case radius, maximumAccuracy, maximumPlaces, latitudes, longitudes, weights }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        radius = try c.decode(Double.self, forKey: .radius)
        maximumAccuracy = try c.decode(Double.self, forKey: .maximumAccuracy)
        maximumPlaces = try c.decode(Int.self, forKey: .maximumPlaces)
        latitudes = try c.decode([Double].self, forKey: .latitudes)
        longitudes = try c.decode([Double].self, forKey: .longitudes)
        weights = try c.decode([Double].self, forKey: .weights)
        guard latitudes.count == longitudes.count, latitudes.count == weights.count else {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "place arrays of different lengths"))
        }
        byLatitude = latitudes.indices.sorted { latitudes[$0] < latitudes[$1] || (latitudes[$0] == latitudes[$1] && $0 < $1) }
        position = [Int](repeating: 0, count: byLatitude.count)
        for (k, p) in byLatitude.enumerated() { position[p] = k }
    }

    static func == (a: PlaceClusterer, b: PlaceClusterer) -> Bool {
        a.radius == b.radius && a.maximumAccuracy == b.maximumAccuracy && a.maximumPlaces == b.maximumPlaces
            && a.latitudes == b.latitudes && a.longitudes == b.longitudes && a.weights == b.weights
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(radius); hasher.combine(maximumAccuracy); hasher.combine(maximumPlaces)
        hasher.combine(latitudes); hasher.combine(longitudes); hasher.combine(weights)
    }

    /// The place (0-based cluster number) this fix belongs to, creating it if needed; `nil`
    /// if the fix is too inaccurate or no place can be created.
    mutating func assign(lat: Double, lon: Double, accuracy: Double?) -> Int? {
        guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        if let a = accuracy, !(a <= maximumAccuracy) { return nil }
        let w = accuracy.map { min(1, 50 / max($0, 1)) } ?? 1
        let best = nearest(lat: lat, lon: lon)
        if best >= 0, Self.distance(latitudes[best], longitudes[best], lat, lon) <= radius {
            let total = weights[best] + w
            latitudes[best] += (lat - latitudes[best]) * w / total
            longitudes[best] += (lon - longitudes[best]) * w / total
            weights[best] = total
            restoreOrder(of: best)
            return best
        }
        guard latitudes.count < maximumPlaces else { return nil }
        latitudes.append(lat)
        longitudes.append(lon)
        weights.append(w)
        byLatitude.append(latitudes.count - 1)
        position.append(byLatitude.count - 1)
        restoreOrder(of: latitudes.count - 1)
        return latitudes.count - 1
    }

    /// The place nearest to the fix by squared equirectangular distance in radians, with the
    /// fix's own latitude scale (no trigonometry per place); the lowest number among equals;
    /// -1 if there is no place.
    private func nearest(lat: Double, lon: Double) -> Int {
        let scale = cos(lat * .pi / 180)
        var best = -1
        var bestDistance = Double.infinity
        @inline(__always) func consider(_ i: Int) {
            var dl = (longitudes[i] - lon) * .pi / 180
            if dl > .pi { dl -= 2 * .pi } else if dl < -.pi { dl += 2 * .pi }
            let x = dl * scale, y = (latitudes[i] - lat) * .pi / 180
            let d = x * x + y * y
            if d < bestDistance || (d == bestDistance && i < best) { bestDistance = d; best = i }
        }
        // `y * y` alone never exceeds `x * x + y * y` (rounding is monotonic), and it only grows
        // moving away from the fix's latitude: each side stops at the first place it rules out.
        @inline(__always) func latitudeTerm(_ i: Int) -> Double {
            let y = (latitudes[i] - lat) * .pi / 180
            return y * y
        }
        var up = firstPosition(notBelow: lat)
        var down = up - 1
        while up < byLatitude.count || down >= 0 {
            if up < byLatitude.count {
                if latitudeTerm(byLatitude[up]) > bestDistance { up = byLatitude.count } else { consider(byLatitude[up]); up += 1 }
            }
            if down >= 0 {
                if latitudeTerm(byLatitude[down]) > bestDistance { down = -1 } else { consider(byLatitude[down]); down -= 1 }
            }
        }
        return best
    }

    /// The first position in `byLatitude` whose place's latitude is `>= lat`.
    private func firstPosition(notBelow lat: Double) -> Int {
        var lo = 0, hi = byLatitude.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if latitudes[byLatitude[mid]] < lat { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Moves place `p` to its position in `byLatitude` after its latitude changed (a place
    /// moves a little per fix, so this is a few swaps at most).
    private mutating func restoreOrder(of p: Int) {
        var k = position[p]
        while k > 0, latitudes[byLatitude[k - 1]] > latitudes[p] { swapPositions(k, k - 1); k -= 1 }
        while k + 1 < byLatitude.count, latitudes[byLatitude[k + 1]] < latitudes[p] { swapPositions(k, k + 1); k += 1 }
    }

    private mutating func swapPositions(_ i: Int, _ j: Int) {
        byLatitude.swapAt(i, j)
        position[byLatitude[i]] = i
        position[byLatitude[j]] = j
    }

    /// The place nearest to a point if its centre is within `reach` metres, without moving it
    /// (for fixes too coarse to cluster).
    func nearest(lat: Double, lon: Double, within reach: Double) -> Int? {
        guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        let best = nearest(lat: lat, lon: lon)
        guard best >= 0, Self.distance(latitudes[best], longitudes[best], lat, lon) <= reach else { return nil }
        return best
    }

    /// The known place a fix with error radius `accuracy` (metres, 68% confidence, as iOS and
    /// Android report it) most likely comes from, and its posterior probability; `nil` if no
    /// known place is near enough to weigh anything. Bayes' rule over the known places and
    /// "somewhere else":
    ///
    /// - the fix's likelihood at place `k` is a 2-D normal in the distance to its centre, with
    ///   variance `σ² = (accuracy / 1.51)² + (radius / 2)²` (1.51 σ holds 68% of a 2-D normal;
    ///   a place is a disc of `radius`); somewhere else, a uniform density over the fix's own
    ///   error circle, `1 / (π · accuracy²)` (generous to "elsewhere": it assumes an unknown
    ///   place lies within the circle);
    /// - the prior: the visit in force, `current`, with the tracker's `confidence` that the
    ///   person is still there; the rest spread over the known places by their weight (time or
    ///   arrivals seen there) and "somewhere else" by the Good–Turing estimate of meeting a new
    ///   place, `(places seen once + 1) / (total weight + 1)`.
    ///
    /// A coarse fix near one known place and far from the others names it with high
    /// probability, where an area ratio (`(radius / accuracy)²`) would have called it nearly
    /// unknown; between two known places it names neither.
    /// - Complexity: O(log places) plus the places within 8 σ in latitude.
    func likeliestPlace(lat: Double, lon: Double, accuracy a: Double, current: Int, confidence: Double)
        -> (place: Int, probability: Double)? {
        guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180, a.isFinite, a > 0, !weights.isEmpty else {
            return nil
        }
        var total = 0.0, once = 0.0
        for w in weights { total += w; if w <= 1 { once += 1 } }
        let elsewhere = min(1, (once + 1) / (total + 1))
        let held = current >= 0 && current < weights.count ? min(max(confidence, 0), 1) : 0
        let sigma = a / 1.51, extent = radius / 2
        let variance = sigma * sigma + extent * extent
        var best = -1, bestMass = 0.0, known = 0.0
        // Only places within 8 σ in latitude can weigh anything (beyond, the likelihood is below
        // e⁻³², less than any prior's rounding): a band of `byLatitude`, in order of latitude.
        let band = 8 * variance.squareRoot() / 6_371_000 * 180 / .pi
        var k = firstPosition(notBelow: lat - band)
        while k < byLatitude.count, latitudes[byLatitude[k]] <= lat + band {
            let p = byLatitude[k]
            k += 1
            let d = Self.distance(latitudes[p], longitudes[p], lat, lon)
            let prior = (1 - held) * (1 - elsewhere) * weights[p] / total + (p == current ? held : 0)
            let mass = prior * exp(-d * d / (2 * variance)) / (2 * .pi * variance)
            known += mass
            if mass > bestMass || (mass == bestMass && mass > 0 && p < best) { bestMass = mass; best = p }
        }
        guard best >= 0 else { return nil }
        return (best, bestMass / (known + (1 - held) * elsewhere / (.pi * a * a)))
    }

    /// The distance in metres from place `p`'s centre to a point (∞ for no such place). Inlined:
    /// read from a stored property, a call would copy the clusterer's arrays.
    @inline(__always) func distance(fromPlace p: Int, lat: Double, lon: Double) -> Double {
        guard p >= 0, p < latitudes.count, lat.isFinite, lon.isFinite else { return .infinity }
        return Self.distance(latitudes[p], longitudes[p], lat, lon)
    }

    /// Equirectangular distance in metres (accurate to well under 1% at place scale).
    static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6_371_000.0
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180
        var dl = (lon2 - lon1) * .pi / 180
        if dl > .pi { dl -= 2 * .pi } else if dl < -.pi { dl += 2 * .pi }
        let x = dl * cos((p1 + p2) / 2)
        let y = p2 - p1
        return r * (x * x + y * y).squareRoot()
    }
}
