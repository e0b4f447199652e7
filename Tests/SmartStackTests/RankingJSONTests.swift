#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import SmartStack

/// The one JSON encoder of rankings and decisions (`rank --json`, the C API): the same bytes as
/// the `String`-built JSON it replaced, numbers exactly as Swift's `description` writes them.
@Suite struct RankingJSONTests {
    /// The fast number formatter against `description`: random bit patterns over its whole
    /// range, everyday magnitudes, short decimals and their neighbours, and every binade's edges.
    @Test func numbersAreWrittenAsDescriptionWritesThem() {
        var generator = SeededGenerator(seed: 11)
        var checked = 0
        // Bytes past the room the encoder reserves stay as they were (the writer stores whole
        // words beyond a number's end, inside that room only).
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: RankingJSON.maximumNumberLength + 16)
        defer { buffer.deallocate() }
        (buffer + RankingJSON.maximumNumberLength).initialize(repeating: 0xA5, count: 16)
        func check(_ x: Double) {
            defer {
                if (0..<16).contains(where: { buffer[RankingJSON.maximumNumberLength + $0] != 0xA5 }) {
                    Issue.record("\(x): written past maximumNumberLength")
                }
            }
            guard let count = RankingJSON.writeShortest(x, to: buffer) else {
                #expect(!(abs(x) >= 0x1p-9 && abs(x) < 0x1p53), "\(x) is in the fast range")
                return
            }
            let text = String(decoding: UnsafeBufferPointer(start: buffer, count: count), as: UTF8.self)
            if text != x.description { Issue.record("\(x.bitPattern): \(text), description \(x.description)") }
            checked += 1
        }
        for _ in 0..<100_000 {
            let sign: UInt64 = generator.next() & 1 << 63
            check(Double(bitPattern: sign | (1014 + generator.next() % 62) << 52 | generator.next() % (1 << 52)))
            check((generator.nextUnit() - 0.5) * 6)
            let digits = Int(generator.next() % 15) + 1
            var mantissa: UInt64 = 1
            for _ in 0..<digits { mantissa = mantissa * 10 + generator.next() % 10 }
            let short = Double("\(mantissa)e-\(generator.next() % 19)")!
            check(short); check(short.nextUp); check(short.nextDown); check(-short)
            // Integral parts of 16 digits (the point after the digits), and any exponent at all.
            check(1e15 + generator.nextUnit() * (0x1p53 - 1e15))
            check(Double(bitPattern: generator.next()))
        }
        for biased: UInt64 in 1010...1080 {
            for fraction: UInt64 in [0, 1, 2, 3, 1 << 51, (1 << 52) - 2, (1 << 52) - 1] {
                check(Double(bitPattern: biased << 52 | fraction))
            }
        }
        let edges: [Double] = [0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 0.1 + 0.2, 123.456, 0x1p-9, 0x1p53.nextDown, 4503599627370495.5,
                  1e15 + 0.5, 0.001953125, 0.001, 0.0001, 1e-5, 1e15, 1e16, 1e300, .leastNonzeroMagnitude, .pi, -.pi,
                  0.0, -0.0, 0.5, 0.25, -0.125, 1.5, 0.9999999999999999, 1.0000000000000002, 9.999999999999998,
                  99.99999999999999, 0x1p53 - 1, 0x1p52, 0x1p52 + 0.5, 999_999_999_999_999.9, 0.0019531250000000004,
                  .leastNormalMagnitude, .leastNormalMagnitude.nextDown, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                  .infinity, .nan]
        for x in edges {
            check(x)
        }
        #expect(checked > 400_000)
    }

    /// Eight digits without dividing: every power of ten and its neighbours, and a sample (all
    /// 10^8 values were checked once, which takes too long for every test run).
    @Test func eightDigitsAreWrittenExactly() {
        var values: [UInt32] = [0, 99_999_999]
        var power: UInt32 = 1
        for _ in 0..<8 { values += [power - 1, power, power + 1]; power *= 10 }
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<200_000 { values.append(UInt32(generator.next() % 100_000_000)) }
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 8)
        defer { buffer.deallocate() }
        for value in values {
            RankingJSON.write8(value, to: buffer)
            let text = String(decoding: UnsafeBufferPointer(start: buffer, count: 8), as: UTF8.self)
            let expected = String(value)
            if text != String(repeating: "0", count: 8 - expected.count) + expected { Issue.record("\(value): \(text)") }
        }
    }

    @Test(arguments: [Int64(0), 1, -1, 9, 10, 99, 100, 12_345_678, 123_456_789, -999_999_999_999_999, .max, .min])
    func integersAreWrittenInDecimal(value: Int64) {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: RankingJSON.maximumNumberLength)
        defer { buffer.deallocate() }
        let count = RankingJSON.writeInteger(value, to: buffer)
        #expect(String(decoding: UnsafeBufferPointer(start: buffer, count: count), as: UTF8.self) == String(value))
    }

    /// Rankings and decisions of a month of two people's routines, every policy: the bytes of the
    /// `String`-built JSON this encoder replaced (`rank --json` may not change).
    @Test(arguments: ["contextual", "bandit", "frecency", "time-of-day", "round-robin"])
    func rankingsAndDecisionsAreTheJSONTheyWere(policy: String) throws {
        let engine = try Engine(path: ":memory:", policy: PolicySpec(parsing: policy))
        for user in ["ana", "bo"] { try engine.record(HostRoutine.events(user: user, days: 21, seed: user == "ana" ? 5 : 6)) }
        var reasons = 0
        for (k, at) in HostRoutine.probes(days: 22).enumerated() {
            for user in ["ana", "bo"] {
                for stack in ["home", "work"] {
                    let ranking = try engine.ranking(stack: stack, user: user, at: at)
                    #expect(RankingJSON.string(ranking) == Self.reference(ranking, decision: nil, explained: true))
                    let decision = try engine.decide(stack: stack, user: user, at: at, explained: k % 2 == 0)
                    #expect(RankingJSON.string(decision, explained: k % 2 == 0)
                        == Self.reference(decision.ranking, decision: decision, explained: k % 2 == 0))
                    reasons += ranking.widgets.reduce(0) { $0 + $1.reasons.count }
                }
            }
        }
        #expect(reasons > 500)
    }

    /// Strings that need escaping, wherever they fall in the eight-byte words the copy reads,
    /// and long rankings that outgrow the first buffer.
    @Test func escapesAndLongRankingsAreWrittenAsBefore() {
        let specials = ["\"", "\\", "\n", "\u{1}", "\u{1F}", "\t", "é", "\u{7F}", " ", "~"]
        var widgets: [RankedWidget] = []
        for length in 0..<24 {
            for special in specials {
                for position in [0, length / 2, length] {
                    var text = String(repeating: "x", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                    widgets.append(RankedWidget(widget: text, score: Double(length) / 7, isEligible: length % 2 == 0,
                                                reasons: [Reason(text: text + special, contribution: -Double(position) / 3)]))
                }
            }
        }
        let at = EventTime(nanosecondsSinceEpoch: 1_772_456_700_123_000_000, utcOffsetSeconds: -18_000)
        let ranking = Ranking(stack: "home\u{0}", user: "\u{1F600} me", at: at, policy: "contextual", widgets: widgets)
        let json = RankingJSON.string(ranking)
        #expect(json.utf8.count > 40_000)
        #expect(json == Self.reference(ranking, decision: nil, explained: true))
        let decision = RotationDecision(top: "a\"b", didRotate: true, propensity: 0.125, ranking: ranking)
        let (text, length) = RankingJSON.cString(decision, explained: false)
        defer { free(text) }
        #expect(strlen(text) == length)
        #expect(String(cString: text) == Self.reference(ranking, decision: decision, explained: false))
    }

    /// The JSON as `rank --json` built it with `String`s before this encoder, and the decision's
    /// fields as the C API first added them: the reference the encoder must match.
    static func reference(_ ranking: Ranking, decision: RotationDecision?, explained: Bool) -> String {
        func number(_ x: Double) -> String {
            guard x.isFinite else { return "null" }
            if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
            return "\(x)"
        }
        let string = JSONLWriter.string
        var out = "{\"stack\":\(string(ranking.stack)),\"user\":\(string(ranking.user)),"
        out += "\"at\":\(string(ranking.at.rfc3339)),\"policy\":\(string(ranking.policy))"
        if let decision {
            out += ",\"top\":\(decision.top.map(string) ?? "null"),\"rotated\":\(decision.didRotate),"
            out += "\"propensity\":\(number(decision.propensity))"
        }
        out += ",\"ranking\":["
        for (i, widget) in ranking.widgets.enumerated() {
            if i > 0 { out += "," }
            out += "{\"widget\":\(string(widget.widget)),\"score\":\(number(widget.score)),\"eligible\":\(widget.isEligible)"
            if explained {
                out += ",\"reasons\":["
                out += widget.reasons.map { "{\"text\":\(string($0.text)),\"contribution\":\(number($0.contribution))}" }
                    .joined(separator: ",")
                out += "]"
            }
            out += "}"
        }
        return out + "]}"
    }
}
