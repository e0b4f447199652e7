import Foundation
import Testing
import SmartStack
import SmartStackDatasets
@testable import SmartStackEvaluation

/// Reading datasets from JSONL files: sorted by user (streamed) or not (spilled), same figures.
@Suite struct ReplayFileTests {
    static func write(_ events: [Event], to url: URL) throws {
        var bytes: [UInt8] = []
        for e in events { JSONLWriter.append(e, to: &bytes) }
        try Data(bytes).write(to: url)
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("replay-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func filesSortedByUserOrByTimeGiveTheSameReport() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let events = syntheticDataset(users: 5, days: 3, seed: 12)
        let byUser = dir.appendingPathComponent("by-user.jsonl")
        try Self.write(events, to: byUser)
        let byTime = dir.appendingPathComponent("by-time.jsonl")
        try Self.write(Evaluator.timeOrdered(events), to: byTime)
        // Split across two files, users interleaved: not contiguous either.
        let half = events.count / 2
        let partA = dir.appendingPathComponent("a.jsonl"), partB = dir.appendingPathComponent("b.jsonl")
        try Self.write(Evaluator.timeOrdered(Array(events[..<half])), to: partA)
        try Self.write(Evaluator.timeOrdered(Array(events[half...])), to: partB)

        var o = Fixture.options(bootstrap: 50, threads: 2)
        o.spillBudget = 1_500   // several spill files
        let evaluator = Evaluator(options: o)
        let reference = try evaluator.evaluate(.events(events, name: "x"), policies: [staticFactory, recentFactory()])
        for source in [EvaluationSource.files([byUser.path]), .files([byTime.path]), .files([partA.path, partB.path])] {
            let r = try evaluator.evaluate(source, policies: [staticFactory, recentFactory()])
            #expect(r.policies == reference.policies)
            #expect(r.dataset.events == events.count)
            #expect(r.dataset.users == 5)
        }
    }

    @Test func scanDetectsWhetherUsersAreContiguous() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let events = syntheticDataset(users: 3, days: 1, seed: 2)
        let byUser = dir.appendingPathComponent("u.jsonl"), byTime = dir.appendingPathComponent("t.jsonl")
        try Self.write(events, to: byUser)
        try Self.write(Evaluator.timeOrdered(events), to: byTime)
        let reader = UserEventReader(options: ReplayOptions(), counters: ProgressCounters())
        var delivered: [String] = []
        let scanA = try reader.read(.files([byUser.path])) { _, user, _ in delivered.append(user) }
        #expect(scanA.isContiguous)
        #expect(delivered == ["user0", "user1", "user2"])
        delivered = []
        var restarts = 0
        let scanB = try reader.read(.files([byTime.path]), restart: {
            restarts += 1
            delivered = []   // what was delivered before is withdrawn
        }, deliver: { _, user, evs in
            delivered.append(user)
            #expect(evs.allSatisfy { $0.user == user })
        })
        #expect(!scanB.isContiguous)
        #expect(restarts == 1)
        #expect(delivered.sorted() == ["user0", "user1", "user2"])
        #expect(scanB.totalEvents == events.count)
    }

    @Test func aFileSortedByUserIsReadOnceAndATimeSortedOneTwice() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let events = syntheticDataset(users: 4, days: 2, seed: 5)
        let byUser = dir.appendingPathComponent("u.jsonl"), byTime = dir.appendingPathComponent("t.jsonl")
        try Self.write(events, to: byUser)
        try Self.write(Evaluator.timeOrdered(events), to: byTime)
        let size = try FileManager.default.attributesOfItem(atPath: byUser.path)[.size] as! Int
        for (url, reads) in [(byUser, 1), (byTime, 2)] {
            let counters = ProgressCounters()
            var o = ReplayOptions()
            o.spillBudget = 1 << 30   // one spill file, read back once more
            _ = try UserEventReader(options: o, counters: counters).read(.files([url.path])) { _, _, _ in }
            // The time-sorted file: read once (found out), once more to spill, and the spill file.
            let expected = reads == 1 ? size : 2 * size + size
            #expect(counters.bytes.load(ordering: .relaxed) == expected, "\(url.lastPathComponent)")
        }
    }

    @Test func aGzipDatasetGivesTheSameReportAsThePlainFile() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let events = syntheticDataset(users: 3, days: 3, seed: 9)
        let plain = dir.appendingPathComponent("p.jsonl"), packed = dir.appendingPathComponent("p.jsonl.gz")
        try Self.write(events, to: plain)
        try Data(GzipWriter.compress(Array(Data(contentsOf: plain)))).write(to: packed)
        let evaluator = Evaluator(options: Fixture.options(bootstrap: 30, threads: 2))
        let a = try evaluator.evaluate(.files([plain.path]), policies: [staticFactory, recentFactory()])
        let b = try evaluator.evaluate(.files([packed.path]), policies: [staticFactory, recentFactory()])
        #expect(a.policies == b.policies)
        #expect(a.dataset.events == b.dataset.events && a.dataset.first == b.dataset.first)
    }

    @Test func anInvalidLineIsReportedWithFileAndLine() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bad.jsonl")
        var bytes: [UInt8] = []
        JSONLWriter.append(Fixture.config(0, ["a", "b"]), to: &bytes)
        bytes += Array("{\"time\":\"nope\",\"type\":\"screen_on\"}\n".utf8)
        try Data(bytes).write(to: url)
        #expect {
            try Evaluator(options: Fixture.options()).evaluate(.files([url.path]), policies: [staticFactory])
        } throws: { error in
            let message = (error as? EvaluationError)?.message ?? ""
            return message.contains("bad.jsonl:2")
        }
    }

    @Test func aMissingFileIsAClearError() throws {
        #expect {
            try Evaluator(options: Fixture.options()).evaluate(.files(["/nonexistent/x.jsonl"]), policies: [staticFactory])
        } throws: { ($0 as? EvaluationError)?.message == "cannot read dataset '/nonexistent/x.jsonl': no such file" }
    }
}
