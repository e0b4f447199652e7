import Testing
@testable import SmartStack

/// The value `table` finds for `name` placed in a buffer at `offset`, followed by `trailing` bytes.
private func lookUp<Value>(_ table: JSONNameTable<Value>, _ name: String, offset: Int, trailing: Int) -> Value? {
    let bytes = Array(repeating: UInt8(ascii: "#"), count: offset) + Array(name.utf8)
        + Array(repeating: UInt8(ascii: "#"), count: trailing)
    return bytes.withUnsafeBufferPointer { table.value(in: $0, start: offset, count: name.utf8.count) }
}

@Suite struct JSONNameTableTests {
    /// Names of every length from 1 to 24 bytes, some sharing prefixes.
    static let names: [String] = (1...24).map { String("abcdefghijklmnopqrstuvwx".prefix($0)) }
        + ["widget", "widgets", "time", "type", "lat", "lon", "é", "widget_impression"]

    @Test func everyNameIsFoundWhereverItSits() {
        let table = JSONNameTable(Self.names.enumerated().map { ($1, $0) })
        for (index, name) in Self.names.enumerated() {
            // Flush against the end (read byte by byte) and with whole words readable after it.
            for trailing in [0, 1, 7, 8, 16, 24] {
                #expect(lookUp(table, name, offset: 3, trailing: trailing) == index, "\(name) with \(trailing) bytes after")
            }
        }
    }

    @Test func nearMissesAreNotFound() {
        let table = JSONNameTable(JSONLField.allCases.map { ($0.name, $0) })
        for miss in ["tim", "times", "Time", "tIme", "typf", "widgetz", "widget_", "i", "ids", "propensitx", "duration2"] {
            for trailing in [0, 16] {
                #expect(lookUp(table, miss, offset: 0, trailing: trailing) == nil, "\(miss)")
            }
        }
        #expect([UInt8]().withUnsafeBufferPointer { table.value(for: $0) } == nil)
        #expect(lookUp(table, String(repeating: "a", count: 25), offset: 0, trailing: 0) == nil)
    }

    @Test func manyNamesStillFindTheirOwn() {
        // Enough names that some share a first entry: each must still be told apart.
        let names = (0..<500).map { "key\($0 * 7919 % 100_000)" }
        let table = JSONNameTable(names.enumerated().map { ($1, $0) })
        for (index, name) in names.enumerated() {
            #expect(lookUp(table, name, offset: 1, trailing: 2) == index)
        }
        #expect(lookUp(table, "key1", offset: 0, trailing: 8) == nil)
    }

    @Test func eventTypesAndFieldsHaveOneNameEach() {
        // The tables the reader uses: built from the one list of names, each name back to its case.
        for field in JSONLField.allCases {
            #expect(lookUp(JSONLField.names, field.name, offset: 0, trailing: 0) == field)
        }
        let types = JSONNameTable(EventType.allCases.map { ($0.rawValue, $0) })
        for type in EventType.allCases {
            #expect(lookUp(types, type.rawValue, offset: 2, trailing: 1) == type)
        }
    }

    @Test func aNameListedTwiceStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = JSONNameTable([("stack", 1), ("stack", 2)])
        }
    }
}
