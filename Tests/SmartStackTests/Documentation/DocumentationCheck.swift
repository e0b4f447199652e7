import Foundation

/// The documentation catalog stays true: every ``symbol`` link names a public symbol of the
/// module and every <doc:Article> link an article of the catalog (what `swift package
/// generate-documentation` would warn about, checked without it).
enum DocumentationCheck {
    /// One file of a catalog: its repository-relative path and text.
    struct Page {
        var path: String
        var text: String
    }

    /// The Markdown files of `Sources/<module>/<module>.docc`.
    static func catalog(of module: String) throws -> [Page] {
        let folder = LayerCheck.root.appendingPathComponent("Sources/\(module)/\(module).docc")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }.sorted().map {
            Page(path: "Sources/\(module)/\(module).docc/\($0)",
                 text: try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// Every broken link of the catalog as `path:line: what`.
    static func brokenLinks(_ pages: [Page], module: String, symbols: SymbolIndex) -> [String] {
        let articles = Set(pages.map { URL(fileURLWithPath: $0.path).deletingPathExtension().lastPathComponent })
        var findings: [String] = []
        for page in pages {
            var inCode = false
            for (number, line) in page.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.hasPrefix("```") { inCode.toggle(); continue }
                guard !inCode else { continue }
                for link in delimited(String(line), open: "``", close: "``") where !symbols.resolves(link, module: module) {
                    findings.append("\(page.path):\(number + 1): ``\(link)`` does not name a public symbol of \(module)")
                }
                for article in delimited(String(line), open: "<doc:", close: ">") where !articles.contains(article) {
                    findings.append("\(page.path):\(number + 1): <doc:\(article)> names no article of the catalog")
                }
            }
        }
        return findings
    }

    /// The texts between `open` and `close`, left to right.
    static func delimited(_ line: String, open: String, close: String) -> [String] {
        var found: [String] = []
        var rest = line[...]
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            found.append(String(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// The lines of the Swift file `path` between the lines ending `// <marker>: begin` and
    /// `// <marker>: end`, without the 8 spaces of a method body's indentation: the code a test
    /// runs, to compare with the code a document shows.
    static func markedCode(inFile path: String, marker: String) throws -> [String]? {
        let lines = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let begin = lines.firstIndex(where: { $0.hasSuffix("// \(marker): begin") }),
              let end = lines.firstIndex(where: { $0.hasSuffix("// \(marker): end") }), begin < end else { return nil }
        let indent = String(repeating: " ", count: 8)
        return lines[(begin + 1)..<end].map { $0.hasPrefix(indent) ? String($0.dropFirst(8)) : $0 }
    }

    /// The code of the first ```swift block of `text`, lines as written.
    static func firstSwiftBlock(_ text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "```swift"),
              let end = lines[(start + 1)...].firstIndex(of: "```") else { return [] }
        return Array(lines[(start + 1)..<end])
    }
}
