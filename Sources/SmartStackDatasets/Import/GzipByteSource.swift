import CZlib
import SmartStack

/// A byte source that decompresses gzip as it streams, when its input starts with the gzip magic
/// bytes `1f 8b` (whatever the file is called), and passes any other input through unchanged.
/// Memory stays bounded: one compressed chunk and zlib's window.
///
/// ```swift
/// var reader = try JSONLReader(detectingGzip: "events.jsonl.gz")   // or a plain events.jsonl
/// while let event = try reader.next() { print(event.type) }
/// ```
public final class GzipByteSource: JSONLByteSource {
    private let input: any JSONLByteSource
    private let chunk: UnsafeMutableBufferPointer<UInt8>
    private let stream: UnsafeMutablePointer<z_stream>
    /// Compressed bytes not yet given to zlib (or, passing through, not yet returned) are
    /// `chunk[position..<filled]`.
    private var position = 0
    private var filled = 0
    private var isInputEnded = false
    private var mode = Mode.undecided
    /// Compressed bytes consumed and bytes produced, for error messages.
    private var consumed = 0
    private var produced = 0

    private enum Mode { case undecided, plain, gzip, finished }

    /// Reads `input`, decompressing it if it is gzip (several concatenated members are read one
    /// after another, as `gzip -d` does), `chunkBytes` of compressed input at a time.
    public init(_ input: any JSONLByteSource, chunkBytes: Int = 1 << 18) {
        self.input = input
        chunk = .allocate(capacity: max(2, chunkBytes))
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if mode == .gzip || mode == .finished { inflateEnd(stream) }
        stream.deallocate()
        chunk.deallocate()
    }

    public func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws(JSONLReadError) -> Int {
        if mode == .undecided { try decide() }
        switch mode {
        case .plain:
            if position < filled {
                let n = min(buffer.count, filled - position)
                buffer.baseAddress!.update(from: chunk.baseAddress! + position, count: n)
                position += n
                return n
            }
            return try input.read(into: buffer)
        case .gzip:
            return try inflate(into: buffer)
        case .undecided, .finished:
            return 0
        }
    }

    /// Reads until two bytes are known (or the input ends) and picks plain or gzip.
    private func decide() throws(JSONLReadError) {
        while filled < 2, !isInputEnded { try refill(keeping: true) }
        guard filled >= 2, chunk[0] == 0x1F, chunk[1] == 0x8B else {
            mode = .plain
            return
        }
        guard smartstack_inflate_init2(stream, 15 + 32) == Z_OK else { throw JSONLReadError("cannot initialise zlib") }
        mode = .gzip
    }

    /// Reads more input into the chunk, after what is pending when `keeping`, else from its start.
    private func refill(keeping: Bool) throws(JSONLReadError) {
        if !keeping { position = 0; filled = 0 }
        let count = try input.read(into: UnsafeMutableBufferPointer(rebasing: chunk[filled...]))
        if count == 0 { isInputEnded = true }
        filled += count
    }

    private func inflate(into buffer: UnsafeMutableBufferPointer<UInt8>) throws(JSONLReadError) -> Int {
        while true {
            if position == filled, !isInputEnded { try refill(keeping: false) }
            let available = filled - position
            stream.pointee.next_in = chunk.baseAddress! + position
            stream.pointee.avail_in = UInt32(available)
            stream.pointee.next_out = buffer.baseAddress
            stream.pointee.avail_out = UInt32(buffer.count)
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            let used = available - Int(stream.pointee.avail_in)
            let made = buffer.count - Int(stream.pointee.avail_out)
            position += used
            consumed += used
            produced += made
            switch status {
            case Z_OK:
                if made > 0 { return made }
            case Z_STREAM_END:
                // Another member may follow; trailing zero padding is tolerated like gzip does.
                if try isOnlyPaddingLeft() {
                    mode = .finished
                    return made
                }
                guard inflateReset(stream) == Z_OK else { throw JSONLReadError("cannot read the next gzip member") }
                if made > 0 { return made }
            case Z_BUF_ERROR where available == 0 && isInputEnded:
                throw JSONLReadError(
                    "truncated gzip file: the compressed data ends before the end of the stream "
                        + "(\(consumed) bytes read, \(produced) bytes decompressed); "
                        + "the file is incomplete, download or copy it again")
            case Z_BUF_ERROR where made > 0 || used > 0:
                if made > 0 { return made }
            default:
                let detail = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
                throw JSONLReadError("corrupt gzip data after \(consumed) compressed bytes: \(detail)")
            }
        }
    }

    /// After a member's end: whether nothing but zero bytes remains of the input.
    private func isOnlyPaddingLeft() throws(JSONLReadError) -> Bool {
        while true {
            while position < filled {
                if chunk[position] != 0 { return false }
                position += 1
            }
            if isInputEnded { return true }
            try refill(keeping: false)
        }
    }
}

extension JSONLReader {
    /// Opens a SmartStack JSONL file, plain or gzip-compressed (told apart by the gzip magic
    /// bytes, not the name; `-` is standard input).
    ///
    /// - Throws: ``JSONLError`` (line 0) when the file cannot be opened; a corrupt or truncated
    ///   gzip stream is reported by `next()` at the line where it breaks off.
    public init(detectingGzip path: String) throws(JSONLError) {
        let file = try JSONLFileSource(path: path)
        self.init(source: GzipByteSource(file), name: file.name)
    }
}
