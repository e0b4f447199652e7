import Foundation
import Testing
@testable import SmartStack

/// The clusterer's pruned search must give exactly what a scan of every place in order gives:
/// the same place for every fix, hence the same centres, weights and numbering.
@Suite struct PlaceClustererTests {
    /// The plain O(places) scan, kept as the reference: nearest by the same arithmetic, the
    /// first (lowest-numbered) among equals.
    struct Reference {
        var radius = 150.0, maximumAccuracy = 250.0, maximumPlaces = 200
        var latitudes: [Double] = [], longitudes: [Double] = [], weights: [Double] = []

        mutating func assign(lat: Double, lon: Double, accuracy: Double?) -> Int? {
            guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else { return nil }
            if let a = accuracy, !(a <= maximumAccuracy) { return nil }
            let w = accuracy.map { min(1, 50 / max($0, 1)) } ?? 1
            var best = -1
            var bestDistance = Double.infinity
            let scale = cos(lat * .pi / 180)
            for i in latitudes.indices {
                var dl = (longitudes[i] - lon) * .pi / 180
                if dl > .pi { dl -= 2 * .pi } else if dl < -.pi { dl += 2 * .pi }
                let x = dl * scale, y = (latitudes[i] - lat) * .pi / 180
                let d = x * x + y * y
                if d < bestDistance { bestDistance = d; best = i }
            }
            if best >= 0, PlaceClusterer.distance(latitudes[best], longitudes[best], lat, lon) <= radius {
                let total = weights[best] + w
                latitudes[best] += (lat - latitudes[best]) * w / total
                longitudes[best] += (lon - longitudes[best]) * w / total
                weights[best] = total
                return best
            }
            guard latitudes.count < maximumPlaces else { return nil }
            latitudes.append(lat); longitudes.append(lon); weights.append(w)
            return latitudes.count - 1
        }
    }

    /// A small deterministic generator (tests never use a global random source).
    struct LCG {
        var state: UInt64
        mutating func unit() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    /// Fixes scattered around `centres` with noise of up to `spread` degrees, some coarse,
    /// some without accuracy, some repeated exactly (ties).
    static func fixes(centres: [(Double, Double)], spread: Double, count: Int, seed: UInt64) -> [(Double, Double, Double?)] {
        var g = LCG(state: seed)
        var out: [(Double, Double, Double?)] = []
        for k in 0..<count {
            if k > 0 && g.unit() < 0.1 { out.append(out[Int(g.unit() * Double(out.count))]); continue }
            let (lat, lon) = centres[Int(g.unit() * Double(centres.count))]
            var fixLon = lon + (g.unit() - 0.5) * spread
            if fixLon > 180 { fixLon -= 360 } else if fixLon < -180 { fixLon += 360 }
            let accuracy: Double? = g.unit() < 0.2 ? nil : 5 + g.unit() * 300
            out.append((max(-90, min(90, lat + (g.unit() - 0.5) * spread)), fixLon, accuracy))
        }
        return out
    }

    func expectSameAsReference(_ fixes: [(Double, Double, Double?)], maximumPlaces: Int = 200) {
        var clusterer = PlaceClusterer()
        clusterer.maximumPlaces = maximumPlaces
        var reference = Reference()
        reference.maximumPlaces = maximumPlaces
        for (n, (lat, lon, accuracy)) in fixes.enumerated() {
            let got = clusterer.assign(lat: lat, lon: lon, accuracy: accuracy)
            let want = reference.assign(lat: lat, lon: lon, accuracy: accuracy)
            guard got == want else {
                Issue.record("fix \(n) (\(lat), \(lon), \(String(describing: accuracy))): place \(String(describing: got)), reference \(String(describing: want))")
                return
            }
        }
        #expect(clusterer.latitudes == reference.latitudes)
        #expect(clusterer.longitudes == reference.longitudes)
        #expect(clusterer.weights == reference.weights)
    }

    @Test func aCityOfPlacesMatchesTheFullScan() {
        // Dense noisy fixes around a dozen places 200 m – 5 km apart: many nearby candidates.
        let centres: [(Double, Double)] = (0..<12).map { (i: Int) -> (Double, Double) in
            let lat: Double = 40.7 + Double(i % 4) * 0.01
            let lon: Double = -74.0 + Double(i / 4) * 0.02
            return (lat, lon)
        }
        expectSameAsReference(Self.fixes(centres: centres, spread: 0.01, count: 20_000, seed: 1))
    }

    @Test func theDateLineThePolesAndTheCapMatchTheFullScan() {
        let centres = [(0.0, 179.999), (0.0, -179.999), (89.999, 0.0), (-89.999, 45.0), (10.0, 10.0)]
        expectSameAsReference(Self.fixes(centres: centres, spread: 0.004, count: 10_000, seed: 2))
        // Far-flung fixes fill the place limit; later ones belong to no place.
        expectSameAsReference(Self.fixes(centres: [(0, 0)], spread: 170, count: 3_000, seed: 3), maximumPlaces: 50)
    }

    @Test func equidistantPlacesGoToTheLowestNumbered() {
        // Two places half a degree apart on one meridian (radius 30 km, so each founds its own
        // place), then a fix exactly between them: 0.25° each way, the same distance bit for
        // bit. The place above it is met first by the search; the lower number must win.
        var clusterer = PlaceClusterer()
        clusterer.radius = 30_000
        var reference = Reference()
        reference.radius = 30_000
        for (lat, place) in [(10.0, 0), (10.5, 1)] {
            #expect(clusterer.assign(lat: lat, lon: 20, accuracy: nil) == place)
            _ = reference.assign(lat: lat, lon: 20, accuracy: nil)
        }
        #expect(reference.assign(lat: 10.25, lon: 20, accuracy: nil) == 0)
        #expect(clusterer.assign(lat: 10.25, lon: 20, accuracy: nil) == 0)
        #expect(clusterer.latitudes == reference.latitudes)
    }

    @Test func aRestoredClustererContinuesExactlyAsTheOriginal() throws {
        let centres: [(Double, Double)] = (0..<6).map { (i: Int) -> (Double, Double) in
            let lat: Double = 51.5 + Double(i) * 0.003
            let lon: Double = -0.12 + Double(i % 3) * 0.004
            return (lat, lon)
        }
        let all = Self.fixes(centres: centres, spread: 0.006, count: 4_000, seed: 4)
        var original = PlaceClusterer()
        for (lat, lon, accuracy) in all.prefix(2_000) { _ = original.assign(lat: lat, lon: lon, accuracy: accuracy) }
        var restored = try SnapshotCoder.decode(PlaceClusterer.self, from: SnapshotCoder.encode(original))
        #expect(restored == original)
        for (lat, lon, accuracy) in all.dropFirst(2_000) {
            #expect(restored.assign(lat: lat, lon: lon, accuracy: accuracy) == original.assign(lat: lat, lon: lon, accuracy: accuracy))
        }
        #expect(restored == original)
    }

    // MARK: Fixes wider than a place

    /// Two places 700 m apart on a meridian (0.0063° of latitude), each seen `visits` times.
    static func twoPlaces(visits: Int = 10) -> PlaceClusterer {
        var c = PlaceClusterer()
        for _ in 0..<visits {
            _ = c.assign(lat: 45.0, lon: 7.0, accuracy: 20)
            _ = c.assign(lat: 45.0063, lon: 7.0, accuracy: 20)
        }
        return c
    }

    @Test func aCoarseFixNearOneKnownPlaceAndFarFromTheOthersNamesIt() throws {
        let c = Self.twoPlaces()
        // 150 m from place 0 with an 800 m error circle: the area ratio (150 / 800)² would call
        // it 3.5% likely; the known places make it more likely than not.
        let named = try #require(c.likeliestPlace(lat: 44.99865, lon: 7.0, accuracy: 800, current: -1, confidence: 0))
        #expect(named.place == 0)
        #expect(named.probability > 0.5)
        // Nothing known, nothing named.
        #expect(PlaceClusterer().likeliestPlace(lat: 45, lon: 7, accuracy: 800, current: -1, confidence: 0) == nil)
    }

    @Test func aCoarseFixBetweenTwoKnownPlacesNamesNeitherUnlessThePersonIsAtOne() throws {
        let c = Self.twoPlaces()
        let between = try #require(
            c.likeliestPlace(lat: 45.00315, lon: 7.0, accuracy: 1000, current: -1, confidence: 0))
        #expect(between.probability < 0.5)
        // The same fix while a visit at place 1 is still likely: it confirms that visit.
        let held = try #require(c.likeliestPlace(lat: 45.00315, lon: 7.0, accuracy: 1000, current: 1, confidence: 0.9))
        #expect(held.place == 1)
        #expect(held.probability > 0.9)
    }

    @Test func aCoarseFixFarFromEveryKnownPlaceIsElsewhere() throws {
        let c = Self.twoPlaces()
        // 5 km away with a 500 m circle: no known place explains it, not even the visit in force.
        let far = c.likeliestPlace(lat: 45.045, lon: 7.0, accuracy: 500, current: 0, confidence: 0.5)
        #expect((far?.probability ?? 0) < 0.01)
        // 600 m from place 0 with the same circle: within reach, it is weighed.
        let near = try #require(c.likeliestPlace(lat: 44.9946, lon: 7.0, accuracy: 500, current: 0, confidence: 0.5))
        #expect(near.place == 0)
    }
}
