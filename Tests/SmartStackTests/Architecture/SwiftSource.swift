/// A Swift source file read as text for the architecture checks: its code with comments and
/// string literals blanked out (interpolations kept), and the names it declares and uses.
struct SwiftSource {
    /// The path shown in findings, relative to the repository.
    var path: String
    /// The text as written.
    var text: String

    /// One identifier of the code, with its 1-based line.
    struct Token: Equatable {
        var name: String
        var line: Int
        /// Whether a `.` comes right before it (a member, not a type used on its own).
        var isMember: Bool
    }

    /// The code's identifiers in order, outside comments and string literals (but inside string
    /// interpolations, which are code).
    var identifiers: [Token] {
        var tokens: [Token] = []
        for (number, line) in codeLines.enumerated() {
            let chars = Array(line.unicodeScalars)
            var i = 0
            var previous: Unicode.Scalar = " "
            while i < chars.count {
                let c = chars[i]
                if c == "_" || c.properties.isAlphabetic {
                    var k = i
                    while k < chars.count && (chars[k] == "_" || chars[k].properties.isAlphabetic || ("0"..."9").contains(chars[k])) { k += 1 }
                    var name = ""
                    name.unicodeScalars.append(contentsOf: chars[i..<k])
                    tokens.append(Token(name: name, line: number + 1, isMember: previous == "."))
                    previous = "a"
                    i = k
                    continue
                }
                if ("0"..."9").contains(c) {
                    // A number (or a tuple index after a dot): skip its digits and letters.
                    while i < chars.count && (chars[i].properties.isAlphabetic || ("0"..."9").contains(chars[i]) || chars[i] == "_") { i += 1 }
                    previous = "0"
                    continue
                }
                if c != " " && c != "\t" { previous = c }
                i += 1
            }
        }
        return tokens
    }

    /// The types this file declares at top level (`struct`, `class`, `enum`, `protocol`,
    /// `actor`, `typealias` outside any other declaration's braces).
    var topLevelTypes: [String] {
        var names: [String] = []
        var depth = 0
        let keywords: Set = ["struct", "class", "enum", "protocol", "actor", "typealias"]
        for line in codeLines {
            if depth == 0 {
                let words = line.split(whereSeparator: { !($0 == "_" || $0.isLetter || $0.isNumber) }).map(String.init)
                if let k = words.firstIndex(where: keywords.contains), k + 1 < words.count,
                   !["func", "var", "let"].contains(words[k + 1]) {
                    names.append(words[k + 1])
                }
            }
            for c in line { if c == "{" { depth += 1 } else if c == "}" { depth -= 1 } }
        }
        return names
    }

    /// The text line by line with comments and string literals' text replaced by spaces.
    var codeLines: [String] {
        var out = ""
        let chars = Array(text.unicodeScalars)
        var i = 0
        var strings: [(multiline: Bool, hashes: Int, depth: Int?)] = []
        func at(_ k: Int) -> Unicode.Scalar? { k < chars.count ? chars[k] : nil }
        func blank(_ c: Unicode.Scalar) { out.unicodeScalars.append(c == "\n" ? "\n" : " ") }
        while i < chars.count {
            let c = chars[i]
            if let open = strings.last, open.depth == nil {
                if c == "\\" {
                    var k = i + 1, hashes = 0
                    while at(k) == "#" && hashes < open.hashes { hashes += 1; k += 1 }
                    if hashes == open.hashes && at(k) == "(" {
                        strings[strings.count - 1].depth = 1
                        for _ in i...k { out.unicodeScalars.append(" ") }
                        i = k + 1
                        continue
                    }
                    blank(c); if let n = at(i + 1) { blank(n) }
                    i += 2
                    continue
                }
                let quotes = open.multiline ? 3 : 1
                if c == "\"" && (0..<quotes).allSatisfy({ at(i + $0) == "\"" })
                    && (0..<open.hashes).allSatisfy({ at(i + quotes + $0) == "#" }) {
                    strings.removeLast()
                    for _ in 0..<(quotes + open.hashes) { out.unicodeScalars.append(" ") }
                    i += quotes + open.hashes
                    continue
                }
                blank(c)
                i += 1
                continue
            }
            if c == "/" && at(i + 1) == "/" {
                while i < chars.count && chars[i] != "\n" { out.unicodeScalars.append(" "); i += 1 }
                continue
            }
            if c == "/" && at(i + 1) == "*" {
                var depth = 1
                blank(c); blank("*")
                i += 2
                while i < chars.count && depth > 0 {
                    if chars[i] == "/" && at(i + 1) == "*" { depth += 1; blank("/"); blank("*"); i += 2 }
                    else if chars[i] == "*" && at(i + 1) == "/" { depth -= 1; blank("*"); blank("/"); i += 2 }
                    else { blank(chars[i]); i += 1 }
                }
                continue
            }
            if c == "#" || c == "\"" {
                var k = i, hashes = 0
                while at(k) == "#" { hashes += 1; k += 1 }
                if at(k) == "\"" {
                    let multiline = at(k + 1) == "\"" && at(k + 2) == "\""
                    strings.append((multiline, hashes, nil))
                    let end = k + (multiline ? 3 : 1)
                    for _ in i..<end { out.unicodeScalars.append(" ") }
                    i = end
                    continue
                }
            }
            if let open = strings.last, let depth = open.depth {
                if c == "(" { strings[strings.count - 1].depth = depth + 1 }
                if c == ")" {
                    strings[strings.count - 1].depth = depth == 1 ? nil : depth - 1
                    if depth == 1 { out.unicodeScalars.append(" "); i += 1; continue }
                }
            }
            out.unicodeScalars.append(c)
            i += 1
        }
        return out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
