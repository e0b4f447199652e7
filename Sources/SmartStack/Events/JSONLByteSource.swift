#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a `JSONLReader` gets its bytes: a file, standard input, or a decoder over either (the
/// gzip source of `SmartStackDatasets`), so the engine reads compressed logs without linking a
/// decompressor.
///
/// ```swift
/// var reader = JSONLReader(source: try JSONLFileSource(path: "events.jsonl"), name: "events.jsonl")
/// ```
public protocol JSONLByteSource: AnyObject {
    /// Fills the start of `buffer` with the next bytes and returns how many; 0 only at the end.
    ///
    /// - Throws: ``JSONLReadError`` when reading fails (the reader reports it at the next line).
    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws(JSONLReadError) -> Int
}

/// Why a byte source could not deliver more bytes (`permission denied`, `truncated gzip file ...`).
public struct JSONLReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as the end of a sentence (the reader prefixes `cannot read: `).
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// A file, or standard input for `-`, read with `read(2)`.
///
/// ```swift
/// let source = try JSONLFileSource(path: "events.jsonl")
/// ```
public final class JSONLFileSource: JSONLByteSource {
    /// The path as given, or `<stdin>`.
    public let name: String
    private let descriptor: Int32
    private let closesDescriptor: Bool

    /// Opens `path` (`-` for standard input).
    ///
    /// - Throws: ``JSONLError`` (line 0) naming the file when it is missing, unreadable or a directory.
    public init(path: String) throws(JSONLError) {
        if path == "-" {
            name = "<stdin>"
            descriptor = 0
            closesDescriptor = false
            return
        }
        name = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let reason = code == ENOENT ? "no such file" : Self.lowercasedFirst(String(cString: strerror(code)))
            throw JSONLError(file: path, line: 0, column: 0, field: nil, message: "cannot open: \(reason)")
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            _ = close(descriptor)
            throw JSONLError(file: path, line: 0, column: 0, field: nil,
                             message: "cannot read: is a directory, not a JSONL file")
        }
        self.descriptor = descriptor
        closesDescriptor = true
    }

    deinit {
        if closesDescriptor { _ = close(descriptor) }
    }

    public func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws(JSONLReadError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = systemRead(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw JSONLReadError(String(cString: strerror(errno)))
        }
    }

    /// `Permission denied` → `permission denied`, to continue a sentence.
    private static func lowercasedFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}

/// `read(2)`, named apart from the method that calls it.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
