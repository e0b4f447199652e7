import CZlib
import SmartStack
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A widget and a probability.
public struct WidgetProbability: Sendable, Hashable {
    /// The widget's id.
    public var widget: String
    /// A probability in [0, 1].
    public var probability: Double

    /// Creates a pair.
    public init(widget: String, probability: Double) {
        self.widget = widget
        self.probability = probability
    }
}

/// One line of a ground-truth file: what the simulated person would truly do at one decision
/// point (a `screen_on`) for one stack.
///
/// - `distribution[w]`: the probability that the person engages widget `w` (taps it or opens
///   its app) in the session this `screen_on` begins, which always ends within the 10-minute
///   attribution window, under the logged randomised display. It sums to at most 1 over the
///   stack; the rest is the probability of engaging none of this stack's widgets. This is the
///   best possible prediction of the logged target, so the oracle ranks by it.
/// - `intent[w]`: the same probability before any effect of what was shown.
/// - `lift`: how much showing a widget on top adds to its engagement probability; a policy
///   that shows `w` would see `intent[w] + lift` engagement of `w` at this point.
/// - `distribution[w] = intent[w] + lift * p_log(w)` where `p_log` is the logging policy's
///   probability of showing `w` (its `widget_impression` propensity when `w` was shown).
/// - `engaged`: the widget of this stack actually engaged in the session, or `nil`.
/// - `shown`: the widget the logging policy put on top (its `widget_impression`).
public struct GroundTruthEntry: Sendable, Hashable {
    /// The user.
    public var user: String
    /// The decision point: the `screen_on` event's time, exactly.
    public var time: EventTime
    /// The stack.
    public var stack: String
    /// Engagement probability of each widget of the stack, in the stack's order.
    public var distribution: [WidgetProbability]
    /// The widget of this stack engaged in the session, if any.
    public var engaged: String?
    /// The widget the logging policy showed on top, if recorded.
    public var shown: String?
    /// Added engagement probability of a widget when it is shown, if recorded.
    public var lift: Double?
    /// Engagement probability of each widget regardless of display, if recorded.
    public var intent: [WidgetProbability]?

    /// Creates an entry.
    public init(user: String, time: EventTime, stack: String, distribution: [WidgetProbability],
                engaged: String?, shown: String? = nil, lift: Double? = nil, intent: [WidgetProbability]? = nil) {
        self.user = user
        self.time = time
        self.stack = stack
        self.distribution = distribution
        self.engaged = engaged
        self.shown = shown
        self.lift = lift
        self.intent = intent
    }

    /// The probability of engaging `widget` at this point (0 for a widget not listed).
    ///
    /// - Complexity: O(widgets of the stack).
    public func probability(of widget: String) -> Double {
        distribution.first { $0.widget == widget }?.probability ?? 0
    }

    /// The widget with the highest engagement probability (the first of the stack's order on ties).
    public var mostLikely: String? {
        var best: WidgetProbability?
        for p in distribution where best == nil || p.probability > best!.probability { best = p }
        return best?.widget
    }

    /// The entry as one line of a ground-truth file (no trailing newline).
    public var line: String {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the line and a newline to `buffer`.
    public func append(to buffer: inout [UInt8]) {
        func key(_ k: StaticString) {
            buffer.append(UInt8(ascii: "\""))
            k.withUTF8Buffer { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        func map(_ list: [WidgetProbability]) {
            buffer.append(UInt8(ascii: "{"))
            for (i, p) in list.enumerated() {
                if i > 0 { buffer.append(UInt8(ascii: ",")) }
                GroundTruthFormat.appendString(p.widget, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                GroundTruthFormat.appendProbability(p.probability, to: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.append(UInt8(ascii: "{"))
        key("user"); GroundTruthFormat.appendString(user, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        key("time")
        buffer.append(UInt8(ascii: "\""))
        time.appendRFC3339(to: &buffer)
        buffer.append(UInt8(ascii: "\""))
        buffer.append(UInt8(ascii: ","))
        key("stack"); GroundTruthFormat.appendString(stack, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        key("distribution"); map(distribution)
        buffer.append(UInt8(ascii: ","))
        key("engaged")
        if let engaged { GroundTruthFormat.appendString(engaged, to: &buffer) } else { buffer.append(contentsOf: Array("null".utf8)) }
        if let shown {
            buffer.append(UInt8(ascii: ",")); key("shown"); GroundTruthFormat.appendString(shown, to: &buffer)
        }
        if let lift {
            buffer.append(UInt8(ascii: ",")); key("lift"); GroundTruthFormat.appendProbability(lift, to: &buffer)
        }
        if let intent {
            buffer.append(UInt8(ascii: ",")); key("intent"); map(intent)
        }
        buffer.append(contentsOf: [UInt8(ascii: "}"), UInt8(ascii: "\n")])
    }
}

/// A ground-truth problem: a bad line (`file:line: field: message`) or a failed lookup.
public struct GroundTruthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, or a description of the source.
    public var file: String
    /// 1-based line number, 0 when the problem is not about one line.
    public var line: Int
    /// The field concerned, if any.
    public var field: String?
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int, field: String?, message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    /// `file:line: field: message`, leaving out what is unknown.
    public var description: String {
        var s = file.isEmpty ? "" : file + ":"
        if line > 0 { s += "\(line):" }
        if !s.isEmpty { s += " " }
        if let field { s += "\(field): " }
        return s + message
    }
}

/// The ground truth of a simulated dataset: the true engagement distribution at every decision
/// point, looked up by (user, stack, exact time).
///
/// File format: one JSON object per line, see ``GroundTruthEntry``; lines in any order; each
/// (user, stack, time) at most once.
///
/// ```swift
/// let truth = try GroundTruth.load(path: "Datasets/commuter.truth.jsonl")
/// let e = try truth.entry(user: "commuter-00", stack: "top", at: screenOnTime)
/// e.probability(of: "calendar")
/// ```
public struct GroundTruth: Sendable {
    private struct Series: Sendable {
        var times: [Int64] = []
        var indices: [Int32] = []
    }

    private var all: [GroundTruthEntry]
    /// The 1-based line of each entry in its file (its position in `entries` when built from
    /// entries).
    private var lines: [Int32]
    /// Per user, per stack, the entries in time order.
    private var index: [String: [String: Series]] = [:]
    /// The file or description the entries come from, as errors name it.
    public private(set) var source: String
    /// The loaded file's size and CRC-32, `<bytes>:<crc32 in 8 hex digits>` (`nil` when built
    /// from entries): what tells two ground-truth files apart wherever they are.
    public private(set) var fileDigest: String?
    /// The keys of the lines that are not fields of the format (ignored, as the format says),
    /// in order of first appearance: a misspelt optional field reads as absent, so a reader
    /// says so (`smartstack evaluate` warns).
    public private(set) var ignoredFields: [IgnoredTruthField] = []

    /// Builds a ground truth from entries; `source` names them in errors.
    ///
    /// - Throws: ``GroundTruthError`` when two entries share user, stack and instant.
    /// - Complexity: O(n log n).
    public init(entries: [GroundTruthEntry], source: String = "ground truth") throws(GroundTruthError) {
        try self.init(entries: entries, lines: entries.indices.map { Int32(truncatingIfNeeded: $0 + 1) }, source: source)
    }

    /// Builds a ground truth from entries read from lines `lines` of `source`.
    private init(entries: [GroundTruthEntry], lines: [Int32], source: String) throws(GroundTruthError) {
        self.all = entries
        self.lines = lines
        self.source = source
        var grouped: [String: [String: [(Int64, Int32)]]] = [:]
        for (i, e) in entries.enumerated() {
            grouped[e.user, default: [:]][e.stack, default: []].append((e.time.nanosecondsSinceEpoch, Int32(i)))
        }
        for (user, stacks) in grouped {
            var userIndex: [String: Series] = [:]
            for (stack, var list) in stacks {
                list.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
                var series = Series()
                series.times.reserveCapacity(list.count)
                series.indices.reserveCapacity(list.count)
                for (t, i) in list {
                    if let last = series.times.last, last == t {
                        let first = Int(series.indices[series.indices.count - 1])
                        throw GroundTruthError(
                            file: source, line: Int(lines[Int(i)]), field: "time",
                            message: "duplicate decision point: user \(user), stack \(stack) at \(entries[Int(i)].time.rfc3339) already given on line \(lines[first])")
                    }
                    series.times.append(t)
                    series.indices.append(i)
                }
                userIndex[stack] = series
            }
            index[user] = userIndex
        }
    }

    /// Loads a ground-truth file.
    ///
    /// Every line is checked; only the lines of `users` (all when `nil`) are kept, and without
    /// their `intent` when `includingIntent` is false, which halves the memory (about 0.5 KB
    /// per kept line with intent, for stacks of 4-6 widgets).
    ///
    /// ```swift
    /// let truth = try GroundTruth.load(path: "Datasets/drift.truth.jsonl", users: ["drift-01"],
    ///                                  includingIntent: false)
    /// ```
    ///
    /// - Throws: ``GroundTruthError`` naming the file, line and field of the first bad line,
    ///   or saying the file cannot be read or has no entries (for those users).
    /// - Complexity: O(n log n) in the number of lines; memory O(lines kept).
    public static func load(path: String, users: Set<String>? = nil,
                            includingIntent: Bool = true) throws(GroundTruthError) -> GroundTruth {
        guard let file = fopen(path, "rb") else {
            throw GroundTruthError(file: path, line: 0, field: nil, message: "cannot open the ground-truth file (\(String(cString: strerror(errno))))")
        }
        defer { fclose(file) }
        var entries: [GroundTruthEntry] = []
        var kept: [Int32] = []
        var carry: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var lineNumber = 0
        var crc = crc32(0, nil, 0)
        var size = 0
        var ignored = IgnoredTruthField.Tally()
        func handle(_ line: ArraySlice<UInt8>) throws(GroundTruthError) {
            lineNumber += 1
            var slice = line
            if slice.last == UInt8(ascii: "\r") { slice = slice.dropLast() }
            if slice.allSatisfy({ $0 == 32 || $0 == 9 }) { return }
            var entry = try GroundTruthFormat.parse(Array(slice), file: path, line: lineNumber, ignored: &ignored)
            if let users, !users.contains(entry.user) { return }
            if !includingIntent { entry.intent = nil }
            entries.append(entry)
            kept.append(Int32(truncatingIfNeeded: lineNumber))
        }
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            crc = chunk.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt(n)) }
            size += n
            var start = 0
            for i in 0..<n where chunk[i] == UInt8(ascii: "\n") {
                if carry.isEmpty {
                    try handle(chunk[start..<i])
                } else {
                    carry.append(contentsOf: chunk[start..<i])
                    try handle(carry[...])
                    carry.removeAll(keepingCapacity: true)
                }
                start = i + 1
            }
            carry.append(contentsOf: chunk[start..<n])
        }
        if ferror(file) != 0 {
            throw GroundTruthError(file: path, line: lineNumber, field: nil, message: "read error")
        }
        if !carry.isEmpty { try handle(carry[...]) }
        if entries.isEmpty {
            let which = users.map { " for users " + $0.sorted().joined(separator: ", ") } ?? ""
            throw GroundTruthError(file: path, line: 0, field: nil, message: "the ground-truth file has no entries" + which)
        }
        var truth = try GroundTruth(entries: entries, lines: kept, source: path)
        truth.ignoredFields = ignored.fields
        let hex = String(crc, radix: 16)
        truth.fileDigest = "\(size):" + String(repeating: "0", count: 8 - hex.count) + hex
        return truth
    }

    /// Parses ground-truth lines held in memory; `name` is used in errors.
    ///
    /// - Complexity: O(n log n).
    public static func parse(_ text: String, name: String = "<memory>") throws(GroundTruthError) -> GroundTruth {
        var entries: [GroundTruthEntry] = []
        var lines: [Int32] = []
        var ignored = IgnoredTruthField.Tally()
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            entries.append(try GroundTruthFormat.parse(Array(line.utf8), file: name, line: i + 1, ignored: &ignored))
            lines.append(Int32(truncatingIfNeeded: i + 1))
        }
        var truth = try GroundTruth(entries: entries, lines: lines, source: name)
        truth.ignoredFields = ignored.fields
        return truth
    }

    /// The number of entries.
    public var count: Int { all.count }

    /// The users present, sorted.
    ///
    /// - Complexity: O(n).
    public var users: [String] { index.keys.sorted() }

    /// Every entry of `user`, in time order; entries at the same instant in their input order.
    ///
    /// - Complexity: O(n log n) in the user's entries.
    public func entries(user: String) -> [GroundTruthEntry] {
        var list: [Int32] = []
        for series in (index[user] ?? [:]).values { list += series.indices }
        list.sort { a, b in
            let ta = all[Int(a)].time.nanosecondsSinceEpoch, tb = all[Int(b)].time.nanosecondsSinceEpoch
            return ta != tb ? ta < tb : a < b
        }
        return list.map { all[Int($0)] }
    }

    /// The entry of (`user`, `stack`) at exactly the instant of `time`.
    ///
    /// - Throws: ``GroundTruthError`` when there is none, naming the nearest decision points.
    /// - Complexity: O(log n).
    public func entry(user: String, stack: String, at time: EventTime) throws(GroundTruthError) -> GroundTruthEntry {
        guard let series = index[user]?[stack] else {
            let known = index[user] != nil
            throw GroundTruthError(
                file: source, line: 0, field: nil,
                message: known ? "no ground truth for stack '\(stack)' of user '\(user)'"
                               : "no ground truth for user '\(user)'")
        }
        let t = time.nanosecondsSinceEpoch
        var lo = 0, hi = series.times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if series.times[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        if lo < series.times.count && series.times[lo] == t { return all[Int(series.indices[lo])] }
        var near: [String] = []
        if lo > 0 { near.append("before: \(all[Int(series.indices[lo - 1])].time.rfc3339)") }
        if lo < series.times.count { near.append("after: \(all[Int(series.indices[lo])].time.rfc3339)") }
        throw GroundTruthError(
            file: source, line: 0, field: nil,
            message: "no ground truth for user '\(user)', stack '\(stack)' at exactly \(time.rfc3339) (decision points are the screen_on times; nearest \(near.joined(separator: ", ")))")
    }
}

// MARK: - One user's truth, for the evaluator

extension GroundTruth {
    /// The ground truth of one user, by stack in time order: what a replay of that user looks up
    /// at each decision (``UserGroundTruth/entry(stack:atOrBefore:notBefore:)``).
    ///
    /// - Complexity: O(stacks + entries of the user) to copy its entries.
    public func user(_ user: String) -> UserGroundTruth? {
        guard let stacks = index[user] else { return nil }
        var out: [String: UserGroundTruth.Series] = [:]
        for (stack, series) in stacks {
            out[stack] = UserGroundTruth.Series(times: series.times, entries: series.indices.map { all[Int($0)] },
                                                lines: series.indices.map { lines[Int($0)] })
        }
        return UserGroundTruth(user: user, source: source, stacks: out)
    }
}

/// One user's ground truth (``GroundTruth/user(_:)``): each stack's entries in time order.
///
/// ```swift
/// let mine = try GroundTruth.load(path: "Datasets/commuter.truth.jsonl").user("commuter-00")!
/// let e = mine.entry(stack: "top", atOrBefore: t, notBefore: t)   // exactly at t
/// ```
public struct UserGroundTruth: Sendable {
    /// A stack's entries, in time order, with their times (ns) and lines in the file.
    public struct Series: Sendable {
        public var times: [Int64]
        public var entries: [GroundTruthEntry]
        public var lines: [Int32]
    }

    /// The user.
    public let user: String
    /// The file the entries come from.
    public let source: String
    /// The entries of each stack.
    public let stacks: [String: Series]

    /// The user's entries, all stacks together.
    public var lineCount: Int { stacks.values.reduce(0) { $0 + $1.times.count } }

    /// The latest entry of `stack` at or before `ns` and not before `earliest` (nanoseconds
    /// since 1970), with its line in the file; `nil` when there is none.
    ///
    /// - Complexity: O(log n) in the stack's entries.
    public func entry(stack: String, atOrBefore ns: Int64, notBefore earliest: Int64) -> (entry: GroundTruthEntry, line: Int)? {
        guard let series = stacks[stack] else { return nil }
        var lo = 0, hi = series.times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if series.times[mid] <= ns { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0, series.times[lo - 1] >= earliest else { return nil }
        return (series.entries[lo - 1], Int(series.lines[lo - 1]))
    }
}

/// A key that lines of a ground-truth file hold and the format does not read (ignored, as the
/// format says), with how many lines hold it and the first of them.
public struct IgnoredTruthField: Sendable, Hashable {
    /// The key as written.
    public var name: String
    /// How many lines hold it.
    public var lines: Int
    /// The first line (1-based) that holds it.
    public var firstLine: Int

    /// An ignored key, held by `lines` lines from line `firstLine` on.
    public init(name: String, lines: Int, firstLine: Int) {
        self.name = name
        self.lines = lines
        self.firstLine = firstLine
    }

    /// Counts the ignored keys of a file's lines, in order of first appearance.
    struct Tally {
        private(set) var fields: [IgnoredTruthField] = []
        private var position: [String: Int] = [:]

        /// Counts the keys of line `line` (each once per line).
        mutating func add(_ keys: [String], line: Int) {
            for (k, key) in keys.enumerated() where !keys[..<k].contains(key) {
                if let p = position[key] {
                    fields[p].lines += 1
                } else {
                    position[key] = fields.count
                    fields.append(IgnoredTruthField(name: key, lines: 1, firstLine: line))
                }
            }
        }
    }
}
