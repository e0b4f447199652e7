#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import SmartStack
import SmartStackDatasets

/// A partial file (plain or gzip) read one user at a time: the header when opened, then each
/// `next()` parses one user line; after the last, the timeline line and the trailer are read and
/// the checksum and counts checked. `merge` reads all partials side by side this way, so a
/// partial is never held whole in memory. User lines are read a batch at a time and parsed on
/// `threads` threads (the merge's serial part is mostly parsing). Errors name the file (and
/// line and column), the first in file order.
final class PartialReader {
    /// The file's name in errors.
    let file: String
    let header: PartialEvaluation.Header
    /// The shard's timeline day, once `next()` has returned `nil`.
    private(set) var timeline: TimelineCandidate?
    private let lines: PartialLines
    private var checksum = PartialWriter.checksumBasis
    private var usersRead = 0
    private var lastUser: String?
    private var isFinished = false
    private let threads: Int
    /// Users parsed but not yet handed out, the next last.
    private var parsed: [UserReplayResult] = []
    /// The bytes of user lines a batch collects before it is parsed (tests use small batches).
    private let batchBytes: Int
    /// The error of a batch read ahead by `prefetch()`, thrown by the next `next()`.
    private var deferredError: EvaluationError?

    /// Opens `path` and reads its header; user lines are parsed on `threads` threads.
    convenience init(path: String, threads: Int = 1) throws(EvaluationError) {
        let source: any JSONLByteSource
        // 64 KiB buffers: merge holds one reader per partial open at once, and most partials
        // are small (one per shard); a longer line grows the line buffer.
        do { source = GzipByteSource(try JSONLFileSource(path: path), chunkBytes: PartialLines.initialBytes) } catch {
            throw EvaluationError("cannot read partial: \(error)")
        }
        try self.init(source: source, name: path, threads: threads, batchBytes: 1 << 20)
    }

    /// Reads partial bytes held in memory; `name` is used in errors.
    convenience init(bytes: [UInt8], name: String, threads: Int = 1, batchBytes: Int = 1 << 20) throws(EvaluationError) {
        try self.init(source: GzipByteSource(MemoryByteSource(bytes)), name: name, threads: threads, batchBytes: batchBytes)
    }

    private init(source: any JSONLByteSource, name: String, threads: Int, batchBytes: Int) throws(EvaluationError) {
        file = name
        self.threads = max(1, threads)
        self.batchBytes = max(1, batchBytes)
        lines = PartialLines(source, file: name)
        guard let first = try lines.next() else {
            throw EvaluationError("\(name): not a complete partial file (empty)")
        }
        var s = PartialScanner(first, file: name, line: 1)
        header = try PartialEvaluation.readHeader(&s)
        absorb(first)
    }

    /// Adds a line and its newline to the checksum (every line before the trailer counts).
    private func absorb(_ line: UnsafeBufferPointer<UInt8>) {
        checksum = PartialWriter.checksum(PartialWriter.checksum(checksum, line), 0x0A)
    }

    /// The next user, `nil` after the last (once the rest of the file is checked).
    ///
    /// - Throws: `EvaluationError` when the file is cut short, altered or corrupt.
    func next() throws(EvaluationError) -> UserReplayResult? {
        if let error = deferredError { throw error }
        if parsed.isEmpty, !isFinished { try readBatch() }
        return parsed.popLast()
    }

    /// Reads and parses the next batch now, when none is waiting, so that readers can be
    /// primed side by side (one user per partial parses nothing in parallel by itself). An error
    /// is kept for the next `next()`: it surfaces when, and in the order, the caller reads.
    func prefetch() {
        guard parsed.isEmpty, !isFinished, deferredError == nil else { return }
        do throws(EvaluationError) { try readBatch() } catch { deferredError = error }
    }

    /// Reads user lines up to `batchBytes` (or to the timeline line), parses them in parallel,
    /// then checks their order; after the last user, reads the timeline and the trailer.
    private func readBatch() throws(EvaluationError) {
        var batch: [(bytes: [UInt8], line: Int)] = []
        var size = 0
        var timelineLine: (bytes: [UInt8], line: Int)?
        var cutShort = false
        while size < batchBytes {
            guard let line = try lines.next() else { cutShort = true; break }
            absorb(line)
            if Self.starts(line, with: "{\"user\":") {
                batch.append((Array(line), lines.lineNumber))
                size += line.count
            } else {
                timelineLine = (Array(line), lines.lineNumber)
                break
            }
        }
        let policies = header.policies.count, byDay = header.options.byDay, file = file, collected = batch
        let results = Mutex<[Result<UserReplayResult, EvaluationError>?]>(Array(repeating: nil, count: batch.count))
        let chunks = max(1, min(threads, batch.count))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let lo = collected.count * chunk / chunks, hi = collected.count * (chunk + 1) / chunks
            var local: [Result<UserReplayResult, EvaluationError>] = []
            for (bytes, line) in collected[lo..<hi] {
                local.append(bytes.withUnsafeBufferPointer { buffer in
                    var s = PartialScanner(buffer, file: file, line: line)
                    do throws(EvaluationError) { return .success(try PartialEvaluation.readUser(&s, policies: policies, byDay: byDay)) } catch {
                        return .failure(error)
                    }
                })
            }
            results.withLock { all in for (k, r) in local.enumerated() { all[lo + k] = r } }
        }
        var users: [UserReplayResult] = []
        users.reserveCapacity(batch.count)
        for (k, result) in results.withLock({ $0 }).enumerated() {
            let u = try result!.get()
            if let previous = lastUser, !(previous < u.user) {
                throw EvaluationError("\(file):\(batch[k].line): corrupt partial: users are not in strictly increasing order ('\(previous)' then '\(u.user)')")
            }
            lastUser = u.user
            usersRead += 1
            users.append(u)
        }
        parsed = users.reversed()
        if cutShort { throw incomplete() }
        guard let timelineLine else { return }
        timeline = try timelineLine.bytes.withUnsafeBufferPointer { buffer throws(EvaluationError) in
            var s = PartialScanner(buffer, file: file, line: timelineLine.line)
            return try PartialEvaluation.readTimeline(&s, policies: policies)
        }
        try readTrailer()
        isFinished = true
    }

    private func readTrailer() throws(EvaluationError) {
        guard let line = try lines.next() else { throw incomplete() }
        var s = PartialScanner(line, file: file, line: lines.lineNumber)
        try s.expect("{")
        try s.key("end", first: true)
        guard try s.string() == PartialEvaluation.format else { throw s.failure("not the trailer line: the file is cut short") }
        try s.key("users")
        let count = try s.int()
        try s.key("checksum")
        let expected = try s.string()
        try s.expect("}")
        try s.end()
        let actual = PartialWriter.hex(checksum)
        guard actual == expected else {
            throw EvaluationError("\(file): corrupt partial: checksum \(actual) does not match the trailer's \(expected) (the file was altered or damaged)")
        }
        guard count == header.users, usersRead == count else {
            throw EvaluationError("\(file): corrupt partial: the header announces \(header.users) users, the file holds \(usersRead), the trailer says \(count)")
        }
        guard try lines.next() == nil else {
            throw EvaluationError("\(file):\(lines.lineNumber): corrupt partial: bytes after the trailer line")
        }
    }

    private func incomplete() -> EvaluationError {
        EvaluationError("\(file): not a complete partial file (it does not end with its trailer line)")
    }

    private static func starts(_ line: UnsafeBufferPointer<UInt8>, with prefix: StaticString) -> Bool {
        guard line.count >= prefix.utf8CodeUnitCount else { return false }
        return prefix.withUTF8Buffer { p in p.indices.allSatisfy { line[$0] == p[$0] } }
    }
}

/// The lines of a byte source, each handed out in place (valid until the next call), in a
/// buffer that grows to the longest line (a user with many impressions writes a long one).
final class PartialLines {
    /// The longest line accepted: beyond it the file is not a partial.
    private static let maximumLineLength = 1 << 30
    /// The buffer's first size.
    static let initialBytes = 1 << 16
    private let source: any JSONLByteSource
    private let file: String
    private var buffer: UnsafeMutableBufferPointer<UInt8>
    /// Unread bytes are `buffer[start..<end]`; no newline in `buffer[start..<scanned]`.
    private var start = 0, end = 0, scanned = 0
    private var isAtEnd = false
    private(set) var lineNumber = 0

    init(_ source: any JSONLByteSource, file: String) {
        self.source = source
        self.file = file
        buffer = .allocate(capacity: Self.initialBytes)
    }

    deinit { buffer.deallocate() }

    /// The next line without its newline, or `nil` at the end of the input.
    ///
    /// - Throws: `EvaluationError` when reading fails, or the input ends within a line.
    func next() throws(EvaluationError) -> UnsafeBufferPointer<UInt8>? {
        while true {
            if scanned < end, let found = memchr(buffer.baseAddress! + scanned, 0x0A, end - scanned) {
                let newline = buffer.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
                let line = UnsafeBufferPointer(rebasing: buffer[start..<newline])
                start = newline + 1
                scanned = start
                lineNumber += 1
                return line
            }
            scanned = end
            if isAtEnd {
                guard start == end else {
                    throw EvaluationError("\(file): not a complete partial file (it ends within line \(lineNumber + 1))")
                }
                return nil
            }
            try fill()
        }
    }

    /// Moves the unread bytes to the front, grows the buffer if they fill it, and reads more.
    private func fill() throws(EvaluationError) {
        if start > 0 {
            let pending = end - start
            if pending > 0 { buffer.baseAddress!.update(from: buffer.baseAddress! + start, count: pending) }
            (start, end, scanned) = (0, pending, pending)
        }
        if end == buffer.count {
            guard buffer.count < Self.maximumLineLength else {
                throw EvaluationError("\(file):\(lineNumber + 1): corrupt partial: a line longer than \(Self.maximumLineLength) bytes")
            }
            let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: buffer.count * 2)
            larger.baseAddress!.initialize(from: buffer.baseAddress!, count: end)
            buffer.deallocate()
            buffer = larger
        }
        let n: Int
        do {
            n = try source.read(into: UnsafeMutableBufferPointer(rebasing: buffer[end...]))
        } catch {
            throw EvaluationError("cannot read partial '\(file)': \(error)")
        }
        if n == 0 { isAtEnd = true } else { end += n }
    }
}

/// Bytes in memory as a byte source.
final class MemoryByteSource: JSONLByteSource {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws(JSONLReadError) -> Int {
        let n = min(buffer.count, bytes.count - position)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBufferPointer { buffer.baseAddress!.initialize(from: $0.baseAddress! + position, count: n) }
        position += n
        return n
    }
}
