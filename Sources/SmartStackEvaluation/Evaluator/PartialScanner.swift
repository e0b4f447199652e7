#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SmartStack
import SmartStackDatasets

/// Writes the partial format's JSON: no whitespace, numbers that read back bit for bit
/// (integers exactly, doubles in Swift's shortest round-trip form).
struct PartialWriter {
    var bytes: [UInt8] = []

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func key(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        raw("\":")
    }

    mutating func int<T: BinaryInteger>(_ v: T) { bytes.append(contentsOf: String(v).utf8) }

    mutating func double(_ v: Double) {
        precondition(v.isFinite, "partial results hold finite numbers only")
        bytes.append(contentsOf: v.description.utf8)
    }

    mutating func bool(_ v: Bool) { raw(v ? "true" : "false") }

    mutating func string(_ v: String) { bytes.append(contentsOf: PartialWriter.quoted(v).utf8) }

    mutating func optionalString(_ v: String?) {
        if let v { string(v) } else { raw("null") }
    }

    /// `[a,b,c]` with `element` writing each.
    mutating func array<C: Collection>(_ items: C, _ element: (inout PartialWriter, C.Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            element(&self, item)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    static func quoted(_ text: String) -> String { JSONLWriter.string(text) }

    /// FNV-1a 64 of `bytes`: the trailer's checksum.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var h = checksumBasis
        for b in bytes { h = checksum(h, b) }
        return h
    }

    /// FNV-1a 64's offset basis: the checksum of no bytes.
    static let checksumBasis: UInt64 = 0xCBF2_9CE4_8422_2325

    /// Continues checksum `h` over one byte.
    static func checksum(_ h: UInt64, _ byte: UInt8) -> UInt64 { (h ^ UInt64(byte)) &* 0x100_0000_01B3 }

    /// Continues checksum `h` over `bytes`.
    static func checksum(_ h: UInt64, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = h
        for b in bytes { h = checksum(h, b) }
        return h
    }

    /// A checksum as the trailer writes it: 16 lowercase hexadecimal digits.
    static func hex(_ checksum: UInt64) -> String {
        let digits = String(checksum, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// Reads what `PartialWriter` writes, strictly in the order it writes it, with errors that
/// name the file, line and column (a partial file that is cut or altered is refused, not read).
struct PartialScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    let file: String
    let line: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, file: String, line: Int) {
        self.bytes = bytes
        self.file = file
        self.line = line
    }

    func failure(_ message: String) -> EvaluationError {
        EvaluationError("\(file):\(line):\(i + 1): corrupt partial: \(message)")
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0D { i += 1 }
    }

    private mutating func peek() -> UInt8? {
        skipSpace()
        return i < bytes.count ? bytes[i] : nil
    }

    mutating func expect(_ c: Unicode.Scalar) throws(EvaluationError) {
        guard peek() == UInt8(truncatingIfNeeded: c.value) else {
            throw failure("expected '\(c)' but found \(i < bytes.count ? "'\(Character(UnicodeScalar(bytes[i])))'" : "the end of the line")")
        }
        i += 1
    }

    /// Whether the next byte is `c` (consumed if so).
    mutating func take(_ c: Unicode.Scalar) -> Bool {
        guard peek() == UInt8(truncatingIfNeeded: c.value) else { return false }
        i += 1
        return true
    }

    /// Whether an optional key `,"name":` comes next (consumed if so; nothing is consumed if not).
    mutating func takeKey(_ name: StaticString) -> Bool {
        let start = i
        guard take(",") else { return false }
        let matches = name.withUTF8Buffer { n in
            guard peek() == UInt8(ascii: "\""), i + n.count + 1 < bytes.count, bytes[i + n.count + 1] == UInt8(ascii: "\"")
            else { return false }
            return memcmp(bytes.baseAddress! + i + 1, n.baseAddress!, n.count) == 0
        }
        i += name.utf8CodeUnitCount + 2
        guard matches, take(":") else { i = start; return false }
        return true
    }

    /// `"name":`, after a `,` unless it is the object's first key.
    mutating func key(_ name: StaticString, first: Bool = false) throws(EvaluationError) {
        if !first { try expect(",") }
        // Keys are written without escapes: compare the bytes in place, decode only to complain.
        let start = i
        let matches = name.withUTF8Buffer { n in
            guard peek() == UInt8(ascii: "\""), i + n.count + 1 < bytes.count, bytes[i + n.count + 1] == UInt8(ascii: "\"")
            else { return false }
            return memcmp(bytes.baseAddress! + i + 1, n.baseAddress!, n.count) == 0
        }
        if matches {
            i += name.utf8CodeUnitCount + 2
        } else {
            i = start
            let k = try string()
            guard k == name.description else { throw failure("expected key '\(name)' but found '\(k)'") }
        }
        try expect(":")
    }

    mutating func string() throws(EvaluationError) -> String {
        try expect("\"")
        // Most strings hold no escape: take their bytes as they are.
        var j = i
        while j < bytes.count, bytes[j] != UInt8(ascii: "\""), bytes[j] != UInt8(ascii: "\\") { j += 1 }
        if j < bytes.count, bytes[j] == UInt8(ascii: "\"") {
            defer { i = j + 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<j]), as: UTF8.self)
        }
        switch JSONScalars.string(bytes, at: &i) {
        case .success(let text): return text
        case .failure(let failure): throw self.failure(failure.message)
        }
    }

    mutating func optionalString() throws(EvaluationError) -> String? {
        if try takeNull() { return nil }
        return try string()
    }

    /// Whether the next value is `null` (consumed if so).
    mutating func takeNull() throws(EvaluationError) -> Bool {
        guard take("n") else { return false }
        try literal("ull")
        return true
    }

    private mutating func literal(_ rest: String) throws(EvaluationError) {
        for c in rest.utf8 {
            guard i < bytes.count, bytes[i] == c else { throw failure("bad literal") }
            i += 1
        }
    }

    mutating func bool() throws(EvaluationError) -> Bool {
        if take("t") { try literal("rue"); return true }
        if take("f") { try literal("alse"); return false }
        throw failure("expected true or false")
    }

    mutating func int() throws(EvaluationError) -> Int {
        skipSpace()
        // Fast path: plain decimal integers, the bulk of a partial.
        var negative = false
        if i < bytes.count, bytes[i] == 0x2D { negative = true; i += 1 }
        let start = i
        var v = 0
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(bytes[i] - 0x30))
            guard !o1, !o2 else { throw failure("integer out of range") }
            v = a
            i += 1
        }
        guard i > start else { throw failure("expected an integer") }
        return negative ? -v : v
    }

    mutating func uint64() throws(EvaluationError) -> UInt64 {
        skipSpace()
        let start = i
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        guard i > start, let v = UInt64(String(decoding: bytes[start..<i], as: UTF8.self)) else {
            throw failure("expected an unsigned integer")
        }
        return v
    }

    /// A JSON number (`-?digits[.digits][(e|E)[+|-]digits]`), read exactly; finite only.
    mutating func double() throws(EvaluationError) -> Double {
        skipSpace()
        let start = i
        func digits(_ i: inout Int) -> Bool {
            let from = i
            while i < bytes.count, bytes[i] &- 48 < 10 { i += 1 }
            return i > from
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        var valid = digits(&i)
        if valid, i < bytes.count, bytes[i] == UInt8(ascii: ".") { i += 1; valid = digits(&i) }
        if valid, i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
            valid = digits(&i)
        }
        guard valid else { throw failure("expected a finite number") }
        let v = JSONNumber.value(bytes, from: start, to: i)
        guard v.isFinite else { i = start; throw failure("expected a finite number") }
        return v
    }

    /// `[e,e,...]`, calling `element` for each.
    mutating func array(_ element: (inout PartialScanner) throws(EvaluationError) -> Void) throws(EvaluationError) {
        try expect("[")
        if take("]") { return }
        repeat { try element(&self) } while take(",")
        try expect("]")
    }

    mutating func ints() throws(EvaluationError) -> [Int] {
        var out: [Int] = []
        try array { (s: inout PartialScanner) throws(EvaluationError) in out.append(try s.int()) }
        return out
    }

    mutating func strings() throws(EvaluationError) -> [String] {
        var out: [String] = []
        try array { (s: inout PartialScanner) throws(EvaluationError) in out.append(try s.string()) }
        return out
    }

    mutating func end() throws(EvaluationError) {
        skipSpace()
        guard i == bytes.count else { throw failure("unexpected bytes after the end of the record") }
    }
}
