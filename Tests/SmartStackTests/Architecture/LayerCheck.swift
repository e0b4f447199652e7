import Foundation

/// The rule of ARCHITECTURE.md, checked on the sources: within a module, a folder never uses a
/// type declared in a folder above it. The order of each module's folders is read from the
/// `layers` lines of ARCHITECTURE.md, so adding a module or a folder there is all it takes.
enum LayerCheck {
    /// One module's folders, lowest layer first.
    struct Layering: Equatable {
        var module: String
        var folders: [String]
    }

    /// The layer orders written in ARCHITECTURE.md as `layers Module: Lowest → ... → Highest`.
    static func layerings(architecture text: String) -> [Layering] {
        text.split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("layers "), let colon = trimmed.firstIndex(of: ":") else { return nil }
            let module = trimmed[trimmed.index(trimmed.startIndex, offsetBy: 7)..<colon].trimmingCharacters(in: .whitespaces)
            let folders = trimmed[trimmed.index(after: colon)...].components(separatedBy: "→")
                .map { $0.trimmingCharacters(in: .whitespaces) }
            return Layering(module: module, folders: folders)
        }
    }

    /// Every finding for one module, as `path:line: what`: a use of a type declared in a higher
    /// folder, or a Swift file outside the listed folders. `files` are the module's Swift files
    /// with paths `Sources/<module>/<folder>/...`.
    static func findings(_ layering: Layering, files: [SwiftSource]) -> [String] {
        let prefix = "Sources/\(layering.module)/"
        var layerOf: [String: Int] = [:]   // path → layer
        var findings: [String] = []
        for file in files {
            let relative = file.path.hasPrefix(prefix) ? String(file.path.dropFirst(prefix.count)) : file.path
            let parts = relative.split(separator: "/")
            guard parts.count > 1, let layer = layering.folders.firstIndex(of: String(parts[0])) else {
                findings.append("\(file.path):1: not in a folder of the layer order of \(layering.module) in ARCHITECTURE.md")
                continue
            }
            layerOf[file.path] = layer
        }
        var declared: [String: Int] = [:]   // type → layer declaring it
        for file in files {
            guard let layer = layerOf[file.path] else { continue }
            for name in file.topLevelTypes { declared[name] = layer }
        }
        for file in files {
            guard let layer = layerOf[file.path] else { continue }
            for token in file.identifiers where !token.isMember {
                guard let above = declared[token.name], above > layer else { continue }
                findings.append("\(file.path):\(token.line): \(layering.folders[layer]) uses \(token.name), "
                                + "declared in \(layering.folders[above]), a higher layer")
            }
        }
        return findings
    }

    /// The repository's root (the folder holding `Package.swift`), from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift files under `Sources/<module>`, with repository-relative paths.
    static func sources(of module: String) throws -> [SwiftSource] {
        let folder = root.appendingPathComponent("Sources/\(module)")
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var files: [SwiftSource] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8)
            files.append(SwiftSource(path: "Sources/\(module)/\(relative)", text: text))
        }
        return files.sorted { $0.path < $1.path }
    }
}
