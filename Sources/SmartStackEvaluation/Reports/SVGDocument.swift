import Foundation

/// A small writer of inline SVG for the charts of `report.html`: shapes with optional tooltips
/// (`<title>`), text, and a document wrapper with an accessible title and description.
///
/// Every string that reaches the output goes through `SVGDocument.escape`, so names containing
/// `<`, `&` or quotes cannot break the page. Coordinates are written with one decimal.
///
/// ```swift
/// var svg = SVGDocument(width: 400, height: 200)
/// svg.circle(cx: 20, cy: 20, r: 4, fill: "#0072B2", tooltip: "frecency: 0.412")
/// let markup = svg.render(id: "chart1", title: "hit@1", description: "One dot per policy.")
/// ```
struct SVGDocument {
    /// The width of the view box (the chart scales to the page width).
    let width: Double
    /// The height of the view box.
    let height: Double
    /// The markup of the shapes added so far.
    private(set) var body = ""

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Escapes text for XML/HTML content and attribute values.
    ///
    /// - Complexity: O(length of `text`).
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            // Control characters other than tab and newline are not allowed in XML.
            case "\t", "\n": out.unicodeScalars.append(c)
            default:
                if c.value < 0x20 || c.value == 0x7F { out += "\u{FFFD}" } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }

    /// A coordinate or length with one decimal (`12`, `12.5`), never `nan`.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        let r = (v * 10).rounded() / 10
        if r == r.rounded() { return String(Int(r)) }
        return String(format: "%.1f", r)
    }

    private static func attributes(_ pairs: [(String, String?)]) -> String {
        var out = ""
        for (k, v) in pairs {
            guard let v else { continue }
            out += " \(k)=\"\(escape(v))\""
        }
        return out
    }

    private mutating func element(_ name: String, _ attrs: [(String, String?)], tooltip: String?) {
        body += "<\(name)\(Self.attributes(attrs))"
        if let tooltip {
            body += "><title>\(Self.escape(tooltip))</title></\(name)>\n"
        } else {
            body += "/>\n"
        }
    }

    /// A straight line.
    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, strokeWidth: Double = 1,
                       dash: String? = nil, cssClass: String? = nil, tooltip: String? = nil) {
        element("line", [("x1", Self.number(x1)), ("y1", Self.number(y1)), ("x2", Self.number(x2)), ("y2", Self.number(y2)),
                         ("stroke", stroke), ("stroke-width", Self.number(strokeWidth)), ("stroke-dasharray", dash),
                         ("class", cssClass)], tooltip: tooltip)
    }

    /// A rectangle (negative sizes are clamped to zero).
    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String? = nil,
                       rx: Double? = nil, opacity: Double? = nil, cssClass: String? = nil, tooltip: String? = nil) {
        element("rect", [("x", Self.number(x)), ("y", Self.number(y)), ("width", Self.number(max(0, width))),
                         ("height", Self.number(max(0, height))), ("rx", rx.map(Self.number)), ("fill", fill), ("stroke", stroke),
                         ("fill-opacity", opacity.map { String(format: "%.2f", $0) }), ("class", cssClass)], tooltip: tooltip)
    }

    /// A circle.
    mutating func circle(cx: Double, cy: Double, r: Double, fill: String, stroke: String? = nil, strokeWidth: Double? = nil,
                         tooltip: String? = nil) {
        element("circle", [("cx", Self.number(cx)), ("cy", Self.number(cy)), ("r", Self.number(r)), ("fill", fill),
                           ("stroke", stroke), ("stroke-width", strokeWidth.map(Self.number))], tooltip: tooltip)
    }

    /// A closed polygon (markers such as diamonds).
    mutating func polygon(_ points: [(Double, Double)], fill: String, stroke: String? = nil, tooltip: String? = nil) {
        let p = points.map { "\(Self.number($0.0)),\(Self.number($0.1))" }.joined(separator: " ")
        element("polygon", [("points", p), ("fill", fill), ("stroke", stroke)], tooltip: tooltip)
    }

    /// An open line through `points` (nothing when fewer than two).
    mutating func polyline(_ points: [(Double, Double)], stroke: String, strokeWidth: Double = 2, dash: String? = nil,
                           tooltip: String? = nil) {
        guard points.count >= 2 else { return }
        let p = points.map { "\(Self.number($0.0)),\(Self.number($0.1))" }.joined(separator: " ")
        element("polyline", [("points", p), ("fill", "none"), ("stroke", stroke), ("stroke-width", Self.number(strokeWidth)),
                             ("stroke-dasharray", dash), ("stroke-linejoin", "round")], tooltip: tooltip)
    }

    /// Text anchored at (`x`, `y`): `anchor` is `start`, `middle` or `end`; `rotate` in degrees
    /// around the anchor point.
    mutating func text(_ string: String, x: Double, y: Double, anchor: String = "start", cssClass: String? = nil,
                       rotate: Double? = nil, fill: String? = nil) {
        let transform = rotate.map { "rotate(\(Self.number($0)) \(Self.number(x)) \(Self.number(y)))" }
        body += "<text\(Self.attributes([("x", Self.number(x)), ("y", Self.number(y)), ("text-anchor", anchor), ("class", cssClass), ("fill", fill), ("transform", transform)]))>"
        body += Self.escape(string) + "</text>\n"
    }

    /// Opens a group (`<g>`), e.g. to give a set of marks one tooltip; close with `endGroup()`.
    mutating func beginGroup(cssClass: String? = nil, tooltip: String? = nil) {
        body += "<g\(Self.attributes([("class", cssClass)]))>"
        if let tooltip { body += "<title>\(Self.escape(tooltip))</title>" }
        body += "\n"
    }

    /// Closes the group opened last.
    mutating func endGroup() { body += "</g>\n" }

    /// The `<svg>` element: scales to the width of its container, announces itself as an image
    /// with `title` and `description` to screen readers.
    ///
    /// - Complexity: O(size of the body).
    func render(id: String, title: String, description: String) -> String {
        let idAttr = Self.escape(id)
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\""
        out += " width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" preserveAspectRatio=\"xMidYMid meet\""
        out += " role=\"img\" aria-labelledby=\"\(idAttr)-title \(idAttr)-desc\" class=\"chart\">\n"
        out += "<title id=\"\(idAttr)-title\">\(Self.escape(title))</title>\n"
        out += "<desc id=\"\(idAttr)-desc\">\(Self.escape(description))</desc>\n"
        out += body
        out += "</svg>\n"
        return out
    }
}
