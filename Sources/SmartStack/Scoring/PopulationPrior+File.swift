import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Reading and writing a population prior's file (`Datasets/PRIOR-FORMAT.md`): a header line, one
// line per widget and per app, a trailer that says how many there were (a file cut short is
// refused), each line one JSON object read with the event format's scanner.

extension PopulationPrior {
    /// Reads a prior file.
    ///
    /// ```swift
    /// let prior = try PopulationPrior(contentsOfFile: "prior.jsonl")
    /// print(prior)   // population prior of 10 widget(s) and 14 app(s) from 40 people (...)
    /// ```
    /// - Throws: ``EngineError`` of kind ``EngineError/Kind/invalidPrior``, naming the file, line,
    ///   column and field: a file that cannot be read, is larger than ``maximumFileBytes``, is cut
    ///   short, comes from a newer version, or holds a negative, non-finite or out-of-range value.
    /// - Complexity: O(size of the file).
    public init(contentsOfFile path: String) throws(EngineError) {
        try self.init(parsing: try Self.contents(of: path), name: path)
    }

    /// The bytes of the file at `path`, read with `read(2)` (a host reads its prior at start, and
    /// Foundation's file classes cost more to set up than a prior costs to read); its size is
    /// checked before reading, and the reading stops one byte past the limit.
    private static func contents(of path: String) throws(EngineError) -> [UInt8] {
        func failure(_ code: Int32) -> EngineError {
            let reason = code == ENOENT ? "no such file" : code == EACCES ? "permission denied" : String(cString: strerror(code))
            return EngineError(.invalidPrior, "cannot read the prior file '\(path)': \(reason)")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno) }
        defer { _ = close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(errno) }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            throw EngineError(.invalidPrior, "cannot read the prior file '\(path)': it is a directory")
        }
        if Int(status.st_size) > maximumFileBytes { throw tooLarge(path, Int(status.st_size)) }
        var bytes = [UInt8](repeating: 0, count: max(Int(status.st_size), 0) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                if count > maximumFileBytes { throw tooLarge(path, count) }
                bytes.append(contentsOf: repeatElement(0, count: min(count, maximumFileBytes + 1 - count) + 1))
            }
            let n = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            count += n
        }
        if count > maximumFileBytes { throw tooLarge(path, count) }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    private static func tooLarge(_ path: String, _ size: Int) -> EngineError {
        EngineError(.invalidPrior, "\(path): the prior file is \(size) bytes; a prior file holds at most "
                    + "\(maximumFileBytes) bytes (learn it with a higher --min-people or fewer widgets)")
    }

    /// Reads a prior from the bytes of a file; `name` names it in errors.
    /// - Throws: as ``init(contentsOfFile:)``.
    public init(parsing bytes: [UInt8], name: String) throws(EngineError) {
        if bytes.count > Self.maximumFileBytes { throw Self.tooLarge(name, bytes.count) }
        if bytes.starts(with: [0x1F, 0x8B]) {
            throw EngineError(.invalidPrior, "\(name): the prior file is gzip-compressed; decompress it first (gunzip)")
        }
        var reader = PriorFileReader(name: name)
        try bytes.withUnsafeBufferPointer { (all: UnsafeBufferPointer<UInt8>) throws(EngineError) in
            var start = 0
            var number = 0
            while start < all.count {
                var end = start
                while end < all.count && all[end] != 0x0A { end += 1 }
                number += 1
                var line = UnsafeBufferPointer(rebasing: all[start..<end])
                if line.last == 0x0D { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
                try reader.read(line, number: number)
                start = end + 1
            }
        }
        let header = try reader.finish()
        try self.init(checked: header.placeKinds, minimumPeople: header.minimumPeople, people: header.people,
                      shrinkage: header.shrinkage, entries: reader.entries, name: name, digest: Self.fnv1a64(bytes))
    }

    /// The file's text (`Datasets/PRIOR-FORMAT.md`), what ``init(parsing:name:)`` reads back.
    public var fileText: String {
        Self.text(of: entries, placeKinds: placeKinds, minimumPeople: minimumPeople, people: people, shrinkage: shrinkage)
    }

    /// The canonical text of a prior: header, widgets, apps, trailer.
    static func text(of entries: [Entry], placeKinds: [String], minimumPeople: Int, people: Int, shrinkage: Double) -> String {
        let widgets = entries.filter { $0.kind == .widget }.count, apps = entries.count - widgets
        var out = "{\"format\":\"\(format)\",\"version\":\(version),\"min_people\":\(minimumPeople),\"people\":\(people),"
            + "\"shrinkage\":\(number(shrinkage)),\"place_kinds\":[" + placeKinds.map(quoted).joined(separator: ",")
            + "],\"widgets\":\(widgets),\"apps\":\(apps)}\n"
        for e in entries {
            out += e.kind == .widget ? "{\"widget\":" + quoted(e.id) + ",\"app\":" + (e.app.map(quoted) ?? "null")
                : "{\"app\":" + quoted(e.id)
            out += ",\"people\":\(e.people),\"rate\":\(number(e.rate)),\"days\":" + array(e.days)
            out += ",\"parts\":[" + e.parts.map(array).joined(separator: ",") + "]"
            out += ",\"hours\":[" + e.hours.map(array).joined(separator: ",") + "]"
            out += ",\"places\":{"
            var first = true
            for (k, cells) in e.places.enumerated() {
                guard let cells else { continue }
                out += (first ? "" : ",") + quoted(placeKinds[k]) + ":[" + cells.map(array).joined(separator: ",") + "]"
                first = false
            }
            out += "}}\n"
        }
        out += "{\"end\":\"\(format)\",\"widgets\":\(widgets),\"apps\":\(apps)}\n"
        return out
    }

    private static func array(_ values: [Double?]) -> String {
        "[" + values.map { $0.map(number) ?? "null" }.joined(separator: ",") + "]"
    }

    /// Five significant digits: a lift or rate is an estimate, not a measurement to the last bit.
    private static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(format: "%.5g", v)
    }

    /// `s` as a JSON string, escaped as event lines are.
    private static func quoted(_ s: String) -> String { JSONLWriter.string(s) }
}

/// Reads a prior file line by line: the header, entries, the trailer; every problem names the
/// file, line, column and field.
private struct PriorFileReader {
    struct Header {
        var minimumPeople = 0, people = 0, shrinkage = 0.0, placeKinds: [String] = [], widgets = 0, apps = 0
    }

    let name: String
    var header: Header?
    var entries: [PopulationPrior.Entry] = []
    var trailerLine = 0
    var scratch: [UInt8] = []

    init(name: String) { self.name = name }

    private func fail(_ line: Int, _ offset: Int, _ text: String) -> EngineError {
        EngineError(.invalidPrior, "\(name):\(line):\(offset + 1): \(text)")
    }

    mutating func read(_ line: UnsafeBufferPointer<UInt8>, number: Int) throws(EngineError) {
        if trailerLine > 0 {
            guard line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else {
                throw fail(number, 0, "text after the trailer line (line \(trailerLine))")
            }
            return
        }
        var scanner: JSONScanner
        do { scanner = try JSONScanner(line: line) } catch {
            if error.message == "line is blank" { throw fail(number, 0, "blank line (every line is one JSON object)") }
            throw fail(number, error.offset, error.message)
        }
        var members: [(String, JSONMember)] = []
        do {
            while let m = try scanner.nextMember() { members.append((scanner.name(of: m.key), m)) }
        } catch {
            throw fail(number, error.offset, error.reachedEnd ? "the line is cut short: \(error.message)" : error.message)
        }
        var line = LineValues(scanner: scanner, members: members, number: number, name: name)
        if header == nil {
            header = try line.header()
        } else if line.has("end") {
            try line.trailer(expected: header!, entries: entries)
            trailerLine = number
        } else {
            entries.append(try line.entry(placeKinds: header!.placeKinds))
        }
    }

    func finish() throws(EngineError) -> Header {
        guard let header else { throw EngineError(.invalidPrior, "\(name): the prior file is empty") }
        guard trailerLine > 0 else {
            throw EngineError(.invalidPrior, "\(name): the prior file is cut short: no trailer line after \(entries.count) of the "
                              + "\(header.widgets + header.apps) widgets and apps its header announces")
        }
        return header
    }
}

/// The members of one line and typed reads of them, each failure naming the field.
private struct LineValues {
    let scanner: JSONScanner
    let members: [(String, JSONMember)]
    let number: Int
    let name: String
    var scratch: [UInt8] = []

    init(scanner: JSONScanner, members: [(String, JSONMember)], number: Int, name: String) {
        self.scanner = scanner; self.members = members; self.number = number; self.name = name
    }

    func fail(_ offset: Int, _ text: String) -> EngineError {
        EngineError(.invalidPrior, "\(name):\(number):\(offset + 1): \(text)")
    }

    func has(_ key: String) -> Bool { members.contains { $0.0 == key } }

    func member(_ key: String) -> JSONMember? { members.first { $0.0 == key }?.1 }

    /// Refuses keys not in `allowed` and keys given twice.
    func expectOnly(_ allowed: [String], what: String) throws(EngineError) {
        var seen: Set<String> = []
        for (key, m) in members {
            guard allowed.contains(key) else {
                throw fail(m.key.start, "unknown field '\(key)' in \(what) (fields: \(allowed.joined(separator: ", ")))")
            }
            guard seen.insert(key).inserted else { throw fail(m.key.start, "field '\(key)' is given twice") }
        }
    }

    func required(_ key: String, what: String) throws(EngineError) -> JSONMember {
        guard let m = member(key) else { throw fail(0, "\(what) has no field '\(key)'") }
        return m
    }

    mutating func string(_ key: String, what: String) throws(EngineError) -> String {
        let m = try required(key, what: what)
        guard m.value.kind == .string else { throw fail(m.value.valueStart, "field '\(key)': expected a string, found \(m.value.kind.phrase)") }
        return scanner.string(m.value, scratch: &scratch)
    }

    func integer(_ key: String, what: String, minimum: Int) throws(EngineError) -> Int {
        let m = try required(key, what: what)
        let v = m.value.kind == .number ? scanner.double(m.value) : .nan
        guard v.isFinite, v == v.rounded(), v >= Double(minimum), v <= 1e15 else {
            throw fail(m.value.valueStart, "field '\(key)': expected an integer >= \(minimum), found \(text(m.value))")
        }
        return Int(v)
    }

    func number(_ key: String, what: String, in range: ClosedRange<Double>) throws(EngineError) -> Double {
        let m = try required(key, what: what)
        let v = m.value.kind == .number ? scanner.double(m.value) : .nan
        guard v.isFinite, range.contains(v) else {
            throw fail(m.value.valueStart, "field '\(key)': expected a number in \(range.lowerBound)...\(range.upperBound), found \(text(m.value))")
        }
        return v
    }

    /// The text of a value as written (for messages), cut at 40 bytes.
    func text(_ span: JSONValueSpan) -> String {
        let bytes = UnsafeBufferPointer(rebasing: scanner.bytes[span.valueStart..<min(span.end + (span.kind == .string ? 1 : 0), span.valueStart + 40)])
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Lines

    mutating func header() throws(EngineError) -> PriorFileReader.Header {
        let what = "the header line"
        guard has("format") else {
            throw fail(0, "the first line is not a prior header: it has no field 'format' (is this a SmartStack prior file?)")
        }
        let format = try string("format", what: what)
        guard format == PopulationPrior.format else {
            throw fail(member("format")!.value.valueStart, "field 'format': '\(format)' is not '\(PopulationPrior.format)'")
        }
        let version = try integer("version", what: what, minimum: 1)
        guard version <= PopulationPrior.version else {
            throw fail(member("version")!.value.valueStart, "field 'version': the prior is of version \(version), written by a newer "
                       + "SmartStack; this one reads version \(PopulationPrior.version)")
        }
        try expectOnly(["format", "version", "min_people", "people", "shrinkage", "place_kinds", "widgets", "apps"], what: what)
        var h = PriorFileReader.Header()
        h.minimumPeople = try integer("min_people", what: what, minimum: 1)
        h.people = try integer("people", what: what, minimum: 0)
        h.shrinkage = try number("shrinkage", what: what, in: 0...1e6)
        h.widgets = try integer("widgets", what: what, minimum: 0)
        h.apps = try integer("apps", what: what, minimum: 0)
        let kinds = try required("place_kinds", what: what)
        guard kinds.value.kind == .array else {
            throw fail(kinds.value.valueStart, "field 'place_kinds': expected an array of strings, found \(kinds.value.kind.phrase)")
        }
        var children = scanner.children(of: kinds)
        while let element = try next(&children, "place_kinds") {
            guard element.kind == .string else {
                throw fail(element.valueStart, "field 'place_kinds': expected strings, found \(element.kind.phrase)")
            }
            h.placeKinds.append(scanner.string(element, scratch: &scratch))
        }
        return h
    }

    mutating func trailer(expected h: PriorFileReader.Header, entries: [PopulationPrior.Entry]) throws(EngineError) {
        let what = "the trailer line"
        try expectOnly(["end", "widgets", "apps"], what: what)
        guard try string("end", what: what) == PopulationPrior.format else {
            throw fail(member("end")!.value.valueStart, "field 'end': expected '\(PopulationPrior.format)'")
        }
        let widgets = entries.filter { $0.kind == .widget }.count, apps = entries.count - widgets
        let w = try integer("widgets", what: what, minimum: 0), a = try integer("apps", what: what, minimum: 0)
        guard w == h.widgets, a == h.apps else {
            throw fail(0, "the trailer counts \(w) widgets and \(a) apps, the header \(h.widgets) and \(h.apps)")
        }
        guard widgets == h.widgets, apps == h.apps else {
            throw fail(0, "the file holds \(widgets) widgets and \(apps) apps, its header and trailer \(h.widgets) and \(h.apps) "
                       + "(lines lost or added?)")
        }
    }

    mutating func entry(placeKinds: [String]) throws(EngineError) -> PopulationPrior.Entry {
        let isWidget = has("widget")
        guard isWidget || has("app") else { throw fail(0, "an entry line names neither a 'widget' nor an 'app'") }
        let kindKey = isWidget ? "widget" : "app"
        let id = try string(kindKey, what: "an entry")
        let what = "\(kindKey) '\(id)'"
        try expectOnly(isWidget ? ["widget", "app", "people", "rate", "days", "parts", "hours", "places"]
                                : ["app", "people", "rate", "days", "parts", "hours", "places"], what: what)
        var app: String?
        if isWidget, let m = member("app"), m.value.kind != .null {
            app = try string("app", what: what)
        }
        let people = try integer("people", what: what, minimum: 1)
        let rate = try number("rate", what: what, in: 0...PopulationPrior.maximumRate)
        let days = try cells("days", what: what, count: PopulationPrior.dayKinds)
        let parts = try grid("parts", what: what, inner: PopulationPrior.partsOfDay)
        let hours = try grid("hours", what: what, inner: PopulationPrior.hours)
        var places = [[[Double?]]?](repeating: nil, count: placeKinds.count)
        let m = try required("places", what: what)
        guard m.value.kind == .object else {
            throw fail(m.value.valueStart, "field 'places': expected an object of kinds of place, found \(m.value.kind.phrase)")
        }
        var children = scanner.children(of: m)
        while true {
            let kind: JSONMember?
            do { kind = try children.nextMember() } catch { throw fail(error.offset, error.message) }
            guard let kind else { break }
            let label = scanner.name(of: kind.key)
            guard let k = placeKinds.firstIndex(of: label) else {
                throw fail(kind.key.start, "field 'places': '\(label)' is not among the header's place_kinds")
            }
            guard places[k] == nil else { throw fail(kind.key.start, "field 'places': '\(label)' is given twice") }
            places[k] = try grid(at: kind.value.valueStart, kind: kind.value.kind, field: "places.\(label)", inner: PopulationPrior.hours)
        }
        return PopulationPrior.Entry(kind: isWidget ? .widget : .app, id: id, app: app, people: people, rate: rate, days: days,
                                     parts: parts, hours: hours, places: places)
    }

    private func next(_ children: inout JSONScanner.Children, _ field: String) throws(EngineError) -> JSONValueSpan? {
        do { return try children.nextElement() } catch { throw fail(error.offset, error.message) }
    }

    // MARK: Arrays of lifts

    // The arrays of lifts are most of a file: they are read straight from the line's bytes, whose
    // syntax the scanner has already checked, in one pass (the scanner's own walk of nested
    // arrays would scan every inner array once per level).

    /// An element of an array: where it starts and ends in the line, and what it is.
    private struct Element {
        var start: Int, end: Int, kind: JSONValueKind
    }

    /// The elements of the (checked) array whose `[` is at `open`.
    private func elements(ofArrayAt open: Int) -> [Element] {
        let bytes = scanner.bytes
        var out: [Element] = []
        var i = open + 1
        func skipSpace() { while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 } }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] != UInt8(ascii: "]") else { return out }
            let start = i
            let kind: JSONValueKind
            switch bytes[i] {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                kind = bytes[i] == UInt8(ascii: "[") ? .array : .object
                var depth = 0
                var inString = false
                while i < bytes.count {
                    let c = bytes[i]
                    if inString {
                        if c == UInt8(ascii: "\\") { i += 1 } else if c == UInt8(ascii: "\"") { inString = false }
                    } else if c == UInt8(ascii: "\"") {
                        inString = true
                    } else if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
                        depth += 1
                    } else if c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
                        depth -= 1
                        if depth == 0 { i += 1; break }
                    }
                    i += 1
                }
            case UInt8(ascii: "\""):
                kind = .string
                i += 1
                while i < bytes.count, bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                i += 1
            case UInt8(ascii: "n"): kind = .null; i += 4
            case UInt8(ascii: "t"): kind = .trueLiteral; i += 4
            case UInt8(ascii: "f"): kind = .falseLiteral; i += 5
            default:
                kind = .number
                while i < bytes.count, JSONScanner.isDigit(bytes[i]) || bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")
                        || bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                    i += 1
                }
            }
            out.append(Element(start: start, end: i, kind: kind))
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: ",") { i += 1 }
        }
    }

    /// The text of an element as written (for messages), cut at 40 bytes.
    private func text(_ e: Element) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: scanner.bytes[e.start..<min(e.end, e.start + 40)]), as: UTF8.self)
    }

    /// `[v, v, ...]` of `count` lifts or nulls, the array whose `[` is at `open`.
    private func cells(at open: Int, field: String, count: Int) throws(EngineError) -> [Double?] {
        let list = elements(ofArrayAt: open)
        guard list.count == count else { throw fail(open, "field '\(field)': expected \(count) values, found \(list.count)") }
        var out: [Double?] = []
        out.reserveCapacity(count)
        for e in list {
            if e.kind == .null { out.append(nil); continue }
            let x = e.kind == .number ? JSONNumber.value(scanner.bytes, from: e.start, to: e.end) : .nan
            guard x.isFinite, x > 0, x <= PopulationPrior.maximumLift else {
                throw fail(e.start, "field '\(field)': element \(out.count) is \(text(e)): a lift is a number in "
                           + "(0, \(PopulationPrior.maximumLift)] or null")
            }
            out.append(x)
        }
        return out
    }

    private func cells(_ key: String, what: String, count: Int) throws(EngineError) -> [Double?] {
        let m = try required(key, what: what)
        guard m.value.kind == .array else { throw fail(m.value.valueStart, "field '\(key)': expected an array, found \(m.value.kind.phrase)") }
        return try cells(at: m.value.valueStart, field: key, count: count)
    }

    /// `[[...], [...]]`: one array of `inner` lifts per kind of day, the array whose `[` is at `open`.
    private func grid(at open: Int, kind: JSONValueKind, field: String, inner: Int) throws(EngineError) -> [[Double?]] {
        guard kind == .array else { throw fail(open, "field '\(field)': expected an array, found \(kind.phrase)") }
        let rows = elements(ofArrayAt: open)
        guard rows.count == PopulationPrior.dayKinds else {
            throw fail(open, "field '\(field)': expected \(PopulationPrior.dayKinds) arrays (weekday, weekend), found \(rows.count)")
        }
        var out: [[Double?]] = []
        for (d, row) in rows.enumerated() {
            guard row.kind == .array else { throw fail(row.start, "field '\(field)[\(d)]': expected an array, found \(row.kind.phrase)") }
            out.append(try cells(at: row.start, field: "\(field)[\(d)]", count: inner))
        }
        return out
    }

    private func grid(_ key: String, what: String, inner: Int) throws(EngineError) -> [[Double?]] {
        let m = try required(key, what: what)
        return try grid(at: m.value.valueStart, kind: m.value.kind, field: key, inner: inner)
    }
}
