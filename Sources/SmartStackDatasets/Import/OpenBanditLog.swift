import Foundation

/// One logging policy's log from the Open Bandit Dataset (`random_all.csv.gz`,
/// `bts_all.csv.gz`): per round the recommended item, its display position, whether it was
/// clicked and the logging policy's probability of showing that item at that position.
///
/// ```swift
/// let log = try OpenBanditLog(contentsOfFile: "../shared/datasets/obd/bts_all.csv.gz")
/// print(log.count, log.clickRate)
/// ```
public struct OpenBanditLog: Sendable, Hashable {
    /// Items the dataset recommends from (item ids `0..<80`).
    public static let itemCount = 80
    /// Display positions (the CSV's 1, 2, 3 are stored 0-based).
    public static let positionCount = 3

    /// The logged item of each round, in `0..<itemCount`.
    public private(set) var items: [Int] = []
    /// The 0-based position of each round.
    public private(set) var positions: [Int] = []
    /// 1 when the item was clicked, else 0.
    public private(set) var clicks: [Double] = []
    /// The logging policy's probability of the logged item at the logged position.
    public private(set) var propensities: [Double] = []

    /// The number of rounds.
    public var count: Int { items.count }
    /// The observed click rate of the logging policy.
    public var clickRate: Double { count > 0 ? clicks.reduce(0, +) / Double(count) : 0 }

    /// Reads a log (gzip-compressed or plain CSV with the dataset's header).
    ///
    /// - Throws: ``OpenBanditLogError`` naming the file, line and column of the first problem:
    ///   missing or unreadable file, corrupt gzip, a missing column, a value that does not parse
    ///   or is out of range.
    /// - Complexity: O(file size).
    public init(contentsOfFile path: String) throws(OpenBanditLogError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OpenBanditLogError(file: path, message: "cannot read the file (missing or unreadable)")
        }
        var bytes = [UInt8](data)
        if GzipReader.isGzip(bytes) {
            do { bytes = try GzipReader.inflate(bytes, name: path) } catch { throw OpenBanditLogError(file: path, message: error.message) }
        }
        try parse(bytes, file: path)
    }

    private mutating func parse(_ bytes: [UInt8], file: String) throws(OpenBanditLogError) {
        let newline = UInt8(ascii: "\n"), comma = UInt8(ascii: ","), cr = UInt8(ascii: "\r")
        // Line ranges (without the line break), scanning bytes: no grapheme work on a large file.
        var lineRanges: [Range<Int>] = []
        var start = 0
        bytes.withUnsafeBufferPointer { buffer in
            for i in 0..<buffer.count where buffer[i] == newline {
                lineRanges.append(start..<i)
                start = i + 1
            }
        }
        if start < bytes.count { lineRanges.append(start..<bytes.count) }
        func trimmed(_ range: Range<Int>) -> Range<Int> {
            range.upperBound > range.lowerBound && bytes[range.upperBound - 1] == cr
                ? range.lowerBound..<(range.upperBound - 1) : range
        }
        guard let headerRange = lineRanges.first else { throw OpenBanditLogError(file: file, message: "empty file") }
        let columns = String(decoding: bytes[trimmed(headerRange)], as: UTF8.self)
            .split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        func column(_ name: String) throws(OpenBanditLogError) -> Int {
            guard let index = columns.firstIndex(of: name) else {
                throw OpenBanditLogError(file: file, line: 1, message: "missing column '\(name)' in the header")
            }
            return index
        }
        let itemColumn = try column("item_id"), positionColumn = try column("position")
        let clickColumn = try column("click"), propensityColumn = try column("propensity_score")
        let needed = max(itemColumn, positionColumn, clickColumn, propensityColumn)
        var fields: [Range<Int>] = []
        fields.reserveCapacity(needed + 1)
        for (offset, rawRange) in lineRanges.dropFirst().enumerated() {
            let line = offset + 2
            let range = trimmed(rawRange)
            if range.isEmpty { continue }
            fields.removeAll(keepingCapacity: true)
            var fieldStart = range.lowerBound
            var i = range.lowerBound
            while i < range.upperBound, fields.count <= needed {
                if bytes[i] == comma {
                    fields.append(fieldStart..<i)
                    fieldStart = i + 1
                }
                i += 1
            }
            if fields.count <= needed, i == range.upperBound { fields.append(fieldStart..<range.upperBound) }
            guard fields.count > needed else {
                throw OpenBanditLogError(file: file, line: line,
                                         message: "has \(fields.count) fields, expected at least \(needed + 1)")
            }
            func number(_ index: Int) throws(OpenBanditLogError) -> Double {
                let text = String(decoding: bytes[fields[index]], as: UTF8.self)
                guard let value = Double(text), value.isFinite else {
                    throw OpenBanditLogError(file: file, line: line, field: columns[index],
                                             message: "'\(text)' is not a number")
                }
                return value
            }
            let item = try number(itemColumn), position = try number(positionColumn)
            let click = try number(clickColumn), propensity = try number(propensityColumn)
            guard item == item.rounded(), item >= 0, item < Double(Self.itemCount) else {
                throw OpenBanditLogError(file: file, line: line, field: "item_id", message: "\(item) is not an item id in 0..<\(Self.itemCount)")
            }
            guard position == position.rounded(), position >= 1, position <= Double(Self.positionCount) else {
                throw OpenBanditLogError(file: file, line: line, field: "position", message: "\(position) is not a position in 1...\(Self.positionCount)")
            }
            guard click == 0 || click == 1 else {
                throw OpenBanditLogError(file: file, line: line, field: "click", message: "\(click) is not 0 or 1")
            }
            guard propensity > 0, propensity <= 1 else {
                throw OpenBanditLogError(file: file, line: line, field: "propensity_score", message: "\(propensity) is not in (0, 1]")
            }
            items.append(Int(item))
            positions.append(Int(position) - 1)
            clicks.append(click)
            propensities.append(propensity)
        }
        guard count > 0 else { throw OpenBanditLogError(file: file, message: "no rounds after the header") }
    }
}

/// A problem reading an Open Bandit Dataset log: `file:line: column 'c': message`.
public struct OpenBanditLogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// The 1-based line, when the problem is on one line.
    public var line: Int?
    /// The column, when the problem is in one field.
    public var field: String?
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int? = nil, field: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    /// `file:line: column 'c': message`.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let field { text += "column '\(field)': " }
        return text + message
    }
}
