/// Maps strings (widget, app, stack, place ids) to dense small integers so hot paths index
/// arrays instead of hashing strings. Encodes as its list of names only.
///
/// Every event interns or looks up a few names, so the look-up is its own small hash table:
/// the name's UTF-8 bytes are hashed eight at a time (cheaper than `Dictionary`'s seeded
/// SipHash for short ids, and the same in every process) into an open-addressing table with
/// linear probing, kept at most half full. A name's index is its
/// position in `names`, so it never depends on the hash.
package struct Interner: Sendable, Codable {
    package private(set) var names: [String] = []
    /// The hash of each name, in `names` order (compared before the strings, and rehashed from).
    private var hashes: [UInt64] = []
    /// The table: index + 1 of the name hashed there, 0 for an empty slot. Its size is a power
    /// of two, at least twice the number of names (or 0 before the first name).
    private var slots: [Int32] = []

    package init() {}

    package var count: Int { names.count }

    /// The index of `name`, adding it if new.
    /// - Complexity: O(length of `name`) expected; amortised O(1) table growth.
    package mutating func intern(_ name: String) -> Int32 {
        let h = Self.hash(name)
        if let i = find(name, hash: h) { return i }
        let i = Int32(names.count)
        names.append(name)
        hashes.append(h)
        if 2 * names.count > slots.count {
            rehash(capacity: max(16, 2 * slots.count))
        } else {
            insert(i, hash: h)
        }
        return i
    }

    /// The index of `name` if already known.
    /// - Complexity: O(length of `name`) expected.
    package func index(of name: String) -> Int32? { find(name, hash: Self.hash(name)) }

    package subscript(i: Int32) -> String { names[Int(i)] }

    @inline(__always)
    private func find(_ name: String, hash h: UInt64) -> Int32? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var s = Self.slot(h, mask: mask)
        while true {
            let v = slots[s]
            if v == 0 { return nil }
            let i = Int(v) - 1
            if hashes[i] == h && names[i] == name { return Int32(i) }
            s = (s + 1) & mask
        }
    }

    private mutating func insert(_ i: Int32, hash h: UInt64) {
        let mask = slots.count - 1
        var s = Self.slot(h, mask: mask)
        while slots[s] != 0 { s = (s + 1) & mask }
        slots[s] = i + 1
    }

    private mutating func rehash(capacity: Int) {
        slots = [Int32](repeating: 0, count: capacity)
        for i in names.indices { insert(Int32(i), hash: hashes[i]) }
    }

    /// The table slot of a hash: its high bits after a further multiplicative mix.
    @inline(__always)
    private static func slot(_ h: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: (h &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// A 64-bit hash of the UTF-8 bytes of `name`, eight bytes at a time (a multiply-xorshift
    /// per word, the length mixed in). Only this process's table uses it; a name's index never
    /// depends on it.
    @inline(__always)
    static func hash(_ name: String) -> UInt64 {
        @inline(__always) func words(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            let m: UInt64 = 0x9E37_79B9_7F4A_7C15
            var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
            guard let base = bytes.baseAddress else { return h }
            let raw = UnsafeRawPointer(base)
            var i = 0
            while i + 8 <= bytes.count {
                h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* m
                h ^= h >> 29
                i += 8
            }
            // The last 1-7 bytes: the final eight bytes (overlapping the last word) when the
            // name is that long, else in 4-, 2- and 1-byte pieces.
            let rest = bytes.count - i
            var tail: UInt64 = 0
            if rest > 0 && bytes.count >= 8 {
                tail = raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
            } else if rest > 0 {
                var j = 0
                if rest >= 4 { tail = UInt64(raw.loadUnaligned(fromByteOffset: i, as: UInt32.self)); j = 4 }
                if rest - j >= 2 {
                    tail |= UInt64(raw.loadUnaligned(fromByteOffset: i + j, as: UInt16.self)) << UInt64(8 * j); j += 2
                }
                if rest - j >= 1 { tail |= UInt64(bytes[i + j]) << UInt64(8 * j) }
            }
            h = (h ^ tail) &* m
            return h ^ (h >> 32)
        }
        if let h = name.utf8.withContiguousStorageIfAvailable(words) { return h }
        var copy = name
        return copy.withUTF8(words)
    }

    package init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        while !c.isAtEnd { _ = intern(try c.decode(String.self)) }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        for n in names { try c.encode(n) }
    }
}
