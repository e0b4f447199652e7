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
///
/// Work per fix is O(places), bounded by `maximumPlaces`.
struct PlaceClusterer: Sendable, Codable, Hashable {
    var radius: Double = 150
    var maximumAccuracy: Double = 250
    var maximumPlaces = 200
    private(set) var latitudes: [Double] = []
    private(set) var longitudes: [Double] = []
    private(set) var weights: [Double] = []

    init() {}

    /// The place (0-based cluster number) this fix belongs to, creating it if needed; `nil`
    /// if the fix is too inaccurate or no place can be created.
    mutating func assign(lat: Double, lon: Double, accuracy: Double?) -> Int? {
        guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        if let a = accuracy, !(a <= maximumAccuracy) { return nil }
        let w = accuracy.map { min(1, 50 / max($0, 1)) } ?? 1
        var best = -1
        var bestDistance = Double.infinity
        // Squared equirectangular distance in radians, with the fix's own latitude scale: no
        // trigonometry per place.
        let scale = cos(lat * .pi / 180)
        for i in latitudes.indices {
            var dl = (longitudes[i] - lon) * .pi / 180
            if dl > .pi { dl -= 2 * .pi } else if dl < -.pi { dl += 2 * .pi }
            let x = dl * scale, y = (latitudes[i] - lat) * .pi / 180
            let d = x * x + y * y
            if d < bestDistance { bestDistance = d; best = i }
        }
        if best >= 0, Self.distance(latitudes[best], longitudes[best], lat, lon) <= radius {
            let total = weights[best] + w
            latitudes[best] += (lat - latitudes[best]) * w / total
            longitudes[best] += (lon - longitudes[best]) * w / total
            weights[best] = total
            return best
        }
        guard latitudes.count < maximumPlaces else { return nil }
        latitudes.append(lat)
        longitudes.append(lon)
        weights.append(w)
        return latitudes.count - 1
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
