import Testing
@testable import SmartStack

/// Runs `body` with a scanner over `bytes`.
private func scanning<R>(_ bytes: [UInt8], _ body: (inout JSONScanner) throws -> R) throws -> R {
    try bytes.withUnsafeBufferPointer {
        var scanner = try JSONScanner(line: $0)
        return try body(&scanner)
    }
}

private func scanning<R>(_ text: String, _ body: (inout JSONScanner) throws -> R) throws -> R {
    try scanning(Array(text.utf8), body)
}

/// The line's members as (key, kind, value text) in order.
private func members(_ bytes: [UInt8]) throws -> [(String, JSONValueKind, String)] {
    try scanning(bytes) { scanner in
        var found: [(String, JSONValueKind, String)] = []
        while let member = try scanner.nextMember() {
            let raw = String(decoding: scanner.content(of: member.value), as: UTF8.self)
            found.append((scanner.name(of: member.key), member.value.kind, raw))
        }
        return found
    }
}

private func members(_ text: String) throws -> [(String, JSONValueKind, String)] {
    try members(Array(text.utf8))
}

/// The failure scanning `bytes`, if any.
private func failure(_ bytes: [UInt8]) -> JSONLLineFailure? {
    do {
        _ = try members(bytes)
        return nil
    } catch {
        return error as? JSONLLineFailure
    }
}

private func failure(_ text: String) -> JSONLLineFailure? {
    failure(Array(text.utf8))
}

/// The scanner knows JSON, not events: any keys, any values, positions for every problem.
@Suite struct JSONScannerTests {
    @Test func membersComeInOrderWithTheirKinds() throws {
        let found = try members(#" {"b": "x\"y", "a":-1.5e3,"t":true, "f":false,"n":null,"o":{"k":[1]},"arr":[] , "\u00e9":""} "#)
        #expect(found.map(\.0) == ["b", "a", "t", "f", "n", "o", "arr", "é"])
        #expect(found.map(\.1) == [.string, .number, .trueLiteral, .falseLiteral, .null, .object, .array, .string])
        #expect(found.map(\.2) == [#"x\"y"#, "-1.5e3", "true", "false", "null", #"{"k":[1]}"#, "[]", ""])
    }

    @Test func anEmptyObjectHasNoMembers() throws {
        #expect(try members("{}").isEmpty)
        #expect(try members(" { \t} ").isEmpty)
    }

    @Test func valuesDecode() throws {
        try scanning(#"{"s":"a\n\u00e9\ud83d\ude00","x":12.5e-1,"big":123456789012345678901234567890}"#) { scanner in
            var strings: [String] = [], numbers: [Double] = []
            var scratch: [UInt8] = []
            while let member = try scanner.nextMember() {
                if member.value.kind == .string { strings.append(scanner.string(member.value, scratch: &scratch)) }
                if member.value.kind == .number { numbers.append(scanner.double(member.value)) }
            }
            #expect(strings == ["a\né😀"])
            #expect(numbers == [1.25, Double("123456789012345678901234567890")!])
        }
    }

    @Test func everyBytePositionInALongStringIsLookedAt() throws {
        // Plain bytes are skipped eight at a time: wherever the first byte that is not plain
        // sits, it is found, and a problem is reported at its own offset.
        let start = #"{"k":""#.utf8.count
        for plain in 0..<20 {
            let text = String(repeating: "a", count: plain)
            for (byte, expected) in [(0x09, "control character U+0009"), (0x01, "control character U+0001"),
                                     (0xFF, "invalid UTF-8"), (0x80, "invalid UTF-8")] as [(UInt8, String)] {
                let line = Array(#"{"k":"\#(text)"#.utf8) + [byte] + Array(#"x"}"#.utf8)
                let problem = try #require(failure(line), "\(plain) plain bytes then \(expected)")
                #expect(problem.offset == start + plain, "\(plain) plain bytes then \(expected)")
                #expect(problem.message.contains(expected))
            }
            for tail in [#"\"b"#, "é", "😀", #"\u00e9"#] {
                let found = try members(#"{"k":"\#(text)\#(tail)z","after":1}"#)
                #expect(found.map(\.0) == ["k", "after"], "\(plain) plain bytes then \(tail)")
                #expect(found.first?.2 == text + tail + "z")
            }
        }
    }

    @Test func problemsInsideAValueNameItsMember() throws {
        let text = #"{"ok":1,"b\u0061d":[1,{"x":tru}]}"#
        let problem = try #require(failure(text))
        #expect(problem.field == "bad")
        #expect(problem.message == "field 'bad': invalid value (expected true, a number, a string, an array or an object)")
        #expect(problem.offset == Array(text.utf8).firstIndex(of: UInt8(ascii: "t"))!)   // at "tru"
    }

    @Test func problemsOutsideValuesNameNoField() throws {
        let problem = try #require(failure(#"{"a":1 "b":2}"#))
        #expect(problem.field == nil)
        #expect(problem.offset == 7)
        #expect(problem.message == #"expected ',' or '}' after a value but found '"'"#)
        #expect(failure(#"{"a":1}x"#)?.message == "unexpected 'x' after the closing '}' (one JSON object per line)")
        #expect(failure(#"{"a":"#)?.reachedEnd == true)
    }

    @Test func aMemberIsHandedOutBeforeTheRestIsChecked() throws {
        var keys: [String] = []
        let problem = try scanning(#"{"a":1,"b":2,}"#) { (scanner) -> JSONLLineFailure? in
            do {
                while let member = try scanner.nextMember() { keys.append(scanner.name(of: member.key)) }
                return nil
            } catch {
                return error as? JSONLLineFailure
            }
        }
        #expect(keys == ["a", "b"])
        #expect(problem?.message == "expected a key in double quotes but found '}' (a trailing comma is not allowed in JSON)")
    }

    @Test func checkedContainersAreWalkedChildByChild() throws {
        try scanning(#"{"list":[ {"id":"a", "n":[1, 2]} , "s", 3 ],"empty":{}}"#) { scanner in
            var elements: [JSONValueKind] = [], keys: [String] = [], numbers: [Double] = [], empty = -1
            while let member = try scanner.nextMember() {
                var children = scanner.children(of: member)
                if member.value.kind == .object {
                    empty = 0
                    while try children.nextMember() != nil { empty += 1 }
                    continue
                }
                while let element = try children.nextElement() {
                    elements.append(element.kind)
                    guard element.kind == .object else { continue }
                    var inner = children.children(of: element)
                    while let child = try inner.nextMember() {
                        keys.append(scanner.name(of: child.key))
                        guard child.value.kind == .array else { continue }
                        var numberList = inner.children(of: child.value)
                        while let number = try numberList.nextElement() { numbers.append(scanner.double(number)) }
                    }
                }
            }
            #expect(elements == [.object, .string, .number])
            #expect(keys == ["id", "n"])
            #expect(numbers == [1, 2])
            #expect(empty == 0)
        }
    }
}
