import SmartStack

/// The scalar pieces of JSON the package's small line readers share (ground truth, partial
/// results): a string literal's body with its escapes, and a number's text. Each reader keeps
/// its own structure and error type; these only move `i` and say what is wrong.
package enum JSONScalars {
    /// Reads a string literal whose opening quote is just before `i`, leaving `i` after its
    /// closing quote; the failure says why it cannot be read.
    package static func string<C: RandomAccessCollection<UInt8>>(_ bytes: C, at i: inout Int) -> Result<String, Failure>
        where C.Index == Int {
        // A string without escapes, the usual case, is its bytes as they are: no copy built.
        let start = i
        while i < bytes.endIndex, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\") { i += 1 }
        if i < bytes.endIndex, bytes[i] == UInt8(ascii: "\"") {
            i += 1
            return .success(String(decoding: bytes[start..<(i - 1)], as: UTF8.self))
        }
        i = start
        var out: [UInt8] = []
        while i < bytes.endIndex {
            let b = bytes[i]
            i += 1
            if b == UInt8(ascii: "\"") { return .success(String(decoding: out, as: UTF8.self)) }
            if b != UInt8(ascii: "\\") { out.append(b); continue }
            guard i < bytes.endIndex else { break }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "b"): out.append(8)
            case UInt8(ascii: "f"): out.append(12)
            case UInt8(ascii: "u"):
                guard i + 4 <= bytes.endIndex, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16),
                      let scalar = Unicode.Scalar(v) else { return .failure(Failure("bad \\u escape in string")) }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
                i += 4
            default: out.append(e)
            }
        }
        return .failure(Failure("unterminated string"))
    }

    /// The number starting at `i` (after any spaces), leaving `i` after it; `nil` when there is
    /// none or it is not finite.
    package static func number<C: RandomAccessCollection<UInt8>>(_ bytes: C, at i: inout Int) -> Double? where C.Index == Int {
        let start = i
        while i < bytes.endIndex, let c = Optional(bytes[i]),
              (c >= 48 && c <= 57) || c == 45 || c == 43 || c == 46 || c == 101 || c == 69 { i += 1 }
        guard i > start else { return nil }
        // A JSON number, the usual case, is read in place by the event scanner's exact reader (the
        // same correctly rounded value as `Double(String)`, without a string); other text as before.
        let end = i
        let exact: Double?? = bytes.withContiguousStorageIfAvailable { buffer in
            let from = start - bytes.startIndex, to = end - bytes.startIndex
            return isJSONNumber(buffer, from: from, to: to) ? JSONNumber.value(buffer, from: from, to: to) : nil
        }
        guard let v = exact.flatMap({ $0 }) ?? Double(String(decoding: bytes[start..<end], as: UTF8.self)), v.isFinite else { return nil }
        return v
    }

    /// Whether `bytes[start..<end]` is a number by JSON's grammar: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
    private static func isJSONNumber(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        @inline(__always) func isDigit(_ k: Int) -> Bool { k < end && bytes[k] >= 48 && bytes[k] <= 57 }
        var k = start
        if k < end && bytes[k] == UInt8(ascii: "-") { k += 1 }
        guard isDigit(k) else { return false }
        if bytes[k] == 48 { k += 1 } else { while isDigit(k) { k += 1 } }
        if k < end && bytes[k] == UInt8(ascii: ".") {
            k += 1
            guard isDigit(k) else { return false }
            while isDigit(k) { k += 1 }
        }
        if k < end && (bytes[k] == UInt8(ascii: "e") || bytes[k] == UInt8(ascii: "E")) {
            k += 1
            if k < end && (bytes[k] == UInt8(ascii: "+") || bytes[k] == UInt8(ascii: "-")) { k += 1 }
            guard isDigit(k) else { return false }
            while isDigit(k) { k += 1 }
        }
        return k == end
    }

    /// Why a scalar could not be read.
    package struct Failure: Error, Sendable {
        package var message: String
        package init(_ message: String) { self.message = message }
    }
}
