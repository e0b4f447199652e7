/// A delimited file opened for import: its header, and typed access to the current row with
/// errors that name the file, line and column.
///
/// ```swift
/// var table = try CSVTable(path: "gps.csv")
/// let lat = try table.column("latitude")
/// while try table.nextRow() { let value = try table.double(lat) }
/// ```
public struct CSVTable: Sendable {
    /// The path as given.
    public let path: String
    /// Header names as written (surrounding spaces removed).
    public let header: [String]
    private var reader: CSVReader
    private let normalizedHeader: [String]

    /// Opens `path` (gzip or plain) and reads its header line.
    ///
    /// - Throws: ``ImportError`` if the file is missing, not valid gzip, or empty.
    /// - Complexity: O(n) in the file size (the file is read and decompressed at once).
    public init(path: String, delimiter: UInt8 = UInt8(ascii: ",")) throws(ImportError) {
        try self.init(bytes: try GzipReader.contents(ofFile: path), name: path, delimiter: delimiter)
    }

    /// Reads a table from bytes in memory; `name` is used in error messages.
    public init(bytes: [UInt8], name: String, delimiter: UInt8 = UInt8(ascii: ",")) throws(ImportError) {
        self.path = name
        reader = CSVReader(bytes: bytes, name: name, delimiter: delimiter)
        guard try reader.nextRecord() else {
            throw ImportError(file: name, message: "the file is empty (expected a header line)")
        }
        header = reader.fields.map { $0.trimmingSpaces() }
        normalizedHeader = header.map(CSVTable.normalize)
    }

    static func normalize(_ name: String) -> String { name.trimmingSpaces().lowercased() }

    /// 1-based line number of the current row.
    public var line: Int { reader.line }

    /// Whether the header has a column named `name` (case-insensitive) or one of `alternatives`.
    ///
    /// - Complexity: O(columns).
    public func hasColumn(_ name: String, _ alternatives: String...) -> Bool {
        ([name] + alternatives).contains { normalizedHeader.contains(CSVTable.normalize($0)) }
    }

    /// The index of column `name` (case-insensitive), or of the first of `alternatives` present.
    ///
    /// - Complexity: O(columns).
    public func optionalColumn(_ name: String, _ alternatives: String...) -> Int? {
        for candidate in [name] + alternatives {
            if let i = normalizedHeader.firstIndex(of: CSVTable.normalize(candidate)) { return i }
        }
        return nil
    }

    /// The index of a required column.
    ///
    /// - Throws: ``ImportError`` saying which column was expected and which were found.
    /// - Complexity: O(columns).
    public func column(_ name: String, _ alternatives: String...) throws(ImportError) -> Int {
        for candidate in [name] + alternatives {
            if let i = normalizedHeader.firstIndex(of: CSVTable.normalize(candidate)) { return i }
        }
        let expected = ([name] + alternatives).map { "'\($0)'" }.joined(separator: " or ")
        throw ImportError(file: path, line: 1,
                          message: "missing column \(expected); found columns: \(describeHeader())")
    }

    /// The header as a short list for error messages.
    public func describeHeader() -> String {
        let shown = header.prefix(14).map { $0.isEmpty ? "(unnamed)" : $0 }
        return shown.joined(separator: ", ") + (header.count > 14 ? ", ... (\(header.count) columns)" : "")
    }

    /// Advances to the next data row; `false` at the end.
    ///
    /// - Throws: ``ImportError`` for malformed quoting or a row whose field count differs
    ///   from the header's.
    public mutating func nextRow() throws(ImportError) -> Bool {
        guard try reader.nextRecord() else { return false }
        guard reader.fieldCount == header.count else {
            throw ImportError(file: path, line: reader.line,
                              message: "row has \(reader.fieldCount) fields but the header has \(header.count)")
        }
        return true
    }

    /// The text of column `index` in the current row.
    public func string(_ index: Int) -> String { reader.field(index) }

    /// Whether column `index` is empty in the current row.
    public func isEmpty(_ index: Int) -> Bool { reader.isEmpty(index) }

    /// The name of column `index` as written in the header.
    public func name(of index: Int) -> String { header[index] }

    /// An error located at the current row and column `index`.
    public func error(_ index: Int?, _ message: String) -> ImportError {
        ImportError(file: path, line: reader.line, column: index.map { header[$0] }, message: message)
    }

    /// Column `index` as a finite number.
    ///
    /// - Throws: ``ImportError`` (file, line, column) if it is empty or not a number.
    public func double(_ index: Int) throws(ImportError) -> Double {
        let text = string(index).trimmingSpaces()
        guard !text.isEmpty else { throw error(index, "empty value, expected a number") }
        guard let value = Double(text), value.isFinite else { throw error(index, "not a number: '\(text)'") }
        return value
    }

    /// Column `index` as a number, or `nil` when empty (or `NaN`, as pandas writes missing values).
    ///
    /// - Throws: ``ImportError`` if present but not a number.
    public func optionalDouble(_ index: Int) throws(ImportError) -> Double? {
        let text = string(index).trimmingSpaces()
        if text.isEmpty || text.lowercased() == "nan" { return nil }
        guard let value = Double(text), value.isFinite else { throw error(index, "not a number: '\(text)'") }
        return value
    }

    /// Column `index` as a Unix time in seconds (fractions read exactly), in nanoseconds.
    ///
    /// - Throws: ``ImportError`` (file, line, column) if it is empty or not a number.
    public func unixNanoseconds(_ index: Int) throws(ImportError) -> Int64 {
        let text = string(index).trimmingSpaces()
        guard !text.isEmpty else { throw error(index, "empty value, expected a Unix time in seconds") }
        guard let nanos = ImportTime.unixNanoseconds(text, scale: 1_000_000_000) else {
            throw error(index, "not a Unix time in seconds: '\(text)'")
        }
        return nanos
    }

    /// Column `index` as an integer.
    ///
    /// - Throws: ``ImportError`` if it is empty or not a whole number.
    public func integer(_ index: Int) throws(ImportError) -> Int {
        let text = string(index).trimmingSpaces()
        guard !text.isEmpty else { throw error(index, "empty value, expected a whole number") }
        if let value = Int(text) { return value }
        // `3.0` as written by some exporters.
        if let value = Double(text), value.isFinite, value == value.rounded(), abs(value) < 9e15 { return Int(value) }
        throw error(index, "not a whole number: '\(text)'")
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
