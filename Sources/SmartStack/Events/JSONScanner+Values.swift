#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Internal: the values of spans the scanner has checked: strings with their escapes decoded,
// numbers as exact doubles.

/// Powers of ten exactly representable as a `Double`.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

extension JSONScanner {
    /// The bytes of a string's content as written (escapes not decoded), or of another value.
    func content(of span: JSONValueSpan) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[span.start..<span.end])
    }

    /// The string `span` holds; escapes are decoded through `scratch`, which callers reuse.
    func string(_ span: JSONValueSpan, scratch: inout [UInt8]) -> String {
        if span.isEscaped {
            decodeEscaped(span, into: &scratch)
            return String(decoding: scratch, as: UTF8.self)
        }
        return String(decoding: content(of: span), as: UTF8.self)
    }

    /// Decodes the escapes of the string `span` into `out` (replacing its contents).
    func decodeEscaped(_ span: JSONValueSpan, into out: inout [UInt8]) {
        decodeEscaped(span.start, span.end, into: &out)
    }

    /// Decodes the escaped string content `bytes[start..<end]` (already checked) into `out`.
    func decodeEscaped(_ start: Int, _ end: Int, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        var i = start
        while i < end {
            let c = bytes[i]
            guard c == UInt8(ascii: "\\") else {
                out.append(c)
                i += 1
                continue
            }
            let e = bytes[i + 1]
            switch e {
            case UInt8(ascii: "b"): out.append(0x08); i += 2
            case UInt8(ascii: "f"): out.append(0x0C); i += 2
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "u"):
                var scalar = checkedHex4(i + 2)
                i += 6
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = checkedHex4(i + 2)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                Self.appendUTF8(scalar, to: &out)
            default: out.append(e); i += 2   // \" \\ \/
            }
        }
    }

    /// The value of 4 hex digits the scanner has already checked.
    private func checkedHex4(_ i: Int) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = bytes[i + k]
            let d: UInt32 = c <= 57 ? UInt32(c) - 48 : c <= 70 ? UInt32(c) - 55 : UInt32(c) - 87
            v = v << 4 | d
        }
        return v
    }

    private static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80:
            out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    /// The exact `Double` of the number `span` (infinite when too large for a double).
    func double(_ span: JSONValueSpan) -> Double {
        JSONNumber.value(bytes, from: span.start, to: span.end)
    }
}

/// Numbers of JSON text, read exactly: the event scanner's and the partial reader's.
package enum JSONNumber {
    /// The exact `Double` of `bytes[start..<end]`, which must be a JSON number (grammar already
    /// checked); infinite when too large for a double.
    package static func value(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Double {
        var i = start
        var negative = false
        if bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        while i < end, JSONScanner.isDigit(bytes[i]) {
            if mantissa != 0 || bytes[i] != 48 { digits += 1 }
            mantissa = mantissa &* 10 &+ UInt64(bytes[i] - 48)
            i += 1
        }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, JSONScanner.isDigit(bytes[i]) {
                if mantissa != 0 || bytes[i] != 48 { digits += 1 }
                mantissa = mantissa &* 10 &+ UInt64(bytes[i] - 48)
                exponent -= 1
                i += 1
            }
        }
        if i < end {   // exponent part
            i += 1
            var exponentNegative = false
            if bytes[i] == UInt8(ascii: "-") { exponentNegative = true; i += 1 } else if bytes[i] == UInt8(ascii: "+") { i += 1 }
            var e = 0
            while i < end {
                if e < 100_000 { e = e * 10 + Int(bytes[i] - 48) }
                i += 1
            }
            exponent += exponentNegative ? -e : e
        }
        // Clinger's fast path: an exact integer mantissa and an exact power of ten give a
        // correctly rounded result in one IEEE operation.
        if digits <= 19 {
            if mantissa == 0 { return negative ? -0.0 : 0.0 }
            if mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
                var value = Double(mantissa)
                value = exponent < 0 ? value / exactPowersOfTen[-exponent] : value * exactPowersOfTen[exponent]
                return negative ? -value : value
            }
        }
        // Otherwise strtod on a NUL-terminated copy on the stack (no String to allocate); the
        // standard library's parser if strtod stops early (a locale with another decimal point).
        let count = end - start
        let parsed: Double? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { text in
            UnsafeMutableRawBufferPointer(text).copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<end])))
            text[count] = 0
            var stop: UnsafeMutablePointer<CChar>?
            let v = strtod(text.baseAddress!, &stop)
            return stop == text.baseAddress! + count ? v : nil
        }
        return parsed ?? Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)) ?? .nan
    }
}
