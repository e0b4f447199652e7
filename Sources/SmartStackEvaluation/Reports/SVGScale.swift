import Foundation

/// A linear map from data values to chart coordinates, with "nice" tick values (1, 2, 2.5 or 5
/// times a power of ten) for the axis.
///
/// ```swift
/// let y = SVGScale(domain: 0...1, range: 300...20)   // inverted: larger values higher up
/// y(0.5)             // 160
/// y.ticks(count: 5)  // [0, 0.2, 0.4, 0.6, 0.8, 1]
/// ```
struct SVGScale {
    /// The data interval shown.
    let lower: Double
    /// The upper end of the data interval.
    let upper: Double
    /// The coordinate of `lower`.
    let start: Double
    /// The coordinate of `upper`.
    let end: Double

    /// A scale mapping `domain` onto `range` (`range.0` for the lower end, which may be larger
    /// than `range.1`). An empty domain is widened by one unit so the map stays defined.
    init(domain: (Double, Double), range: (Double, Double)) {
        var lo = domain.0.isFinite ? domain.0 : 0
        var hi = domain.1.isFinite ? domain.1 : 1
        if lo > hi { swap(&lo, &hi) }
        if hi - lo < 1e-12 { lo -= 0.5; hi += 0.5 }
        lower = lo
        upper = hi
        start = range.0
        end = range.1
    }

    /// The coordinate of `value` (values outside the domain extend the line beyond the range).
    func callAsFunction(_ value: Double) -> Double {
        start + (value - lower) / (upper - lower) * (end - start)
    }

    /// The coordinate of `value` clamped into the range.
    func clamped(_ value: Double) -> Double {
        callAsFunction(min(max(value, lower), upper))
    }

    /// A step of 1, 2, 2.5 or 5 times a power of ten giving about `count` intervals over the span.
    static func niceStep(span: Double, count: Int) -> Double {
        guard span > 0, span.isFinite, count > 0 else { return 1 }
        let raw = span / Double(count)
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        for factor in [1.0, 2, 2.5, 5, 10] where factor * magnitude >= raw * 0.999 {
            return factor * magnitude
        }
        return 10 * magnitude
    }

    /// The nice domain enclosing `lo...hi` (ends rounded out to the tick step) — use it to build
    /// a scale whose ends fall on ticks.
    static func niceDomain(_ lo: Double, _ hi: Double, count: Int = 5) -> (Double, Double) {
        var lo = lo.isFinite ? lo : 0
        var hi = hi.isFinite ? hi : 1
        if lo > hi { swap(&lo, &hi) }
        if hi - lo < 1e-12 {
            let pad = abs(lo) > 1e-12 ? abs(lo) * 0.1 : 1
            lo -= pad; hi += pad
        }
        let step = niceStep(span: hi - lo, count: count)
        return ((lo / step).rounded(.down) * step, (hi / step).rounded(.up) * step)
    }

    /// Tick values inside the domain, about `count` intervals apart.
    ///
    /// - Complexity: O(count).
    func ticks(count: Int = 5) -> [Double] {
        let step = Self.niceStep(span: upper - lower, count: count)
        var v = (lower / step).rounded(.up) * step
        var out: [Double] = []
        while v <= upper + step * 1e-9, out.count < 100 {
            out.append(abs(v) < step * 1e-9 ? 0 : v)
            v += step
        }
        return out
    }

    /// A tick label with as many decimals as the tick step needs.
    func label(_ value: Double, count: Int = 5) -> String {
        let step = Self.niceStep(span: upper - lower, count: count)
        var decimals = 0
        var s = step
        while decimals < 6, abs(s - s.rounded()) > 1e-9 { s *= 10; decimals += 1 }
        return String(format: "%.\(decimals)f", value)
    }
}

/// Colours of the charts: a colour-blind-safe set for policies (Okabe–Ito) and a lighter set
/// for widgets, assigned in a stable order.
enum SVGPalette {
    /// Policy colours, distinguishable with the common colour-vision deficiencies.
    static let policies = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255", "#44AA99", "#999933", "#332288"]
    /// The colour of the oracle (the ceiling, drawn dashed).
    static let oracle = "#555555"
    /// Widget colours: Paul Tol's "bright" scheme first (the most distinct), then further
    /// distinct hues; grey last so it is not mistaken for an empty lane early on.
    static let widgets = ["#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#EE7733", "#009988",
                          "#332288", "#FFAABB", "#999933", "#882255", "#99DDFF", "#DDCC77", "#117733", "#BBBBBB"]
    /// Axis and grid colours.
    static let axis = "#444444"
    /// The grid lines' colour.
    static let grid = "#E3E3E3"

    /// The colour of the `index`-th policy (cycling through the set).
    static func policy(_ index: Int) -> String { policies[index % policies.count] }

    /// The colour of the `index`-th widget (cycling through the set).
    static func widget(_ index: Int) -> String { widgets[index % widgets.count] }
}
