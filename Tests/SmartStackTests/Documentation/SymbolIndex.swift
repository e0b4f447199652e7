/// The public symbols a module's sources declare, as DocC writes links to them:
/// `Engine`, `Engine/erase(app:)`, `EngineError/Kind/unknownStack`, `RotationParameters/swipeHold`.
/// Read from the text of the sources (comments and strings blanked), not from the compiler: a
/// declaration starts its line, and members on the line of their type's opening brace are not
/// seen (the house style never writes public ones there).
struct SymbolIndex {
    /// Every public symbol's path, functions with their argument labels (`init(path:policy:)`).
    private(set) var paths: Set<String> = []

    init(_ files: [SwiftSource]) {
        for file in files { index(file) }
    }

    /// Whether ``link`` (without the backquotes) names a public symbol of `module`.
    func resolves(_ link: String, module: String) -> Bool {
        link == module || paths.contains(link)
    }

    private static let typeKeywords: Set = ["struct", "class", "enum", "protocol", "actor", "typealias"]
    private static let memberKeywords: Set = ["func", "var", "let", "case", "init", "subscript"]
    private static let modifiers: Set = [
        "public", "package", "internal", "private", "fileprivate", "open", "final", "static", "mutating",
        "nonmutating", "override", "convenience", "required", "indirect", "nonisolated", "lazy", "weak", "consuming",
        "borrowing", "dynamic", "isolated",
    ]

    private mutating func index(_ file: SwiftSource) {
        let lines = file.codeLines
        // Open scopes: the symbol path of each type or extension body and the brace depth inside it,
        // and whether its members are public by default (enum cases and protocol requirements of a
        // public type).
        var scopes: [(path: String, depth: Int, isPublic: Bool, membersArePublic: Bool)] = []
        var depth = 0
        var n = 0
        while n < lines.count {
            let line = lines[n]
            while let last = scopes.last, depth < last.depth { scopes.removeLast() }
            let enclosing = scopes.last.flatMap { $0.depth == depth ? $0 : nil }
            if depth == 0 || enclosing != nil {
                let words = Self.words(line)
                var k = 0
                while k < words.count && (Self.modifiers.contains(words[k]) || words[k].hasPrefix("@")) { k += 1 }
                // `class func` (a class member) is a member, `class Name` a type.
                if k + 1 < words.count, words[k] == "class", ["func", "var", "let", "subscript"].contains(words[k + 1]) { k += 1 }
                let isPublic = words[..<k].contains("public") || words[..<k].contains("open")
                if k < words.count {
                    let keyword = words[k]
                    if (Self.typeKeywords.contains(keyword) || keyword == "extension"), k + 1 < words.count {
                        let name = words[k + 1]
                        let path: String
                        let visible: Bool
                        if keyword == "extension" {
                            path = name.replacingOccurrences(of: ".", with: "/")
                            visible = true
                        } else {
                            path = enclosing.map { "\($0.path)/\(name)" } ?? name
                            visible = isPublic && (enclosing?.isPublic ?? true)
                            if visible { paths.insert(path) }
                        }
                        if line.contains("{") || keyword != "typealias" {
                            scopes.append((path, depth + 1, visible, visible && (keyword == "enum" || keyword == "protocol")))
                        }
                    } else if let scope = enclosing, Self.memberKeywords.contains(keyword), scope.isPublic,
                              isPublic || scope.membersArePublic {
                        for name in Self.members(keyword: keyword, words: words, from: k, lines: lines, at: n) {
                            paths.insert("\(scope.path)/\(name)")
                        }
                    }
                }
            }
            for c in line { if c == "{" { depth += 1 } else if c == "}" { depth -= 1 } }
            n += 1
        }
    }

    /// The names a member declaration introduces, functions with their labels.
    private static func members(keyword: String, words: [String], from k: Int, lines: [String], at n: Int) -> [String] {
        switch keyword {
        case "case":
            // `case a, b = 2, c(x: Int)`: every name after `case` at the top level of the list.
            let text = lines[n][lines[n].range(of: "case")!.upperBound...]
            return topLevelParts(String(text)).compactMap { part in
                part.split(whereSeparator: { !($0 == "_" || $0.isLetter || $0.isNumber) }).first.map(String.init)
            }
        case "var", "let":
            return k + 1 < words.count ? [words[k + 1]] : []
        default:
            // `func name(a b: T, _ c: U)`, `init(...)`, `subscript(...)`: the labels of the parameter list.
            let name = keyword == "func" ? (k + 1 < words.count ? words[k + 1] : "") : keyword
            var text = ""
            var m = n
            while m < lines.count {
                text += lines[m] + " "
                if let open = text.firstIndex(of: "("), balanced(text[open...]) { break }
                m += 1
            }
            guard let open = text.firstIndex(of: "("), let close = closing(text, from: open) else { return [name] }
            let labels = topLevelParts(String(text[text.index(after: open)..<close])).compactMap { parameter -> String? in
                let names = parameter.split(separator: ":", maxSplits: 1).first?.split(separator: " ") ?? []
                return names.first.map { String($0).trimmingCharacters(in: .whitespaces) }
            }.filter { !$0.isEmpty }
            return ["\(name)(\(labels.map { $0 + ":" }.joined()))"]
        }
    }

    private static func words(_ line: String) -> [String] {
        line.split(whereSeparator: { !($0 == "_" || $0 == "@" || $0 == "." || $0.isLetter || $0.isNumber) })
            .map(String.init).filter { $0 != "." }
    }

    private static func balanced(_ text: Substring) -> Bool {
        var depth = 0
        for c in text { if c == "(" { depth += 1 } else if c == ")" { depth -= 1; if depth == 0 { return true } } }
        return false
    }

    private static func closing(_ text: String, from open: String.Index) -> String.Index? {
        var depth = 0
        var i = open
        while i < text.endIndex {
            if text[i] == "(" { depth += 1 } else if text[i] == ")" { depth -= 1; if depth == 0 { return i } }
            i = text.index(after: i)
        }
        return nil
    }

    /// `text` split at commas outside parentheses, brackets and angle brackets.
    private static func topLevelParts(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var previous: Character = " "
        for c in text {
            // The `>` of an arrow (`->`) closes nothing.
            if "([<".contains(c) { depth += 1 } else if ")]".contains(c) || c == ">" && previous != "-" { depth -= 1 }
            if c == "," && depth == 0 { parts.append(current); current = "" } else { current.append(c) }
            previous = c
        }
        parts.append(current)
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
