/// Streams events out of SmartStack JSONL v1 text, one line at a time.
///
/// ```swift
/// var reader = try JSONLReader(path: "events.jsonl")
/// while let event = try reader.next() { print(event.type) }
/// ```
///
/// Input is read in 1 MiB chunks; memory stays bounded whatever the file size. Blank lines are
/// ignored; a line longer than 1 MiB is rejected. Compressed files are read through a decoding
/// ``JSONLByteSource`` (`SmartStackDatasets` has one for gzip). Copies of a reader share its input: use one.
public struct JSONLReader {
    private var source: JSONLLineSource
    private var decoder = JSONLEventDecoder()
    private let name: String
    private var line = 0
    private var hasContent = false
    private var isFinished = false

    /// Opens a file (`-` for standard input). Throws a `JSONLError` (line 0) if it cannot be read.
    public init(path: String) throws(JSONLError) {
        try self.init(path: path, chunkSize: JSONLLineSource.defaultChunkSize,
                      maximumLineLength: JSONLLineSource.defaultMaximumLineLength)
    }

    /// Opens a file with explicit read and line sizes (tests use small ones to cross chunk boundaries).
    init(path: String, chunkSize: Int, maximumLineLength: Int) throws(JSONLError) {
        let file = try JSONLFileSource(path: path)
        name = file.name
        source = JSONLLineSource(source: file, chunkSize: chunkSize, maximumLineLength: maximumLineLength)
    }

    /// Reads what `source` delivers (a decompressor, a network stream); `name` is used in errors.
    public init(source: any JSONLByteSource, name: String) {
        self.name = name
        self.source = JSONLLineSource(source: source)
    }

    /// Reads from bytes already in memory; `name` is used in error messages.
    public init(bytes: [UInt8], name: String) {
        self.name = name
        source = JSONLLineSource(bytes: bytes)
    }

    /// Reads from bytes in memory with an explicit longest line (for tests).
    init(bytes: [UInt8], name: String, maximumLineLength: Int) {
        self.name = name
        source = JSONLLineSource(bytes: bytes, maximumLineLength: maximumLineLength)
    }

    /// The next event, or `nil` at the end. On an invalid line, throws its error and moves past
    /// it, so a caller may continue (`--skip-invalid`). An empty input throws once.
    ///
    /// - Complexity: O(n) in the length of the line(s) read.
    public mutating func next() throws(JSONLError) -> Event? {
        while !isFinished {
            switch source.next() {
            case .end:
                isFinished = true
                if !hasContent {
                    let message = line == 0 ? JSONLError.emptyInput
                        : "\(JSONLError.blankInput)\(line == 1 ? "its only line is" : "all \(line) lines are") blank"
                    throw JSONLError(file: name, line: 1, column: 1, field: nil, message: message)
                }
                return nil
            case .readFailure(let reason):
                isFinished = true
                throw JSONLError(file: name, line: line + 1, column: 1, field: nil, message: "cannot read: \(reason)")
            case .overlong:
                line += 1
                hasContent = true
                throw JSONLError(file: name, line: line, column: source.maximumLineLength + 1, field: nil,
                                 message: "line is longer than the limit of \(source.maximumLineLength) bytes")
            case .line(var bytes, let isTerminated):
                line += 1
                if line == 1, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                    bytes = UnsafeBufferPointer(rebasing: bytes[3...])   // UTF-8 byte order mark
                }
                if Self.isBlank(bytes) { continue }
                hasContent = true
                do {
                    return try decoder.decode(bytes)
                } catch {
                    throw locate(error, isTerminated: isTerminated, length: bytes.count)
                }
            }
        }
        return nil
    }

    /// 1-based number of the line last returned or rejected.
    public var lineNumber: Int { line }

    private static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in bytes where !(c == 0x20 || c == 0x09 || c == 0x0D) { return false }   // stops at the first '{'
        return true
    }

    private func locate(_ failure: JSONLLineFailure, isTerminated: Bool, length: Int) -> JSONLError {
        var message = failure.message
        if failure.reachedEnd && !isTerminated {
            let prefix = "line ends too early: "
            if message.hasPrefix(prefix) { message.removeFirst(prefix.count) }
            message = "last line is truncated (the file ends in the middle of a JSON object): \(message)"
        }
        return JSONLError(file: name, line: line, column: failure.offset + 1, field: failure.field, message: message)
    }
}

@available(*, unavailable, message: "a JSONLReader holds an open file and scratch buffers; use one per task")
extension JSONLReader: Sendable {}
