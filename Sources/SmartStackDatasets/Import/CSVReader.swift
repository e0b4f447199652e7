/// A streaming RFC 4180 reader over bytes in memory: quoted fields, doubled quotes inside
/// quotes (`"say ""hi"""`), delimiters and line breaks inside quotes, LF, CRLF or CR line
/// ends, a UTF-8 byte order mark, blank lines ignored. Any single-byte delimiter (`,`, tab ...).
///
/// ```swift
/// var reader = CSVReader(bytes: Array("a,b\n1,\"x,y\"\n".utf8), name: "f.csv")
/// while try reader.nextRecord() { print(reader.line, reader.field(1)) }   // 1 b, 2 x,y
/// ```
///
/// Fields are kept as byte ranges until asked for, so reading a wide file costs little more
/// than the columns actually used.
public struct CSVReader: Sendable {
    /// The name used in error messages (usually the path).
    public let name: String
    private let bytes: [UInt8]
    private let delimiter: UInt8
    private var position = 0
    private var nextLine = 1
    private var starts: [Int] = []
    private var ends: [Int] = []
    private var escaped: [Bool] = []

    /// 1-based line number on which the current record starts.
    public private(set) var line = 0

    /// Creates a reader over `bytes`; `delimiter` defaults to a comma.
    public init(bytes: [UInt8], name: String, delimiter: UInt8 = UInt8(ascii: ",")) {
        self.bytes = bytes
        self.name = name
        self.delimiter = delimiter
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    /// Number of fields in the current record.
    public var fieldCount: Int { starts.count }

    /// Advances to the next record; `false` at the end of the input.
    ///
    /// - Throws: ``ImportError`` for an unterminated quoted field or text after a closing quote.
    /// - Complexity: O(length of the record).
    public mutating func nextRecord() throws(ImportError) -> Bool {
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        escaped.removeAll(keepingCapacity: true)
        let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        let n = bytes.count
        // Skip blank lines.
        while position < n, bytes[position] == lf || bytes[position] == cr {
            if bytes[position] == cr, position + 1 < n, bytes[position + 1] == lf { position += 1 }
            position += 1
            nextLine += 1
        }
        guard position < n else { return false }
        line = nextLine
        while true {
            if position < n, bytes[position] == quote {
                let openedOn = nextLine
                position += 1
                let start = position
                var hasEscape = false
                while true {
                    guard position < n else {
                        throw ImportError(file: name, line: openedOn,
                                          message: "unterminated quoted field (a '\"' opened on line \(openedOn) is never closed)")
                    }
                    let c = bytes[position]
                    if c == quote {
                        if position + 1 < n, bytes[position + 1] == quote {
                            hasEscape = true
                            position += 2
                            continue
                        }
                        break
                    }
                    if c == lf || (c == cr && !(position + 1 < n && bytes[position + 1] == lf)) { nextLine += 1 }
                    position += 1
                }
                starts.append(start)
                ends.append(position)
                escaped.append(hasEscape)
                position += 1  // closing quote
                if position < n, bytes[position] != delimiter, bytes[position] != cr, bytes[position] != lf {
                    throw ImportError(file: name, line: nextLine,
                                      message: "unexpected character after a closing quote in field \(starts.count) "
                                          + "(a quote inside a quoted field must be doubled: \"\")")
                }
            } else {
                let start = position
                while position < n {
                    let c = bytes[position]
                    if c == delimiter || c == cr || c == lf { break }
                    position += 1
                }
                starts.append(start)
                ends.append(position)
                escaped.append(false)
            }
            guard position < n else { return true }
            let c = bytes[position]
            position += 1
            if c == delimiter { continue }
            if c == cr, position < n, bytes[position] == lf { position += 1 }
            nextLine += 1
            return true
        }
    }

    /// The text of field `index` of the current record (quotes removed, `""` unescaped),
    /// or `""` when the record has fewer fields.
    ///
    /// - Complexity: O(length of the field).
    public func field(_ index: Int) -> String {
        guard index < starts.count else { return "" }
        let slice = bytes[starts[index]..<ends[index]]
        guard escaped[index] else { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var previousWasQuote = false
        for b in slice {
            if b == UInt8(ascii: "\""), previousWasQuote {
                previousWasQuote = false
                continue
            }
            previousWasQuote = b == UInt8(ascii: "\"")
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether field `index` is missing or empty.
    public func isEmpty(_ index: Int) -> Bool {
        index >= starts.count || starts[index] == ends[index]
    }

    /// All fields of the current record.
    ///
    /// - Complexity: O(length of the record).
    public var fields: [String] { (0..<fieldCount).map { field($0) } }
}
