// Internal: splits a byte source or an in-memory buffer into lines, reading large chunks,
// with bounded memory (a line longer than the limit is skipped, not buffered).

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One step of a `JSONLLineSource`.
enum JSONLLineChunk {
    /// A line without its `\n`; `isTerminated` is false for a last line with no final newline.
    /// The bytes are valid until the next call.
    case line(UnsafeBufferPointer<UInt8>, isTerminated: Bool)
    /// A line longer than the limit; its bytes were skipped.
    case overlong
    /// Reading failed (the message says why); nothing more will be read.
    case readFailure(String)
    /// No more input.
    case end
}

/// Owns what a line source reads into: the buffer (the byte source owns its file).
private final class JSONLInput {
    let buffer: UnsafeMutablePointer<UInt8>

    init(capacity: Int) { buffer = .allocate(capacity: capacity) }

    deinit { buffer.deallocate() }
}

/// Reads lines out of a byte source or bytes in memory. Not thread-safe; copies share the
/// input, so only one copy may be used.
struct JSONLLineSource {
    /// 1 MiB: the read size and the default longest accepted line.
    static let defaultChunkSize = 1 << 20
    static let defaultMaximumLineLength = 1 << 20

    let maximumLineLength: Int
    private let chunkSize: Int
    private let input: JSONLInput
    private let buffer: UnsafeMutablePointer<UInt8>
    private let byteSource: (any JSONLByteSource)?
    private let capacity: Int
    /// Unconsumed bytes are `buffer[start..<end]`; no newline in `buffer[start..<scanned]`.
    private var start = 0
    private var end = 0
    private var scanned = 0
    private var isAtEndOfInput: Bool

    /// Lines of bytes already in memory.
    init(bytes: [UInt8], maximumLineLength: Int = defaultMaximumLineLength) {
        self.maximumLineLength = maximumLineLength
        chunkSize = 0
        capacity = max(bytes.count, 1)
        input = JSONLInput(capacity: capacity)
        buffer = input.buffer
        byteSource = nil
        let target = buffer
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { target.initialize(from: base, count: source.count) }
        }
        end = bytes.count
        isAtEndOfInput = true
    }

    /// Lines read from `source` in `chunkSize` reads.
    init(source: any JSONLByteSource, chunkSize: Int = defaultChunkSize,
         maximumLineLength: Int = defaultMaximumLineLength) {
        self.maximumLineLength = maximumLineLength
        self.chunkSize = chunkSize
        capacity = maximumLineLength + chunkSize + 1
        input = JSONLInput(capacity: capacity)
        buffer = input.buffer
        byteSource = source
        isAtEndOfInput = false
    }

    /// The next line, or why there is none.
    mutating func next() -> JSONLLineChunk {
        while true {
            if scanned < end, let newline = memchr(buffer + scanned, 0x0A, end - scanned) {
                let at = buffer.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                let lineStart = start
                start = at + 1
                scanned = start
                if at - lineStart > maximumLineLength { return .overlong }
                return .line(UnsafeBufferPointer(start: buffer + lineStart, count: at - lineStart), isTerminated: true)
            }
            scanned = end
            if end - start > maximumLineLength {
                return skipOverlongLine()
            }
            if isAtEndOfInput {
                guard start < end else { return .end }
                let lineStart = start
                start = end
                scanned = end
                return .line(UnsafeBufferPointer(start: buffer + lineStart, count: end - lineStart), isTerminated: false)
            }
            if let failure = fill() { return failure }
        }
    }

    /// Moves pending bytes to the front and reads one chunk; sets `isAtEndOfInput` on EOF.
    private mutating func fill() -> JSONLLineChunk? {
        if start > 0 {
            let pending = end - start
            if pending > 0 { buffer.update(from: buffer + start, count: pending) }
            start = 0
            end = pending
            scanned = pending
        }
        let room = min(chunkSize, capacity - end)
        guard let byteSource else {
            isAtEndOfInput = true
            return nil
        }
        do {
            let count = try byteSource.read(into: UnsafeMutableBufferPointer(start: buffer + end, count: room))
            if count > 0 {
                end += count
            } else {
                isAtEndOfInput = true
            }
            return nil
        } catch {
            isAtEndOfInput = true
            start = end
            scanned = end
            return .readFailure(error.message)
        }
    }

    /// Drops bytes up to and including the next newline (or the end of input).
    private mutating func skipOverlongLine() -> JSONLLineChunk {
        while true {
            if scanned < end, let newline = memchr(buffer + scanned, 0x0A, end - scanned) {
                start = buffer.distance(to: newline.assumingMemoryBound(to: UInt8.self)) + 1
                scanned = start
                return .overlong
            }
            start = end
            scanned = end
            if isAtEndOfInput { return .overlong }
            if let failure = fill() { return failure }
        }
    }
}
