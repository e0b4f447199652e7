import CSmartStack
import Foundation
import SmartStack
@testable import SmartStackC
@testable import SmartStackCLI
import Testing

/// The C API called in-process, compared with the Swift API it wraps.
@Suite struct CAPITests {
    /// The bundled commuter persona's events (three people, four weeks), as JSONL and as events.
    static let commuter: (jsonl: [UInt8], events: [Event]) = {
        var reader = try! JSONLReader(path: Bindings.root.appendingPathComponent("Datasets/commuter.jsonl").path)
        var events: [Event] = []
        var jsonl: [UInt8] = []
        while let event = try! reader.next() {
            events.append(event)
            JSONLWriter.append(event, to: &jsonl)
        }
        return (jsonl, events)
    }()

    static func open(_ path: String = ":memory:") throws -> OpaquePointer {
        var engine: OpaquePointer?
        try check(smartstack_open(path, nil, nil, 0, &engine), nil)
        return try #require(engine)
    }

    static func check(_ status: smartstack_status, _ engine: OpaquePointer?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if status != SMARTSTACK_OK {
            throw BindingTestFailure("status \(status.rawValue): \(String(cString: smartstack_last_error(engine)))")
        }
    }

    static func record(_ engine: OpaquePointer, _ jsonl: [UInt8]) throws {
        try check(jsonl.withUnsafeBytes { smartstack_record(engine, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count, nil, nil) },
                  engine)
    }

    /// The JSON text of a decide or rank call.
    static func text(_ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, UnsafeMutablePointer<Int>) -> smartstack_status,
                     _ engine: OpaquePointer) throws -> String {
        var json: UnsafeMutablePointer<CChar>?
        var length = 0
        try check(call(&json, &length), engine)
        defer { smartstack_free(json) }
        let text = String(cString: try #require(json))
        #expect(text.utf8.count == length)
        return text
    }

    /// A C engine and a Swift engine holding the commuter persona's events, and its last instant.
    static func commuterEngines() throws -> (c: OpaquePointer, swift: Engine, last: EventTime) {
        let (jsonl, events) = Self.commuter
        let engine = try Self.open()
        try Self.record(engine, jsonl)
        let swift = try Engine(path: ":memory:")
        try swift.record(events)
        return (engine, swift, events.map(\.time).max()!)
    }

    /// Every ranking the C API writes is the object `smartstack rank --json` prints, byte for
    /// byte, over a month of a real-looking routine: numbers, escapes and all.
    @Test func rankJSONIsTheCommandLinesJSON() throws {
        let (engine, swift, last) = try Self.commuterEngines()
        defer { _ = smartstack_close(engine) }
        var compared = 0
        for user in ["commuter-00", "commuter-01", "commuter-02"] {
            for stack in ["top", "bottom"] {
                for hours in stride(from: 1, through: 24, by: 1) {
                    let at = last.adding(seconds: Double(hours) * 3600 + 17.25)
                    let c = try Self.text({ smartstack_rank(engine, stack, user, at.nanosecondsSinceEpoch, at.utcOffsetSeconds, $0, $1) }, engine)
                    let ranking = try swift.ranking(stack: stack, user: user, at: at)
                    #expect(c == RankCommand.json(ranking))
                    // Without reasons: the same JSON with each widget's reasons left out.
                    let bare = try Self.text({
                        smartstack_rank_explained(engine, stack, user, at.nanosecondsSinceEpoch, at.utcOffsetSeconds, 0, $0, $1)
                    }, engine)
                    var unexplained = ranking
                    for k in unexplained.widgets.indices { unexplained.widgets[k].reasons = [] }
                    #expect(bare == RankCommand.json(unexplained).replacing(#","reasons":[]"#, with: ""))
                    compared += 1
                }
            }
        }
        #expect(compared == 144)
    }

    /// A decision through the C API is the decision the Swift engine takes on the same events,
    /// at the same instants (the rotation state evolves alike), written as `rank --json` writes
    /// its ranking, with `top`, `rotated` and `propensity` before it; without reasons only they go.
    @Test func decisionJSONIsTheSwiftDecision() throws {
        let (jsonl, events) = Self.commuter
        let explained = try Self.open(), bare = try Self.open()
        defer { _ = smartstack_close(explained); _ = smartstack_close(bare) }
        try Self.record(explained, jsonl)
        try Self.record(bare, jsonl)
        let swift = try Engine(path: ":memory:")
        try swift.record(events)
        var at = events.map(\.time).max()!
        var rotations = 0
        for step in 0..<60 {
            at = at.adding(seconds: Double(7 * 60 + step))
            let expected = try swift.decide(stack: "top", user: "commuter-01", at: at)
            let full = RankCommand.json(expected.ranking)
                .replacing(",\"ranking\":[", with: Self.fields(expected), maxReplacements: 1)
            var unexplained = expected.ranking
            unexplained.widgets = unexplained.widgets.map { RankedWidget(widget: $0.widget, score: $0.score, isEligible: $0.isEligible, reasons: []) }
            let plain = RankCommand.json(unexplained)
                .replacing(",\"ranking\":[", with: Self.fields(expected), maxReplacements: 1)
                .replacing(",\"reasons\":[]", with: "")
            #expect(try Self.decision(explained, at: at, explain: 1) == full)
            #expect(try Self.decision(bare, at: at, explain: 0) == plain)
            if expected.didRotate { rotations += 1 }
        }
        #expect(rotations > 0, "the instants should include rotations")
    }

    /// A packed decision holds the Swift engine's decision at the same instants: the same top,
    /// widgets, scores (the same doubles), eligibility and reasons, with and without explanations.
    @Test func packedDecisionIsTheSwiftDecision() throws {
        let (engine, swift, last) = try Self.commuterEngines()
        defer { _ = smartstack_close(engine) }
        var at = last
        var reasons = 0
        for step in 0..<60 {
            at = at.adding(seconds: Double(7 * 60 + step))
            let explained = step % 3 != 2
            let expected = try swift.decide(stack: "top", user: "commuter-01", at: at, explained: explained)
            var out: UnsafeMutablePointer<smartstack_decision>?
            try Self.check(smartstack_decide_packed(engine, "top", "commuter-01", at.nanosecondsSinceEpoch, at.utcOffsetSeconds,
                                                    explained ? 1 : 0, &out), engine)
            defer { smartstack_free_decision(out) }
            let d = try #require(out).pointee
            #expect(Self.string(d.stack) == "top" && Self.string(d.user) == "commuter-01" && Self.string(d.policy) == expected.ranking.policy)
            #expect(d.at_unix_ns == at.nanosecondsSinceEpoch && d.utc_offset_seconds == at.utcOffsetSeconds)
            #expect((d.top.bytes == nil ? nil : Self.string(d.top)) == expected.top)
            #expect((d.rotated != 0) == expected.didRotate && d.propensity == expected.propensity)
            let widgets = (0..<d.widget_count).map { i in
                let w = d.widgets[i]
                return RankedWidget(widget: Self.string(w.widget), score: w.score, isEligible: w.eligible != 0,
                                    reasons: (0..<w.reason_count).map { Reason(text: Self.string(w.reasons[$0].text), contribution: w.reasons[$0].contribution) })
            }
            #expect(widgets == expected.ranking.widgets)
            #expect(d.reason_count == expected.ranking.widgets.reduce(0) { $0 + $1.reasons.count })
            if !explained { #expect(d.reason_count == 0 && d.reasons == nil) }
            reasons += d.reason_count
        }
        #expect(reasons > 0)
    }

    static func string(_ text: smartstack_text) -> String {
        String(decoding: UnsafeRawBufferPointer(start: text.bytes, count: text.length), as: UTF8.self)
    }

    /// `,"top":...,"rotated":...,"propensity":...,"ranking":[`: a decision's own fields, as JSON.
    static func fields(_ decision: RotationDecision) -> String {
        let top = decision.top.map(RankCommand.jsonString) ?? "null"
        let propensity = decision.propensity == decision.propensity.rounded() ? String(Int64(decision.propensity)) : "\(decision.propensity)"
        return ",\"top\":\(top),\"rotated\":\(decision.didRotate),\"propensity\":\(propensity),\"ranking\":["
    }

    static func decision(_ engine: OpaquePointer, at: EventTime, explain: Int32) throws -> String {
        try Self.text({
            smartstack_decide(engine, "top", "commuter-01", at.nanosecondsSinceEpoch, at.utcOffsetSeconds, explain, $0, $1)
        }, engine)
    }

    /// A large batch (parsed piece by piece while earlier pieces are stored) records what one
    /// pass over it would, and a bad batch fails with the error one pass reports first (same
    /// line, column and message) and stores nothing, whichever piece holds the bad line.
    @Test(arguments: [
        [:] as [Int: String],                                          // valid: every event stored
        [2_900: #"{"time":"2026-03-02T08:00:00","type":"screen_on"}"#],  // a bad line in the second half
        [100: #"{"type":"screen_on"}"#, 2_900: "{"],                    // bad lines in both halves: the first counts
        [1_501: "\u{FEFF}" + #"{"time":"2026-03-02T08:00:00Z","type":"screen_on"}"#],   // a byte order mark past line 1
        [2_999: "", 3_000: "   "],                                      // blank lines at the end
        [2: "{", 2_999: "{"],                                           // a bad line in the first piece
        [2_999: "{"],                                                   // a bad line in the last piece
        Dictionary(uniqueKeysWithValues: (1_000..<1_050).map { ($0, String(repeating: " ", count: 4_000)) }),   // blank pieces
    ])
    func largeBatchesReadAsOnePass(changes: [Int: String]) throws {
        var lines: [String] = []
        for i in 1...3_000 {
            lines.append(changes[i] ?? #"{"time":"2026-03-02T08:00:00-05:00","type":"app_launch","user":"u\#(i % 7)","id":"\#(i)","app":"com.example.app\#(i % 13)"}"#)
        }
        let batch = Array((lines.joined(separator: "\n") + "\n").utf8)
        #expect(batch.count > EventBatch.pipelineThreshold)
        var reader = JSONLReader(bytes: batch, name: EventBatch.name)
        var expected: Result<Int, JSONLError> = .success(0)
        do {
            var count = 0
            while try reader.next() != nil { count += 1 }
            expected = .success(count)
        } catch {
            expected = .failure(error)
        }
        let engine = try Self.open()
        defer { _ = smartstack_close(engine) }
        var inserted: UInt64 = 0
        let status = batch.withUnsafeBytes {
            smartstack_record(engine, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count, &inserted, nil)
        }
        switch expected {
        case .success(let count):
            let blank = changes.values.filter { $0.allSatisfy(\.isWhitespace) }.count
            #expect(status == SMARTSTACK_OK && inserted == UInt64(count) && count == 3_000 - blank)
        case .failure(let error):
            #expect(status == SMARTSTACK_ERROR_INVALID_EVENT && inserted == 0)
            #expect(String(cString: smartstack_last_error(engine)) == error.description)
            #expect(try EngineHandles.engine(engine).store.statistics().events == 0)
        }
    }

    /// A bad line is reported even when storing the pieces before it failed first (here: the
    /// engine was closed), as one pass that parses everything before storing reports it.
    @Test func aBadLineWinsOverAFailureToStore() throws {
        let good = #"{"time":"2026-03-02T08:00:00-05:00","type":"app_launch","user":"u","app":"com.example.app"}"#
        var lines = [String](repeating: good, count: 3_000)
        let engine = try Engine(path: ":memory:")
        try engine.close()
        let valid = Array((lines.joined(separator: "\n") + "\n").utf8)
        #expect(valid.count > 2 * EventBatch.pipelineThreshold)
        #expect(throws: EngineError.self) { try valid.withUnsafeBytes { try EventBatch.record($0, with: engine) } }
        lines[2_800] = #"{"time":"2026-03-02T08:00:00","type":"screen_on"}"#
        let bad = Array((lines.joined(separator: "\n") + "\n").utf8)
        var reader = JSONLReader(bytes: bad, name: EventBatch.name)
        let expected = #expect(throws: JSONLError.self) { while try reader.next() != nil {} }
        let reported = #expect(throws: JSONLError.self) { try bad.withUnsafeBytes { try EventBatch.record($0, with: engine) } }
        #expect(reported?.description == expected?.description && expected?.line == 2_801)
    }

    /// Ids with quotes, backslashes, control characters and characters beyond U+FFFF come back
    /// from the JSON exactly.
    @Test func unusualIdsSurviveTheJSON() throws {
        let engine = try Self.open()
        defer { _ = smartstack_close(engine) }
        let ids = ["say \"hi\"", #"back\slash"#, "tab\there\nnewline\u{1}", "🏠 home", "plain"]
        let stack = "stack \"q\" 🏠\u{7f}"
        try Self.configure(engine, user: "ü\"ser", stack: stack, ids: ids, at: 1_772_456_700_000_000_000)
        let text = try Self.text({ smartstack_rank(engine, stack, "ü\"ser", 1_772_456_760_000_000_000, -18_000, $0, $1) }, engine)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["stack"] as? String == stack && object["user"] as? String == "ü\"ser")
        let ranked = (object["ranking"] as? [[String: Any]] ?? []).compactMap { $0["widget"] as? String }
        #expect(Set(ranked) == Set(ids) && ranked.count == ids.count)
    }

    static func configure(_ engine: OpaquePointer, user: String, stack: String, ids: [String], at: Int64,
                          offset: Int32 = -18_000) throws {
        let copies = ids.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        try check(smartstack_configure(engine, user, stack, pointers, nil, pointers.count, at, offset), engine)
    }

    /// The first and last instants of the event format's years decide without trouble (the
    /// first one nanosecond after the stack's configuration at it, which only counts strictly
    /// after); one nanosecond beyond is refused with a status, not a crash.
    @Test(arguments: [(-18_000 as Int32), 0, 86_340, -86_340])
    func instantsAtTheEdgesOfTheFormat(offset: Int32) throws {
        let engine = try Self.open()
        defer { _ = smartstack_close(engine) }
        let day: Int64 = 86_400_000_000_000
        let first = EventTime.daysFromCivil(year: 1678, month: 1, day: 1) * day - Int64(offset) * 1_000_000_000
        let last = EventTime.daysFromCivil(year: 2262, month: 1, day: 1) * day - 1 - Int64(offset) * 1_000_000_000
        try Self.configure(engine, user: "me", stack: "home", ids: ["a", "b"], at: first, offset: offset)
        for at in [first + 1, last] {
            _ = try Self.text({ smartstack_decide(engine, "home", "me", at, offset, 1, $0, $1) }, engine)
        }
        for at in [first - 1, last + 1] {
            var json: UnsafeMutablePointer<CChar>?
            #expect(smartstack_decide(engine, "home", "me", at, offset, 1, &json, nil) == SMARTSTACK_ERROR_INVALID_ARGUMENT)
            #expect(json == nil)
        }
    }

    /// Each handle keeps its own last error: a later failure on another engine does not replace it.
    @Test func lastErrorsArePerHandle() throws {
        let a = try Self.open(), b = try Self.open()
        defer { _ = smartstack_close(a); _ = smartstack_close(b) }
        var json: UnsafeMutablePointer<CChar>?
        #expect(smartstack_decide(a, "home", "nobody-a", 0, 0, 1, &json, nil) == SMARTSTACK_ERROR_UNKNOWN_USER)
        #expect(smartstack_decide(b, "home", "nobody-b", 0, 0, 1, &json, nil) == SMARTSTACK_ERROR_UNKNOWN_USER)
        #expect(String(cString: smartstack_last_error(a)).contains("nobody-a"))
        #expect(String(cString: smartstack_last_error(b)).contains("nobody-b"))
        let fresh = try Self.open()
        #expect(String(cString: smartstack_last_error(fresh)) == "")
        _ = smartstack_close(fresh)
    }

    /// A closed handle stays closed however many engines open after it: handles are never reused.
    @Test func closedHandlesAreNeverReused() throws {
        let closed = try Self.open()
        try Self.check(smartstack_close(closed), closed)
        var opened: [OpaquePointer] = []
        for _ in 0..<20 { opened.append(try Self.open()) }
        #expect(!opened.contains(closed))
        #expect(smartstack_flush(closed) == SMARTSTACK_ERROR_CLOSED)
        for engine in opened { try Self.check(smartstack_close(engine), engine) }
    }

    @Test func versionIsTheCommandLinesVersion() {
        #expect(String(cString: smartstack_version()) == CommandLineTool.version)
        #expect(String(cString: smartstack_version()) == SMARTSTACK_VERSION)
    }
}
