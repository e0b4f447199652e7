import Dispatch
import SmartStack

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(Darwin)
import Darwin
#endif

/// Records the events of a JSONL batch given to `smartstack_record`.
///
/// A large batch is cut into pieces at line breaks and parsed on a second thread, piece after
/// piece, while the calling thread stores the pieces already parsed, all in one transaction of
/// ``Engine/record(batches:)``: parsing costs about a third of what storing and learning do, and
/// this takes it off the calling thread. Errors read exactly as one pass over the whole batch
/// reports them: the first bad line, numbered from the start of the batch, even when storing an
/// earlier piece failed first; nothing is stored then.
enum EventBatch {
    /// Name of the batch in error messages (`<events>:3:29: ...`).
    static let name = Engine.batchName

    /// Batches smaller than this are parsed on the calling thread alone, before being stored.
    static let pipelineThreshold = 128 * 1024

    /// Bytes per piece (about 300 events): small, so that storing starts soon and a piece
    /// parsed twice costs little.
    static let pieceSize = 32 * 1024

    /// Records the events of `bytes`; nothing for blank input.
    /// - Throws: the `JSONLError` of the first bad line, or what ``Engine/record(batches:)`` throws.
    static func record(_ bytes: UnsafeRawBufferPointer, with engine: Engine) throws -> AppendResult {
        guard !isBlank(bytes[...]) else { return AppendResult(inserted: 0, duplicates: 0) }
        guard bytes.count >= pipelineThreshold, sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 else {
            return try engine.record(jsonl: Array(bytes))
        }
        let pieces = Pieces(bytes)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { pieces.parseAhead() }
        // The parsing thread never outlives the call.
        defer { group.wait() }
        var taken = 0
        do {
            return try engine.record(batches: { () throws -> [Event]? in
                guard taken < pieces.count else { return nil }
                defer { taken += 1 }
                return try pieces.take(taken)
            })
        } catch {
            // One pass parses everything before storing: its bad line wins over a store failure.
            group.wait()
            if let bad = pieces.firstFailure() { throw bad }
            throw error
        }
    }

    /// The events of `bytes` and the number of lines read; errors are numbered from its first line.
    private static func parse(_ bytes: [UInt8]) throws(JSONLError) -> (events: [Event], lines: Int) {
        var reader = JSONLReader(bytes: bytes, name: name)
        var events: [Event] = []
        while let event = try reader.next() { events.append(event) }
        return (events, reader.lineNumber)
    }

    static func isBlank(_ bytes: Slice<UnsafeRawBufferPointer>) -> Bool {
        !bytes.contains { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A) }
    }

    /// A batch cut into pieces, and their events. The parsing thread claims and parses pieces in
    /// order; the calling thread takes them in order to store them and never waits: when the piece
    /// it needs is not parsed yet, it parses the next unclaimed piece itself, or, when none is
    /// left, the one the parsing thread is still on (whichever copy ends first is used). A
    /// parsing thread left without a core therefore delays nothing, and an idle machine costs
    /// at most one piece parsed twice. No piece is claimed after a bad line.
    private final class Pieces: Sendable {
        /// A piece's events and number of lines, or its first bad line numbered within the piece.
        typealias Parsed = Result<Piece, JSONLError>

        struct Piece: Sendable {
            var events: [Event]
            var lines: Int
        }

        private enum Slot {
            case unclaimed, claimed, parsed(Parsed)
            /// Stored: the events are released, the count of lines stays for firstFailure().
            case taken(lines: Int)
        }

        private struct State {
            var slots: [Slot]
            var claimed = 0
            var failed = false
        }

        let count: Int
        private let texts: [[UInt8]]
        /// A POSIX mutex rather than `Mutex`, so that ThreadSanitizer sees the lock (see `EngineLock`).
        private let state: EngineLock<State>

        /// Copies the pieces out of the caller's bytes, which the parsing thread must not read.
        init(_ bytes: UnsafeRawBufferPointer) {
            texts = Self.ranges(of: bytes).map { Array(bytes[$0]) }
            count = texts.count
            state = EngineLock(State(slots: [Slot](repeating: .unclaimed, count: texts.count)))
        }

        /// Runs on the parsing thread.
        func parseAhead() {
            while let i = state.withLock({ Self.claimNext(&$0, count: count) }) { keep(parse(i), of: i) }
        }

        /// Piece `i`'s events; called for 0, 1, 2... in turn. Throws the piece's bad line
        /// (numbered within the piece: `record` reports firstFailure() instead).
        func take(_ i: Int) throws(JSONLError) -> [Event] {
            while true {
                let ready = state.withLock { s -> Parsed? in
                    guard case .parsed(let result) = s.slots[i] else { return nil }
                    if case .success(let piece) = result { s.slots[i] = .taken(lines: piece.lines) }
                    return result
                }
                if let ready { return try ready.get().events }
                let k = state.withLock { Self.claimNext(&$0, count: count) } ?? i
                keep(parse(k), of: k)
            }
        }

        /// The first bad line of the batch, numbered from its start, if any; call once parsing has ended.
        func firstFailure() -> JSONLError? {
            state.withLock { s in
                var lines = 0
                for slot in s.slots {
                    switch slot {
                    case .taken(let n): lines += n
                    case .parsed(.success(let piece)): lines += piece.lines
                    case .parsed(.failure(var error)): error.line += lines; return error
                    case .unclaimed, .claimed: return nil   // only after a bad line
                    }
                }
                return nil
            }
        }

        private static func claimNext(_ s: inout State, count: Int) -> Int? {
            guard !s.failed, s.claimed < count else { return nil }
            s.slots[s.claimed] = .claimed
            defer { s.claimed += 1 }
            return s.claimed
        }

        /// The first copy of a piece parsed is kept.
        private func keep(_ result: Parsed, of i: Int) {
            state.withLock { s in
                switch s.slots[i] {
                case .parsed, .taken: return
                case .unclaimed, .claimed:
                    s.slots[i] = .parsed(result)
                    if case .failure = result { s.failed = true }
                }
            }
        }

        private func parse(_ i: Int) -> Parsed {
            let text = texts[i]
            do throws(JSONLError) {
                if text.withUnsafeBytes({ isBlank($0[...]) }) {
                    return .success(Piece(events: [], lines: text.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }))
                }
                let (events, lines) = try EventBatch.parse(text)
                return .success(Piece(events: events, lines: lines))
            } catch {
                return .failure(error)
            }
        }

        /// The pieces of `text`, each ending just after a line break at least ``pieceSize`` bytes
        /// in (the last at the end). No piece but the first starts with a byte order mark, which
        /// only the batch's first line may carry: such a line stays inside the piece before.
        private static func ranges(of text: UnsafeRawBufferPointer) -> [Range<Int>] {
            var ranges: [Range<Int>] = []
            var start = 0
            var end = min(text.count, pieceSize)
            while end < text.count {
                guard let newline = text[end...].firstIndex(of: 0x0A) else { break }
                end = newline + 1
                if text.count - end >= 3, text[end] == 0xEF, text[end + 1] == 0xBB, text[end + 2] == 0xBF { continue }
                ranges.append(start..<end)
                start = end
                end = min(text.count, start + pieceSize)
            }
            ranges.append(start..<text.count)
            return ranges
        }
    }
}
