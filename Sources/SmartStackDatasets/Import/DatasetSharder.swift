import Foundation
import SmartStack

/// Splits SmartStack JSONL files (plain or gzip) into `count` shards by a stable hash of the
/// user, so each shard holds whole users and can be evaluated on its own (`evaluate --partial`).
/// Streams: memory is the shards' write buffers plus 8 bytes per distinct user (to count them).
///
/// A user's shard is `fnv1a64(UTF-8 bytes of the user id) % count` (FNV-1a, 64-bit: offset
/// basis `0xcbf29ce484222325`, prime `0x100000001b3`), the same in any language, so Spark or
/// Ray jobs can shard the same way. Events keep their order; each line is written back in the
/// canonical form of `JSONLWriter`, which reads back as the same event.
///
/// ```swift
/// let summary = try DatasetSharder(count: 7).shard(["big.jsonl.gz"], into: "shards")
/// print(summary.shards.map(\.path))   // shards/shard-00000-of-00007.jsonl, ...
/// ```
public struct DatasetSharder: Sendable {
    /// How many shards.
    public var count: Int

    /// One shard written.
    public struct Shard: Sendable, Hashable {
        /// 0-based shard number.
        public var index: Int
        /// The file written.
        public var path: String
        /// Distinct users (by their 64-bit hash) and events in it.
        public var users: Int
        public var events: Int
    }

    /// What was written.
    public struct Summary: Sendable, Hashable {
        public var shards: [Shard]
        public var events: Int { shards.reduce(0) { $0 + $1.events } }
        public var users: Int { shards.reduce(0) { $0 + $1.users } }
    }

    /// Why sharding failed: the file (input or output) and what went wrong.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// A sharder into `count` shards (at least 1).
    public init(count: Int) { self.count = max(1, count) }

    /// The shard of `user` among `count`.
    public static func shard(of user: String, count: Int) -> Int {
        Int(SeededGenerator.hash(user) % UInt64(max(1, count)))
    }

    /// The file name of shard `index` of `count`: `shard-00003-of-00007.jsonl`.
    public static func fileName(index: Int, count: Int) -> String {
        String(format: "shard-%05d-of-%05d.jsonl", index, count)
    }

    /// Reads `inputs` in order and writes every shard (empty ones too) into `directory`,
    /// each under a temporary name renamed when all is written: a failure leaves no shard file.
    ///
    /// - Throws: ``Failure`` naming the input line (`file:line:column`) or the output file.
    /// - Complexity: O(total size of the inputs).
    public func shard(_ inputs: [String], into directory: String) throws(Failure) -> Summary {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw Failure(message: "cannot create the output directory '\(directory)': \(error.localizedDescription)")
        }
        let token = UUID().uuidString.prefix(8)
        let finals = (0..<count).map { (directory as NSString).appendingPathComponent(Self.fileName(index: $0, count: count)) }
        let temporaries = finals.map { "\($0).\(token).tmp" }
        var handles: [FileHandle] = []
        defer {
            for h in handles { try? h.close() }
            for t in temporaries { try? FileManager.default.removeItem(atPath: t) }
        }
        for t in temporaries {
            guard FileManager.default.createFile(atPath: t, contents: nil), let h = FileHandle(forWritingAtPath: t) else {
                throw Failure(message: "cannot write '\(t)' in '\(directory)'")
            }
            handles.append(h)
        }
        // Large buffers for few shards, smaller ones for many: at most about 256 MiB in all.
        let flushAt = max(1 << 16, min(1 << 20, (256 << 20) / count))
        var buffers = Array(repeating: [UInt8](), count: count)
        var events = Array(repeating: 0, count: count)
        var users = Array(repeating: Set<UInt64>(), count: count)
        var lastUser: String?
        var lastShard = 0
        for input in inputs {
            var reader: JSONLReader
            do { reader = try JSONLReader(detectingGzip: input) } catch { throw Failure(message: error.description) }
            while true {
                let next: Event?
                do { next = try reader.next() } catch { throw Failure(message: error.description) }
                guard let event = next else { break }
                if event.user != lastUser {
                    let h = SeededGenerator.hash(event.user)
                    lastShard = Int(h % UInt64(count))
                    users[lastShard].insert(h)
                    lastUser = event.user
                }
                JSONLWriter.append(event, to: &buffers[lastShard])
                events[lastShard] += 1
                if buffers[lastShard].count >= flushAt {
                    try write(&buffers[lastShard], to: handles[lastShard], path: temporaries[lastShard])
                }
            }
        }
        for i in 0..<count {
            try write(&buffers[i], to: handles[i], path: temporaries[i])
            do { try handles[i].close() } catch { throw Failure(message: "cannot write '\(temporaries[i])': \(error.localizedDescription)") }
        }
        handles = []
        for i in 0..<count {
            if rename(temporaries[i], finals[i]) != 0 {
                throw Failure(message: "cannot rename '\(temporaries[i])' to '\(finals[i])': \(String(cString: strerror(errno)))")
            }
        }
        return Summary(shards: (0..<count).map { Shard(index: $0, path: finals[$0], users: users[$0].count, events: events[$0]) })
    }

    private func write(_ buffer: inout [UInt8], to handle: FileHandle, path: String) throws(Failure) {
        do { try handle.write(contentsOf: buffer) } catch {
            throw Failure(message: "cannot write '\(path)': \(error.localizedDescription)")
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
