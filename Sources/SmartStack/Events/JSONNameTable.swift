/// Recognises a fixed set of short names (JSON keys, enumerated string values) straight from a
/// line's bytes, without building a `String`: each name is packed into three 64-bit words and
/// found by hashing them.
///
/// ```swift
/// let types = JSONNameTable(EventType.allCases.map { ($0.rawValue, $0) })
/// types.value(for: bytes)   // .appLaunch for the bytes of "app_launch"
/// ```
struct JSONNameTable<Value: Sendable>: Sendable {
    /// The longest name a table holds (three words).
    static var maximumLength: Int { 24 }

    private struct Entry: Sendable {
        var words: (UInt64, UInt64, UInt64)
        /// 0 for a free entry (no name is empty).
        var length: Int
        var value: Value?
    }

    private var entries: [Entry]
    /// `entries.count - 1` (the count is a power of two).
    private let mask: Int
    /// Right shift that turns a 64-bit hash into an entry index.
    private let shift: UInt64

    /// A table of `names`: each 1 to 24 UTF-8 bytes long, all different.
    init(_ names: [(String, Value)]) {
        var count = 16
        while count < 4 * names.count { count *= 2 }
        entries = Array(repeating: Entry(words: (0, 0, 0), length: 0, value: nil), count: count)
        mask = count - 1
        shift = UInt64(64 - count.trailingZeroBitCount)
        for (name, value) in names {
            let bytes = Array(name.utf8)
            precondition((1...Self.maximumLength).contains(bytes.count), "name '\(name)' must be 1 to \(Self.maximumLength) bytes")
            let words = bytes.withUnsafeBufferPointer { Self.pack($0, 0, $0.count) }
            var index = slot(words, bytes.count)
            while entries[index].length != 0 {
                precondition(entries[index].length != bytes.count || entries[index].words != words, "name '\(name)' is listed twice")
                index = (index + 1) & mask
            }
            entries[index] = Entry(words: words, length: bytes.count, value: value)
        }
    }

    /// The value of the name spelled by `bytes[start..<start + count]`, if it is in the table.
    /// Whole words are read where `bytes` has them (past the name, never past `bytes`).
    ///
    /// - Complexity: O(1) (names are at most 24 bytes).
    @inline(__always)
    func value(in bytes: UnsafeBufferPointer<UInt8>, start: Int, count: Int) -> Value? {
        // The common case inline: a name of one word, with 8 bytes readable from its start.
        guard UInt(bitPattern: count &- 1) < 8 && start &+ 8 <= bytes.count else {
            return value(packing: bytes, start: start, count: count)
        }
        let word = Self.word(bytes, start, count)
        var index = slot((word, 0, 0), count)
        while true {
            let entry = entries[index]
            // Equal lengths of at most 8 bytes: the other two words are zero in both.
            if entry.length == count && entry.words.0 == word { return entry.value }
            if entry.length == 0 { return nil }
            index = (index &+ 1) & mask
        }
    }

    /// `value(in:start:count:)` for any name.
    @inline(never)
    private func value(packing bytes: UnsafeBufferPointer<UInt8>, start: Int, count: Int) -> Value? {
        guard count >= 1 && count <= Self.maximumLength else { return nil }
        let words = Self.pack(bytes, start, count)
        var index = slot(words, count)
        while true {
            let entry = entries[index]
            if entry.length == count && entry.words == words { return entry.value }
            if entry.length == 0 { return nil }
            index = (index &+ 1) & mask
        }
    }

    /// The value of the name spelled by all of `bytes`, if it is in the table.
    func value(for bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        value(in: bytes, start: 0, count: bytes.count)
    }

    /// The first entry to try for a packed name.
    @inline(__always)
    private func slot(_ words: (UInt64, UInt64, UInt64), _ length: Int) -> Int {
        let mixed = words.0 ^ (words.1 &* 0xC2B2_AE3D_27D4_EB4F) ^ (words.2 &* 0x1656_67B1_9E37_79F9) ^ UInt64(length)
        return Int(truncatingIfNeeded: (mixed &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// `bytes[start..<start + count]` (1 to 24 bytes), little-endian, zero-padded.
    @inline(__always)
    private static func pack(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> (UInt64, UInt64, UInt64) {
        (word(bytes, start, min(count, 8)),
         count > 8 ? word(bytes, start &+ 8, min(count &- 8, 8)) : 0,
         count > 16 ? word(bytes, start &+ 16, count &- 16) : 0)
    }

    /// `bytes[start..<start + count]` (1 to 8 bytes) as one little-endian word: one load when
    /// 8 bytes are readable there, else byte by byte.
    @inline(__always)
    private static func word(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> UInt64 {
        if start &+ 8 <= bytes.count {
            let loaded = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + start).loadUnaligned(as: UInt64.self))
            return count == 8 ? loaded : loaded & ((1 << UInt64(count &* 8)) &- 1)
        }
        var word: UInt64 = 0
        for k in 0..<count { word |= UInt64(bytes[start &+ k]) << UInt64(k &* 8) }
        return word
    }
}
