import Dispatch
import Foundation
import Synchronization
import SmartStack
import SmartStackDatasets

/// Reads the events of a JSONL file (plain or gzip) in file order, parsing on several threads:
/// this thread reads the bytes and cuts them at line boundaries into chunks of about 2 MiB,
/// parser threads turn chunks into events, and this thread hands each chunk's events to the
/// caller in order while later chunks are parsed (so parsing overlaps the caller's work, the
/// replay, and is split across cores).
///
/// Every chunk is parsed by a `JSONLReader` of its own after a leading newline, so its lines
/// are never taken for the first line of a file (where a byte order mark is dropped: this
/// reader drops the file's own). The first invalid line or a read failure stops the parallel
/// read, and the file is read again by one `JSONLReader` to report exactly the error reading it
/// alone gives. A file without events delivers none.
struct ParallelEventReader {
    /// Parser threads.
    let parsers: Int
    let counters: ProgressCounters
    /// The size of a chunk (a line is never split); tests use small ones.
    var chunkSize = 1 << 21

    /// Calls `body` for every event of `path`, in order.
    ///
    /// - Throws: `EvaluationError` for an unreadable or invalid file, or what `body` throws.
    /// - Complexity: O(size of the file); memory about `2 × parsers` chunks.
    func forEachEvent(_ path: String, _ body: (Event) throws -> Void) throws {
        let source: any JSONLByteSource
        do {
            source = GzipByteSource(CountingByteSource(try JSONLFileSource(path: path), counters: counters))
        } catch {
            throw EvaluationError("cannot read dataset: \(error)")
        }
        let pool = ParserPool(threads: max(1, parsers), name: path)
        defer { pool.close() }
        var inFlight: [ParsedChunk] = []   // oldest first
        /// Hands over the oldest chunk's events; false when the chunk failed.
        func deliverOldest() throws -> Bool {
            switch inFlight.removeFirst().wait() {
            case .events(var events):
                events.reverse()   // popped from the end in file order: moved out, not copied
                while let e = events.popLast() { try body(e) }
                return true
            case .blank:
                return true
            case .invalid:
                return false
            }
        }
        var cutter = LineChunker(source: source, chunkSize: chunkSize)
        var failed = false
        while !failed {
            let bytes: [UInt8]?
            do { bytes = try cutter.next() } catch { failed = true; break }
            guard let bytes else { break }
            inFlight.append(pool.parse(bytes))
            if inFlight.count >= 2 * max(1, parsers) { failed = try !deliverOldest() }
        }
        while !failed, !inFlight.isEmpty { failed = try !deliverOldest() }
        // A file without events (empty, or blank lines) is read as none: a shard may hold no
        // user (docs/contract.md, "Shards and partials"); only a whole dataset without events is
        // refused, by the report.
        if failed {
            for chunk in inFlight { _ = chunk.wait() }
            try Self.reportError(in: path)
        }
    }

    /// Reads `path` alone to throw the error it holds.
    private static func reportError(in path: String) throws {
        do {
            var reader = JSONLReader(source: GzipByteSource(try JSONLFileSource(path: path)), name: path)
            while try reader.next() != nil {}
        } catch {
            throw EvaluationError("invalid dataset: \(error)")
        }
        throw EvaluationError("invalid dataset: \(path): could not be read in parallel, yet reads without error alone")
    }
}

/// Cuts a byte stream into chunks of whole lines, each starting with a newline (see
/// `ParallelEventReader`); the stream's leading byte order mark is dropped.
private struct LineChunker {
    /// The longest line a chunk waits for; a longer one is an error `JSONLReader` reports.
    private static let longestLine = 1 << 21
    private let source: any JSONLByteSource
    private let chunkSize: Int
    /// Bytes after the last newline of the previous chunk.
    private var pending: [UInt8] = []
    private var isAtEnd = false
    private var isFirst = true

    init(source: any JSONLByteSource, chunkSize: Int) {
        self.source = source
        self.chunkSize = chunkSize
    }

    /// The next chunk, `nil` at the end.
    ///
    /// - Throws: when reading fails, or a line is too long to wait for.
    mutating func next() throws -> [UInt8]? {
        guard !isAtEnd || !pending.isEmpty else { return nil }
        var chunk: [UInt8] = [0x0A]
        chunk.reserveCapacity(chunkSize + pending.count + 1)
        chunk.append(contentsOf: pending)
        pending.removeAll(keepingCapacity: true)
        var cut: Int?   // the last newline after the leading one
        while !isAtEnd {
            if chunk.count >= chunkSize, cut != nil { break }
            guard chunk.count < chunkSize + Self.longestLine else { throw LineTooLong() }
            let start = chunk.count
            let room = min(1 << 18, chunkSize)
            chunk.append(contentsOf: repeatElement(0, count: room))
            let n = try chunk.withUnsafeMutableBufferPointer { try source.read(into: UnsafeMutableBufferPointer(rebasing: $0[start...])) }
            chunk.removeLast(room - n)
            if n == 0 { isAtEnd = true }
            if let last = chunk[start...].lastIndex(of: 0x0A) { cut = last }
        }
        if isAtEnd { cut = nil }   // the last chunk takes everything left
        if isFirst {
            isFirst = false
            if chunk.count >= 4, chunk[1] == 0xEF, chunk[2] == 0xBB, chunk[3] == 0xBF {
                chunk.removeSubrange(1..<4)
                cut = cut.map { $0 - 3 }
            }
        }
        if let cut {
            pending.append(contentsOf: chunk[(cut + 1)...])
            chunk.removeSubrange((cut + 1)...)
        }
        return chunk.count > 1 ? chunk : nil
    }

    private struct LineTooLong: Error {}
}

/// One chunk's outcome.
private enum ChunkOutcome: Sendable {
    case events([Event])
    /// Only blank lines.
    case blank
    /// An invalid line (the file is read again to report it).
    case invalid
}

/// A chunk being parsed; `wait()` returns its outcome once ready.
private final class ParsedChunk: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Mutex<ChunkOutcome?>(nil)

    func finish(_ result: ChunkOutcome) {
        outcome.withLock { $0 = result }
        done.signal()
    }

    /// Waits for the outcome and takes it (the chunk keeps no events).
    func wait() -> ChunkOutcome {
        done.wait()
        done.signal()   // later waits return at once
        return outcome.withLock { state in
            defer { state = .blank }
            return state ?? .invalid
        }
    }
}

/// Threads that parse chunks, first come first served.
private final class ParserPool: Sendable {
    private let work = Mutex<(queue: [(bytes: [UInt8], chunk: ParsedChunk)], closed: Bool)>(([], false))
    private let ready = DispatchSemaphore(value: 0)
    private let threads: Int
    private let finished = DispatchGroup()

    init(threads: Int, name: String) {
        self.threads = threads
        for _ in 0..<threads {
            finished.enter()
            let thread = Thread { [self] in
                while let (bytes, chunk) = self.take() { chunk.finish(Self.parse(bytes, name: name)) }
                self.finished.leave()
            }
            thread.start()
        }
    }

    /// Queues `bytes` for parsing.
    func parse(_ bytes: [UInt8]) -> ParsedChunk {
        let chunk = ParsedChunk()
        work.withLock { $0.queue.append((bytes, chunk)) }
        ready.signal()
        return chunk
    }

    /// Stops the threads once the queue is empty, and waits for them.
    func close() {
        work.withLock { $0.closed = true }
        for _ in 0..<threads { ready.signal() }
        finished.wait()
    }

    private func take() -> (bytes: [UInt8], chunk: ParsedChunk)? {
        while true {
            ready.wait()
            let next: (bytes: [UInt8], chunk: ParsedChunk)?? = work.withLock { state in
                if !state.queue.isEmpty { return .some(state.queue.removeFirst()) }
                return state.closed ? .some(nil) : nil
            }
            if let next { return next }
        }
    }

    /// A chunk's events. Its first line is the leading newline's empty one, so the only error
    /// `JSONLReader` reports on line 1 is that the chunk has no events.
    private static func parse(_ bytes: [UInt8], name: String) -> ChunkOutcome {
        var reader = JSONLReader(bytes: bytes, name: name)
        var events: [Event] = []
        events.reserveCapacity(bytes.count / 128)
        do {
            while let e = try reader.next() { events.append(e) }
        } catch {
            return error.line == 1 ? .blank : .invalid
        }
        return .events(events)
    }
}
