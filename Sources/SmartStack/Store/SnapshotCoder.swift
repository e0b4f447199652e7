/// A compact binary `Encoder`/`Decoder` pair for engine snapshots.
///
/// Values are written in the order the synthesized `Codable` conformances visit them, without
/// keys: integers and doubles as 8 little-endian bytes, booleans as 1 byte, strings as a length
/// and UTF-8 bytes, containers of repeated values as a count then the elements (arrays of
/// `Double`, `Int32` and `UInt32` in bulk). Keys are not stored, so reading requires the same
/// type layout as writing (snapshots carry a version). An optional field (`WidgetConfig.app`)
/// is a presence byte then its value; optional elements and values are not supported.
enum SnapshotCoder {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let sink = Sink()
        try value.encode(to: Writer(sink: sink))
        return sink.bytes
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let source = Source(bytes: bytes)
        let value = try T(from: Reader(source: source))
        guard source.offset == bytes.count else {
            throw Failure(description: "\(bytes.count - source.offset) bytes left over at offset \(source.offset)")
        }
        return value
    }

    /// The value of type `T` that `bytes` start with, whatever follows: a snapshot's version,
    /// read before the rest is read with this version's layout.
    static func decodePrefix<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try read(type, from: Source(bytes: bytes))
    }

    // MARK: Writing

    final class Sink {
        var bytes: [UInt8] = []
        func word(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
        func string(_ s: String) { let u = Array(s.utf8); word(UInt64(u.count)); bytes.append(contentsOf: u) }
        func doubles(_ a: [Double]) {
            word(UInt64(a.count))
            for x in a { word(x.bitPattern) }
        }
        func patchCount(at offset: Int) {
            var v = UInt64(0)
            for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
            v += 1
            for i in 0..<8 { bytes[offset + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(i))) }
        }
    }

    struct Writer: Encoder {
        let sink: Sink
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(KeyedWriter<Key>(sink: sink))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let offset = sink.bytes.count
            sink.word(0)
            return UnkeyedWriter(sink: sink, countOffset: offset)
        }
        func singleValueContainer() -> any SingleValueEncodingContainer { ValueWriter(sink: sink) }
    }

    static func write<T: Encodable>(_ value: T, to sink: Sink) throws {
        switch value {
        case let v as Double: sink.word(v.bitPattern)
        case let v as Int: sink.word(UInt64(bitPattern: Int64(v)))
        case let v as Int64: sink.word(UInt64(bitPattern: v))
        case let v as Int32: sink.word(UInt64(bitPattern: Int64(v)))
        case let v as Int16: sink.word(UInt64(bitPattern: Int64(v)))
        case let v as UInt32: sink.word(UInt64(v))
        case let v as UInt64: sink.word(v)
        case let v as Bool: sink.bytes.append(v ? 1 : 0)
        case let v as String: sink.string(v)
        case let v as [Double]: sink.doubles(v)
        case let v as [Int32]:
            sink.word(UInt64(v.count)); for x in v { sink.word(UInt64(bitPattern: Int64(x))) }
        case let v as [UInt32]:
            sink.word(UInt64(v.count)); for x in v { sink.word(UInt64(x)) }
        default: try value.encode(to: Writer(sink: sink))
        }
    }

    struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let sink: Sink
        var codingPath: [any CodingKey] = []
        mutating func encodeNil(forKey key: Key) throws { throw Failure(description: "optional field '\(key.stringValue)' in a snapshot") }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try SnapshotCoder.write(value, to: sink) }
        // Optional fields (e.g. `WidgetConfig.app`): a presence byte, then the value if present.
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
            sink.bytes.append(value == nil ? 0 : 1)
            if let value { sink.string(value) }
        }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            sink.bytes.append(value == nil ? 0 : 1)
            if let value { try SnapshotCoder.write(value, to: sink) }
        }
        mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type, forKey key: Key) -> KeyedEncodingContainer<N> {
            KeyedEncodingContainer(KeyedWriter<N>(sink: sink))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { Writer(sink: sink).unkeyedContainer() }
        mutating func superEncoder() -> any Encoder { Writer(sink: sink) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { Writer(sink: sink) }
    }

    struct UnkeyedWriter: UnkeyedEncodingContainer {
        let sink: Sink
        let countOffset: Int
        var codingPath: [any CodingKey] = []
        var count = 0
        mutating func encodeNil() throws { throw Failure(description: "optional element in a snapshot") }
        mutating func encode<T: Encodable>(_ value: T) throws {
            sink.patchCount(at: countOffset); count += 1
            try SnapshotCoder.write(value, to: sink)
        }
        mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type) -> KeyedEncodingContainer<N> {
            sink.patchCount(at: countOffset); count += 1
            return KeyedEncodingContainer(KeyedWriter<N>(sink: sink))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            sink.patchCount(at: countOffset); count += 1
            return Writer(sink: sink).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { Writer(sink: sink) }
    }

    struct ValueWriter: SingleValueEncodingContainer {
        let sink: Sink
        var codingPath: [any CodingKey] = []
        mutating func encodeNil() throws { throw Failure(description: "optional value in a snapshot") }
        mutating func encode<T: Encodable>(_ value: T) throws { try SnapshotCoder.write(value, to: sink) }
    }

    // MARK: Reading

    final class Source {
        let bytes: [UInt8]
        var offset = 0
        init(bytes: [UInt8]) { self.bytes = bytes }
        func word() throws -> UInt64 {
            guard offset + 8 <= bytes.count else { throw Failure(description: "truncated at offset \(offset)") }
            var v = UInt64(0)
            for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
            offset += 8
            return v
        }
        func count() throws -> Int {
            let n = try word()
            guard n <= UInt64(bytes.count - offset) else { throw Failure(description: "impossible count \(n) at offset \(offset - 8)") }
            return Int(n)
        }
        func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw Failure(description: "truncated at offset \(offset)") }
            offset += 1
            return bytes[offset - 1]
        }
        func string() throws -> String {
            let n = try count()
            guard offset + n <= bytes.count else { throw Failure(description: "truncated string at offset \(offset)") }
            defer { offset += n }
            return String(decoding: bytes[offset..<(offset + n)], as: UTF8.self)
        }
    }

    struct Reader: Decoder {
        let source: Source
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(KeyedReader<Key>(source: source))
        }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            UnkeyedReader(source: source, count: try source.count())
        }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { ValueReader(source: source) }
    }

    static func read<T: Decodable>(_ type: T.Type, from source: Source) throws -> T {
        func int() throws -> Int64 { Int64(bitPattern: try source.word()) }
        func narrow<I: FixedWidthInteger>(_ v: Int64, _ t: I.Type) throws -> I {
            guard let r = I(exactly: v) else { throw Failure(description: "value \(v) out of range at offset \(source.offset - 8)") }
            return r
        }
        if T.self == Double.self { return Double(bitPattern: try source.word()) as! T }
        if T.self == Int.self { return try narrow(int(), Int.self) as! T }
        if T.self == Int64.self { return try int() as! T }
        if T.self == Int32.self { return try narrow(int(), Int32.self) as! T }
        if T.self == Int16.self { return try narrow(int(), Int16.self) as! T }
        if T.self == UInt32.self { return try narrow(int(), UInt32.self) as! T }
        if T.self == UInt64.self { return try source.word() as! T }
        if T.self == Bool.self { return (try source.byte() != 0) as! T }
        if T.self == String.self { return try source.string() as! T }
        if T.self == [Double].self {
            let n = try source.count()
            var a = [Double](); a.reserveCapacity(n)
            for _ in 0..<n { a.append(Double(bitPattern: try source.word())) }
            return a as! T
        }
        if T.self == [Int32].self {
            let n = try source.count()
            var a = [Int32](); a.reserveCapacity(n)
            for _ in 0..<n { a.append(try narrow(int(), Int32.self)) }
            return a as! T
        }
        if T.self == [UInt32].self {
            let n = try source.count()
            var a = [UInt32](); a.reserveCapacity(n)
            for _ in 0..<n { a.append(try narrow(int(), UInt32.self)) }
            return a as! T
        }
        return try T(from: Reader(source: source))
    }

    struct KeyedReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let source: Source
        var codingPath: [any CodingKey] = []
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try SnapshotCoder.read(type, from: source) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            let flag = try SnapshotCoder.read(Bool.self, from: source)
            return flag ? try SnapshotCoder.read(String.self, from: source) : nil
        }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            let flag = try SnapshotCoder.read(Bool.self, from: source)
            return flag ? try SnapshotCoder.read(type, from: source) : nil
        }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
            KeyedDecodingContainer(KeyedReader<N>(source: source))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try Reader(source: source).unkeyedContainer() }
        func superDecoder() throws -> any Decoder { Reader(source: source) }
        func superDecoder(forKey key: Key) throws -> any Decoder { Reader(source: source) }
    }

    struct UnkeyedReader: UnkeyedDecodingContainer {
        let source: Source
        var codingPath: [any CodingKey] = []
        var count: Int?
        var currentIndex = 0
        init(source: Source, count: Int) { self.source = source; self.count = count }
        var isAtEnd: Bool { currentIndex >= count! }
        mutating func decodeNil() throws -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard !isAtEnd else { throw Failure(description: "read past the end of a list at offset \(source.offset)") }
            currentIndex += 1
            return try SnapshotCoder.read(type, from: source)
        }
        mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) throws -> KeyedDecodingContainer<N> {
            currentIndex += 1
            return KeyedDecodingContainer(KeyedReader<N>(source: source))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            currentIndex += 1
            return try Reader(source: source).unkeyedContainer()
        }
        mutating func superDecoder() throws -> any Decoder { Reader(source: source) }
    }

    struct ValueReader: SingleValueDecodingContainer {
        let source: Source
        var codingPath: [any CodingKey] = []
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try SnapshotCoder.read(type, from: source) }
    }
}
