import Foundation
import Testing
import SmartStack
@testable import SmartStackDatasets

@Suite struct SimulationGroundTruthTests {
    func time(_ s: String) -> EventTime { try! EventTime(rfc3339: s) }

    @Test func linesRoundTripThroughTheFileFormat() throws {
        let user = SimulationFixtures.simulate(.commuter, days: 3, seed: 1)
        var bytes: [UInt8] = []
        for e in user.truth { e.append(to: &bytes) }
        let truth = try GroundTruth.parse(String(decoding: bytes, as: UTF8.self), name: "t.jsonl")
        #expect(truth.count == user.truth.count)
        let same = truth.entries(user: "commuter-0") == user.truth
        #expect(same)
        for e in user.truth.prefix(50) {
            #expect(try truth.entry(user: e.user, stack: e.stack, at: e.time) == e)
        }
    }

    @Test func loadsAFileAndLooksUpByExactInstant() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("x.truth.jsonl").path
        let text = """
            {"user":"u1","time":"2026-01-05T08:00:00-05:00","stack":"top","distribution":{"calendar":0.6,"maps":0.1},"engaged":"calendar"}
            {"user":"u1","time":"2026-01-05T09:00:00-05:00","stack":"top","distribution":{"calendar":0.2,"maps":0.5},"engaged":null,"extra":[1,{"a":true}]}

            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let truth = try GroundTruth.load(path: path)
        #expect(truth.users == ["u1"])
        // Same instant written with another offset still matches.
        let e = try truth.entry(user: "u1", stack: "top", at: time("2026-01-05T13:00:00Z"))
        #expect(e.probability(of: "calendar") == 0.6 && e.engaged == "calendar" && e.mostLikely == "calendar")
        #expect(e.probability(of: "weather") == 0)
        let error = #expect(throws: GroundTruthError.self) {
            try truth.entry(user: "u1", stack: "top", at: time("2026-01-05T08:30:00-05:00"))
        }
        #expect(error?.description.contains("nearest before: 2026-01-05T08:00:00-05:00, after: 2026-01-05T09:00:00-05:00") == true)
        #expect(throws: GroundTruthError.self) { try truth.entry(user: "u2", stack: "top", at: e.time) }
        let none = #expect(throws: GroundTruthError.self) { try GroundTruth.load(path: path, users: ["u9"]) }
        #expect(none?.description.contains("no entries for users u9") == true)
        #expect(throws: GroundTruthError.self) { try truth.entry(user: "u1", stack: "bottom", at: e.time) }
    }

    @Test func loadingCanKeepSomeUsersAndDropIntent() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("d.truth.jsonl").path
        var bytes: [UInt8] = []
        for u in 0..<2 { for e in SimulationFixtures.simulate(.drift, days: 2, seed: 4, user: u).truth { e.append(to: &bytes) } }
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let all = try GroundTruth.load(path: path)
        let one = try GroundTruth.load(path: path, users: ["drift-1"], includingIntent: false)
        #expect(all.users == ["drift-0", "drift-1"] && one.users == ["drift-1"])
        let kept = one.entries(user: "drift-1"), full = all.entries(user: "drift-1")
        #expect(kept.count == full.count && kept.allSatisfy { $0.intent == nil })
        #expect(kept.map(\.distribution) == full.map(\.distribution))
        #expect(full.allSatisfy { $0.intent != nil })
    }

    @Test(arguments: [
        ("{\"user\":\"u\",\"stack\":\"s\",\"distribution\":{},\"engaged\":null}", "time"),
        ("{\"user\":\"u\",\"time\":\"2026-01-05T08:00:00\",\"stack\":\"s\",\"distribution\":{},\"engaged\":null}", "time"),
        ("{\"user\":\"u\",\"time\":\"2026-01-05T08:00:00Z\",\"stack\":\"s\",\"distribution\":{\"a\":1.5},\"engaged\":null}", "distribution.a"),
        ("{\"user\":\"u\",\"time\":\"2026-01-05T08:00:00Z\",\"stack\":\"s\",\"distribution\":{\"a\":0.5}}", "engaged"),
        ("{\"user\":\"u\",\"time\":\"2026-01-05T08:00:00Z\",\"stack\":\"s\",\"distribution\":{\"a\":0.5},\"engaged\":\"b\"}", "engaged"),
        ("{\"user\":\"u\",\"time\":\"2026-01-05T08:00:00Z\",\"stack\":\"s\",\"distribution\":{\"a\":0.5},\"engaged\":null", nil),
        // Probabilities of one session that sum past 1, a negative lift, intent of a widget the
        // distribution does not list: never a silently wrong ratio.
        ("{\"user\":\"u\",\"time\":\"2026-01-05T08:00:00Z\",\"stack\":\"s\",\"distribution\":{\"a\":0.7,\"b\":0.6},\"engaged\":null}", "distribution"),
        ("{\"user\":\"u\",\"time\":\"2026-01-05T08:00:00Z\",\"stack\":\"s\",\"distribution\":{\"a\":0.5},\"engaged\":null,\"lift\":-0.1}", "lift"),
        ("{\"user\":\"u\",\"time\":\"2026-01-05T08:00:00Z\",\"stack\":\"s\",\"distribution\":{\"a\":0.5},\"engaged\":null,\"intent\":{\"a\":0.4,\"z\":0.1}}", "intent"),
        ("{\"user\":\"u\",\"time\":\"2026-01-05T08:00:00Z\",\"stack\":\"s\",\"distribution\":{\"a\":0.5},\"engaged\":null,\"intent\":{\"a\":0.9,\"b\":0.9}}", "intent"),
    ] as [(String, String?)])
    func badLinesNameTheLineAndField(line: String, field: String?) {
        let text = "{\"user\":\"u\",\"time\":\"2026-01-05T07:00:00Z\",\"stack\":\"s\",\"distribution\":{\"a\":0.5},\"engaged\":null}\n" + line
        let error = #expect(throws: GroundTruthError.self) { try GroundTruth.parse(text, name: "bad.jsonl") }
        #expect(error?.line == 2)
        #expect(error?.field == field)
        #expect(error?.description.hasPrefix("bad.jsonl:2: ") == true)
    }

    @Test func duplicateDecisionPointsAreRejected() {
        let line = "{\"user\":\"u\",\"time\":\"2026-01-05T07:00:00Z\",\"stack\":\"s\",\"distribution\":{\"a\":0.5},\"engaged\":null}"
        let error = #expect(throws: GroundTruthError.self) { try GroundTruth.parse(line + "\n" + line, name: "d.jsonl") }
        #expect(error?.line == 2)
    }

    @Test func missingAndEmptyFilesAreClearErrors() throws {
        let missing = #expect(throws: GroundTruthError.self) { try GroundTruth.load(path: "/nonexistent/x.truth.jsonl") }
        #expect(missing?.description.contains("cannot open") == true)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString).jsonl").path
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: path) }
        let empty = #expect(throws: GroundTruthError.self) { try GroundTruth.load(path: path) }
        #expect(empty?.description.contains("no entries") == true)
    }

    @Test func oracleScoresByTrueProbabilityAndCountsMisses() throws {
        let user = SimulationFixtures.simulate(.student, days: 2, seed: 3)
        let truth = try GroundTruth(entries: user.truth)
        let oracle = OracleScorer(truth: truth, user: "student-0")
        let line = user.truth[10]
        let widgets = line.distribution.map { WidgetConfig(id: $0.widget) }.reversed() + [WidgetConfig(id: "unknown")]
        let scores = oracle.scores(stack: line.stack, widgets: Array(widgets), at: line.time)
        #expect(scores == Array(line.distribution.map(\.probability).reversed()) + [0])
        #expect(oracle.missingLookups == 0)
        let off = oracle.scores(stack: line.stack, widgets: Array(widgets), at: line.time.adding(seconds: 1))
        #expect(off.allSatisfy { $0 == 0 })
        #expect(oracle.missingLookups == 1)
        #expect(oracle.firstMissingLookup?.message.contains("at exactly") == true)
        #expect(throws: GroundTruthError.self) {
            try oracle.probabilities(stack: line.stack, widgets: Array(widgets), at: line.time.adding(seconds: 1))
        }
    }
}

@Suite struct SimulationTruthFormatTests {
    @Test(arguments: [(0.0, "0"), (1.0, "1"), (0.25, "0.25"), (0.0012, "0.0012"), (0.12345, "0.1235"), (0.00004, "0"), (0.99996, "1"), (0.5, "0.5")])
    func probabilitiesHaveFourDecimalsAtMost(value: Double, text: String) {
        var bytes: [UInt8] = []
        GroundTruthFormat.appendProbability(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
    }

    @Test func stringsAreEscaped() throws {
        var bytes: [UInt8] = []
        GroundTruthFormat.appendString("a\"b\\c\nd\u{1}é", to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "\"a\\\"b\\\\c\\nd\\u0001é\"")
        let entry = GroundTruthEntry(user: "u \"1\"", time: EventTime(nanosecondsSinceEpoch: 0, utcOffsetSeconds: 0),
                                     stack: "s\n", distribution: [WidgetProbability(widget: "w\\", probability: 0.5)], engaged: "w\\")
        let truth = try GroundTruth.parse(entry.line)
        #expect(truth.entries(user: "u \"1\"") == [entry])
    }
}
