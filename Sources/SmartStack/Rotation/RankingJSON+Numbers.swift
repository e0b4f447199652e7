/// Numbers in a ranking's JSON, written into bytes: Swift's `description` of a `Double` costs
/// more than the rest of a number's JSON (an allocation or a generic call, and a slower
/// algorithm), and a ranking with reasons holds about 45 of them.
extension RankingJSON {
    /// Room a number takes at most with the two writers below.
    static let maximumNumberLength = 32

    /// Writes `value` in decimal; returns how many bytes.
    static func writeInteger(_ value: Int64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var k = 0
        if value < 0 { out[0] = UInt8(ascii: "-"); k = 1 }
        let magnitude = value.magnitude
        var digits = 1
        while digits < 20 && magnitude >= powerOfTen(digits) { digits += 1 }   // below 10^15 here
        writeDigits(magnitude, count: digits, to: out + k)
        return k + digits
    }

    /// Writes the shortest decimal that reads back to `x`, exactly as `x.description` does, when
    /// 2^-9 <= |x| < 2^53 (where Swift writes no exponent); `nil` (nothing written) otherwise.
    ///
    /// `x` is `c · 2^q`; any decimal strictly inside (or, for an even `c`, on the edge of) the
    /// interval halfway to its neighbours reads back to it. Scaled by `2^(2-q) · 10^n`, with `n`
    /// chosen so that `x · 10^n` has 17 or 18 digits, the interval's ends are integers plus
    /// fractions known exactly (128-bit products). The answer is the multiple of the largest
    /// power of ten `10^j` inside it, the one nearest `x` (Swift's "shortest, then closest"); the
    /// tests compare it with `description` on millions of values.
    static func writeShortest(_ x: Double, to out: UnsafeMutablePointer<UInt8>) -> Int? {
        let bits = x.bitPattern
        let biased = Int((bits &>> 52) & 0x7FF)
        guard biased >= 1014, biased <= 1075 else { return nil }   // 2^-9 <= |x| < 2^53
        let fraction = bits & (1 &<< 52 &- 1)
        let c = fraction | 1 &<< 52
        let m = 1077 - biased                       // 2 - q: 2...63
        let e2 = biased - 1023
        let n = 16 - ((e2 &* 78_913) &>> 18)        // 16 - floor(e2 · log10 2): 1...19
        let scale = powerOfTen(n)
        let mask: UInt64 = (1 &<< m) &- 1, half: UInt64 = 1 &<< (m - 1)
        // Center, lower and upper end of the interval, times 4: the lower gap is half as wide
        // at the bottom of a binade.
        let (vh, vl) = (4 &* c).multipliedFullWidth(by: scale)
        let v = (vh &<< (64 - m)) | (vl &>> m), vFraction = vl & mask
        let (uh, ul) = (fraction == 0 ? 4 &* c &- 1 : 4 &* c &- 2).multipliedFullWidth(by: scale)
        let u = (uh &<< (64 - m)) | (ul &>> m), uFraction = ul & mask
        let (wh, wl) = (4 &* c &+ 2).multipliedFullWidth(by: scale)
        let w = (wh &<< (64 - m)) | (wl &>> m), wFraction = wl & mask
        // The integers low...high inside the interval (its ends count when c is even, as
        // reading rounds ties to even), then the largest j with a multiple of 10^j among them.
        let isEven = c & 1 == 0
        var low = uFraction == 0 && isEven ? u : u &+ 1
        var high = wFraction == 0 && !isEven ? w &- 1 : w
        var j = 0
        while true {
            let nextLow = (low &+ 9) / 10, nextHigh = high / 10
            if nextLow > nextHigh { break }
            low = nextLow; high = nextHigh; j += 1
        }
        // The multiple of 10^j nearest the exact v + vFraction / 2^m (ties cannot occur in
        // this range), kept inside low...high.
        var d: UInt64
        if j == 0 {
            d = v
            if vFraction > half || (vFraction == half && d & 1 == 1) { d &+= 1 }
        } else {
            let unit = powerOfTen(j)
            // A division by a constant is a multiplication: j is 1 or 2 for most numbers of a
            // ranking (16 or 15 digits), where a division by a variable costs tens of cycles.
            d = j == 1 ? v / 10 : j == 2 ? v / 100 : v / unit
            let twice = (UInt128(v &- d &* unit) &<< m | UInt128(vFraction)) &<< 1
            let whole = UInt128(unit) &<< m
            if twice > whole || (twice == whole && d & 1 == 1) { d &+= 1 }
        }
        d = min(max(d, low), high)
        // d has v's digits less j: rounding never carries into another digit (that multiple
        // of 10^(j+1) would have made j larger).
        let digits = (v >= 100_000_000_000_000_000 ? 18 : 17) - j
        let exponent = digits + j - n                // x = 0.ddd… × 10^exponent
        var k = 0
        if x < 0 { out[0] = UInt8(ascii: "-"); k = 1 }
        if exponent <= 0 {
            out[k] = UInt8(ascii: "0"); out[k + 1] = UInt8(ascii: "."); k += 2
            for _ in 0 ..< -exponent { out[k] = UInt8(ascii: "0"); k += 1 }
            writeDigits(d, count: digits, to: out + k); k += digits
        } else if exponent < digits {
            // All digits one place to the right, then the integer part moved back before the
            // point (dividing by a power of ten known only here would cost more).
            writeDigits(d, count: digits, to: out + k + 1)
            for i in 0..<exponent { out[k + i] = out[k + 1 + i] }
            out[k + exponent] = UInt8(ascii: ".")
            k += digits + 1
        } else {
            writeDigits(d, count: digits, to: out + k); k += digits
            for _ in 0 ..< exponent - digits { out[k] = UInt8(ascii: "0"); k += 1 }
            out[k] = UInt8(ascii: "."); out[k + 1] = UInt8(ascii: "0"); k += 2
        }
        return k
    }

    /// Writes the last `count` (at most 20) decimal digits of `value`, zero-padded, eight at
    /// a time.
    @inline(__always)
    private static func writeDigits(_ value: UInt64, count: Int, to out: UnsafeMutablePointer<UInt8>) {
        var value = value
        var end = count
        while end > 8 {
            write8(UInt32(truncatingIfNeeded: value % 100_000_000), to: out + end - 8)
            value /= 100_000_000
            end -= 8
        }
        // The first 1...8 digits, two at a time from the right.
        var rest = UInt32(truncatingIfNeeded: value % 100_000_000)
        let pairs = UnsafeRawPointer(digitPairs.utf8Start)
        while end >= 2 {
            end -= 2
            UnsafeMutableRawPointer(out + end)
                .storeBytes(of: pairs.loadUnaligned(fromByteOffset: 2 &* Int(rest % 100), as: UInt16.self), as: UInt16.self)
            rest /= 100
        }
        if end == 1 { out[0] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0") }
    }

    /// Writes `value` (< 10^8) as eight digits, two at a time without dividing: `value / 10^6`
    /// in 32.32 fixed point, then the fraction times 100 for each next pair (exact for every
    /// such value: checked exhaustively when written, and by the tests on a sample).
    @inline(__always)
    static func write8(_ value: UInt32, to out: UnsafeMutablePointer<UInt8>) {
        let pairs = UnsafeRawPointer(digitPairs.utf8Start)
        var y = ((UInt64(value) &* 281_474_977) &>> 16) &+ 1   // 2^48 / 10^6, rounded up
        for k in 0..<4 {
            let pair = Int(truncatingIfNeeded: y &>> 32)
            UnsafeMutableRawPointer(out + 2 &* k)
                .storeBytes(of: pairs.loadUnaligned(fromByteOffset: 2 &* pair, as: UInt16.self), as: UInt16.self)
            y = (y & 0xFFFF_FFFF) &* 100
        }
    }

    private static var digitPairs: StaticString {
        """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899
        """
    }

    /// 10^n for n in 0...19 (a table the compiler lays out; 0 beyond).
    @inline(__always)
    private static func powerOfTen(_ n: Int) -> UInt64 {
        switch n {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        case 18: 1_000_000_000_000_000_000
        case 19: 10_000_000_000_000_000_000
        default: 0
        }
    }
}
