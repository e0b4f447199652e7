import Testing
@testable import SmartStack

/// Runs `body` with a scanner over `text`.
private func scanning<R>(_ text: String, _ body: (JSONScanner) throws -> R) rethrows -> R {
    try Array(text.utf8).withUnsafeBufferPointer { try body(JSONScanner(line: $0)) }
}

/// The line's members as (key, kind, value text) in order.
private func members(_ text: String) throws -> [(String, JSONValueKind, String)] {
    try scanning(text) { scanner in
        var found: [(String, JSONValueKind, String)] = []
        try scanner.forEachMember { member in
            let raw = String(decoding: scanner.content(of: member.value), as: UTF8.self)
            found.append((scanner.name(of: member.key), member.value.kind, raw))
        }
        return found
    }
}

/// The failure scanning `text`, if any.
private func failure(_ text: String) -> JSONLLineFailure? {
    do {
        _ = try members(text)
        return nil
    } catch {
        return error as? JSONLLineFailure
    }
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
            try scanner.forEachMember { member in
                if member.value.kind == .string { strings.append(scanner.string(member.value, scratch: &scratch)) }
                if member.value.kind == .number { numbers.append(scanner.double(member.value)) }
            }
            #expect(strings == ["a\né😀"])
            #expect(numbers == [1.25, Double("123456789012345678901234567890")!])
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

    @Test func aMemberIsHandedOutBeforeTheRestIsChecked() {
        var keys: [String] = []
        let problem = scanning(#"{"a":1,"b":2,}"#) { (scanner) -> JSONLLineFailure? in
            do {
                try scanner.forEachMember { (member) throws(JSONLLineFailure) in keys.append(scanner.name(of: member.key)) }
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
            try scanner.forEachMember { (member) throws(JSONLLineFailure) in
                var children = scanner.children(of: member)
                if member.value.kind == .object {
                    empty = 0
                    while try children.nextMember() != nil { empty += 1 }
                    return
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
