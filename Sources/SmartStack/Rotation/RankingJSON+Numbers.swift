/// Numbers in a ranking's JSON, written into bytes: Swift's `description` of a `Double` costs
/// more than the rest of a number's JSON (an allocation or a generic call, and a slower
/// algorithm), and a ranking with reasons holds about 45 of them.
extension RankingJSON {
    /// Room a number takes at most with the two writers below.
    static let maximumNumberLength = 48

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
        // A multiple of 10^(j+1) is one of 10^j, so j <= 3 is a count of three independent
        // tests, without the unpredictable loop exit that cost more than the arithmetic.
        let isEven = c & 1 == 0
        let low = uFraction == 0 && isEven ? u : u &+ 1
        let high = wFraction == 0 && !isEven ? w &- 1 : w
        let low1 = (low &+ 9) / 10, high1 = high / 10
        let low2 = (low &+ 99) / 100, high2 = high / 100
        let low3 = (low &+ 999) / 1000, high3 = high / 1000
        var j = (low1 <= high1 ? 1 : 0) &+ (low2 <= high2 ? 1 : 0) &+ (low3 <= high3 ? 1 : 0)
        // The multiple of 10^j nearest the exact v + vFraction / 2^m (ties cannot occur in
        // this range), kept inside the interval: d = v / 10^j rounded down, r the remainder.
        var d: UInt64, r: UInt64, lowJ: UInt64, highJ: UInt64
        if j < 3 {
            let v1 = v / 10, v2 = v / 100
            d = j == 0 ? v : j == 1 ? v1 : v2
            r = j == 0 ? 0 : j == 1 ? v &- v1 &* 10 : v &- v2 &* 100
            lowJ = j == 0 ? low : j == 1 ? low1 : low2
            highJ = j == 0 ? high : j == 1 ? high1 : high2
        } else {
            // A short decimal (a few digits, such as 0.25): look further, rarely taken.
            lowJ = low3; highJ = high3
            var unit: UInt64 = 1000
            while (lowJ &+ 9) / 10 <= highJ / 10 {
                lowJ = (lowJ &+ 9) / 10; highJ /= 10; unit &*= 10; j += 1
            }
            d = v / unit
            r = v &- d &* unit
        }
        // Up when past half of 10^j (for j = 0, when the fraction is), or at half and d odd.
        let halfUnit = powerOfTen(j) / 2
        let roundsUp = j == 0
            ? vFraction > half || (vFraction == half && d & 1 == 1)
            : r > halfUnit || (r == halfUnit && (vFraction != 0 || d & 1 == 1))
        d = min(max(roundsUp ? d &+ 1 : d, lowJ), highJ)
        // d has v's digits less j: rounding never carries into another digit (that multiple
        // of 10^(j+1) would have made j larger).
        let digits = (v >= 100_000_000_000_000_000 ? 18 : 17) - j
        let exponent = digits + j - n                // x = 0.ddd… × 10^exponent
        let k = x < 0 ? 1 : 0
        out[0] = UInt8(ascii: "-")                   // overwritten when x is positive
        if exponent >= digits {
            // An integer of 16 digits or more (smaller ones never come here): digits, zeros, ".0".
            writeDigits(d, count: digits, to: out + k)
            var end = k + digits
            for _ in 0 ..< exponent - digits { out[end] = UInt8(ascii: "0"); end += 1 }
            out[end] = UInt8(ascii: "."); out[end + 1] = UInt8(ascii: "0")
            return end + 2
        }
        // d as 18 digits after eight zeros, so that a number below 1 finds its "0" and the zeros
        // after the point there too; then two fixed-size copies place the integer part and the
        // fraction around the point: the same moves for every length, where a branch on |x| < 1
        // and loops over the digits were mispredicted often enough to cost more than the work.
        var padded: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0x3030_3030_3030_3030, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &padded) { padded in
            let digitsAt = padded.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let first = d / 10_000_000_000_000_000, rest = d &- first &* 10_000_000_000_000_000
            let middle = rest / 100_000_000
            write2(UInt32(truncatingIfNeeded: first), to: digitsAt + 8)
            write8(UInt32(truncatingIfNeeded: middle), to: digitsAt + 10)
            write8(UInt32(truncatingIfNeeded: rest &- middle &* 100_000_000), to: digitsAt + 18)
            let point = 26 - digits + exponent      // the point falls before digitsAt[point]
            let integerDigits = max(exponent, 1)
            copy24(from: digitsAt + point - integerDigits, to: out + k)
            out[k + integerDigits] = UInt8(ascii: ".")
            copy24(from: digitsAt + point, to: out + k + integerDigits + 1)
            return k + integerDigits + 1 + digits - exponent
        }
    }

    /// Copies 24 bytes, of which the caller uses a prefix: three unaligned moves.
    @inline(__always)
    private static func copy24(from source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>) {
        for offset in stride(from: 0, to: 24, by: 8) {
            UnsafeMutableRawPointer(target + offset).storeBytes(
                of: UnsafeRawPointer(source + offset).loadUnaligned(as: UInt64.self), as: UInt64.self)
        }
    }

    /// Writes `value` (< 100) as two digits.
    @inline(__always)
    private static func write2(_ value: UInt32, to out: UnsafeMutablePointer<UInt8>) {
        let pairs = UnsafeRawPointer(digitPairs.utf8Start)
        UnsafeMutableRawPointer(out)
            .storeBytes(of: pairs.loadUnaligned(fromByteOffset: 2 &* Int(value), as: UInt16.self), as: UInt16.self)
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
