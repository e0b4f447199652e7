import Testing
@testable import SmartStack

/// The name table every event goes through: indices are dense, stable and never confuse two
/// names, whatever their length (the hash reads 8-byte words, then 4-, 2- and 1-byte pieces).
@Suite struct InternerTests {
    /// Names of every length from 0 to 40 bytes, sharing prefixes and suffixes, plus
    /// non-ASCII ones: the shapes where a word-wise hash could merge two names.
    static let names: [String] = {
        var out: [String] = []
        for n in 0...40 {
            out.append(String(repeating: "a", count: n))
            out.append(String(repeating: "a", count: max(0, n - 1)) + "b")
            out.append("b" + String(repeating: "a", count: max(0, n - 1)))
        }
        out += ["org.example.calendar", "org.example.calendaR", "com.example.calendar", "é",
                "日本語のウィジェット", "weather", "weather ", " weather", "w\0eather", "notes", "note"]
        var seen = Set<String>()
        return out.filter { seen.insert($0).inserted }
    }()

    @Test func everyNameGetsItsOwnDenseIndexInOrderOfFirstUse() {
        var interner = Interner()
        for (i, name) in Self.names.enumerated() {
            #expect(interner.intern(name) == Int32(i), "first intern of \(name.debugDescription)")
        }
        #expect(interner.count == Self.names.count)
        // Interning again, and looking up, give the same index; the name comes back intact.
        for (i, name) in Self.names.enumerated().reversed() {
            #expect(interner.intern(name) == Int32(i))
            #expect(interner.index(of: name) == Int32(i))
            #expect(interner[Int32(i)] == name)
        }
        #expect(interner.count == Self.names.count)
        #expect(interner.index(of: "never interned") == nil)
        #expect(interner.index(of: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") == nil)  // 41 bytes
    }

    @Test func largeTablesGrowWithoutLosingNames() {
        var interner = Interner()
        let many = (0..<5000).map { "widget-\($0)" }
        for (i, name) in many.enumerated() { #expect(interner.intern(name) == Int32(i)) }
        for (i, name) in many.enumerated() where i % 7 == 0 { #expect(interner.index(of: name) == Int32(i)) }
        #expect(interner.index(of: "widget-5000") == nil)
    }

    @Test func snapshotsKeepTheIndices() throws {
        var interner = Interner()
        for name in Self.names { _ = interner.intern(name) }
        let restored = try SnapshotCoder.decode(Interner.self, from: SnapshotCoder.encode(interner))
        for (i, name) in Self.names.enumerated() { #expect(restored.index(of: name) == Int32(i)) }
        #expect(restored.count == interner.count)
    }
}
