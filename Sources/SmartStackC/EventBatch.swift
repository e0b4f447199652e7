import Dispatch
import SmartStack
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(Darwin)
import Darwin
#endif

/// The events of a JSONL batch given to `smartstack_record`, all parsed before any is stored.
///
/// A large batch is parsed in two halves at once (split at a line break) when the machine has a
/// second core: parsing is a fifth of recording, so that keeps the C API's recording rate near
/// `Engine.record`'s with events already built. Errors read exactly as one pass over the whole
/// batch reports them: the first bad line, numbered from the start of the batch.
enum EventBatch {
    /// Name of the batch in error messages (`<events>:3:29: ...`).
    static let name = "<events>"

    /// Batches smaller than this are parsed on the calling thread alone.
    static let parallelThreshold = 256 * 1024

    /// The events of `bytes`; no events for blank input.
    /// - Throws: the `JSONLError` of the first bad line.
    static func events(_ bytes: UnsafeRawBufferPointer) throws -> [Event] {
        guard !isBlank(bytes) else { return [] }
        guard bytes.count >= parallelThreshold, sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1, let split = splitPoint(bytes) else {
            return try parse(Array(bytes), firstLine: 0)
        }
        let halves = [Array(bytes[..<split]), Array(bytes[split...])]
        let linesBefore = [0, halves[0].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }]
        let results = Mutex([Result<[Event], JSONLError>?](repeating: nil, count: 2))
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            let result: Result<[Event], JSONLError>
            do throws(JSONLError) {
                result = .success(isBlank(halves[half]) ? [] : try parse(halves[half], firstLine: linesBefore[half]))
            } catch {
                result = .failure(error)
            }
            results.withLock { $0[half] = result }
        }
        // Out of the lock's storage, so that the first half's array is unique: the second half is
        // appended to it in place instead of both being copied (and every string retained) anew.
        let (first, second) = results.withLock { r in
            defer { r = [nil, nil] }
            return (r[0]!, r[1]!)
        }
        var events = try first.get()
        events.append(contentsOf: try second.get())
        return events
    }

    /// Parses one piece whose first line is line `firstLine + 1` of the batch.
    private static func parse(_ bytes: [UInt8], firstLine: Int) throws(JSONLError) -> [Event] {
        var reader = JSONLReader(bytes: bytes, name: name)
        var events: [Event] = []
        do {
            while let event = try reader.next() { events.append(event) }
        } catch {
            var located = error
            located.line += firstLine
            throw located
        }
        return events
    }

    /// Just after the line break nearest the middle; `nil` when there is none, or when the second
    /// half would start with a byte order mark (which only the batch's first line may carry).
    private static func splitPoint(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let newline = bytes[(bytes.count / 2)...].firstIndex(of: 0x0A), newline + 1 < bytes.count else { return nil }
        let start = newline + 1
        if bytes.count - start >= 3, bytes[start] == 0xEF, bytes[start + 1] == 0xBB, bytes[start + 2] == 0xBF { return nil }
        return start
    }

    private static func isBlank<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        !bytes.contains { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A) }
    }
}
