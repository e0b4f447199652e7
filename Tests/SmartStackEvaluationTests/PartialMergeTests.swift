import Foundation
import Testing
import SmartStack
import SmartStackDatasets
@testable import SmartStackEvaluation

/// Partials of shards merged give the report of one evaluation of everything, byte for byte;
/// partials that cannot belong together are refused.
@Suite struct PartialMergeTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The bundled commuter persona with every built-in policy, the oracle, and its truth.
    static func commuter() throws -> (events: [Event], policies: [PolicyFactory], truth: EvaluationTruth) {
        var reader = try JSONLReader(path: repository.appendingPathComponent("Datasets/commuter.jsonl").path)
        var events: [Event] = []
        while let e = try reader.next() { events.append(e) }
        let truth = try EvaluationTruth(path: repository.appendingPathComponent("Datasets/commuter.truth.jsonl").path)
        var policies = try PolicyRegistry.names.map { PolicyFactory.engine(try PolicySpec(parsing: $0)) }
        policies.append(OracleSupport.factory(truth: truth))
        return (events, policies, truth)
    }

    static func options() -> ReplayOptions {
        var o = ReplayOptions()
        o.bootstrapResamples = 100
        o.threads = 2
        return o
    }

    /// The three renderings a person reads, as bytes.
    static func rendered(_ r: EvaluationReport) throws -> [Data] {
        [try r.jsonData(), Data(ReportRenderer.markdown(r).utf8), Data(ReportRenderer.html(r).utf8)]
    }

    /// Partials of `events` split into `shards` by the sharder's hash, each through its file bytes.
    static func partials(_ events: [Event], shards: Int, policies: [PolicyFactory], options: ReplayOptions,
                         reference: String? = nil, truth: EvaluationTruth? = nil) throws -> [PartialEvaluation] {
        var groups = Array(repeating: [Event](), count: shards)
        for e in events { groups[DatasetSharder.shard(of: e.user, count: shards)].append(e) }
        return try groups.enumerated().filter { !$0.element.isEmpty }.map { k, group in
            let p = try Evaluator(options: options).partial(.events(group, name: "shard-\(k)"), policies: policies, reference: reference,
                                                            truth: truth)
            return try PartialEvaluation(bytes: p.encoded(), name: "shard-\(k).partial")
        }
    }

    @Test(arguments: [1, 2, 3, 7])
    func mergedShardsGiveTheSingleReportByteForByte(shards: Int) throws {
        let (events, policies, truth) = try Self.commuter()
        let whole = try Evaluator(options: Self.options()).evaluate(.events(events, name: "commuter"), policies: policies,
                                                                    reference: "static", truth: truth)
        #expect(whole.policies.contains { $0.ope != nil })   // off-policy estimates are part of it
        #expect(whole.measure == .counterfactual && whole.truth?.decisionsWithTruth ?? 0 > 0)   // and the truth's measure
        let parts = try Self.partials(events, shards: shards, policies: policies, options: Self.options(), reference: "static",
                                      truth: truth)
        let merged = try Evaluator.merge(parts.reversed(), name: "commuter", sources: whole.dataset.sources, threads: 1)
        #expect(try Self.rendered(merged) == Self.rendered(whole))
    }

    /// The learning curve too: its per-day sums travel in the user lines, and the merge adds them
    /// up in user order as one evaluation does. Without --by-day the lines are as they were.
    @Test func mergedShardsGiveTheSameLearningCurveByteForByte() throws {
        let (events, all, truth) = try Self.commuter()
        let policies = [all[0], all[PolicyRegistry.names.firstIndex(of: PolicyRegistry.defaultPolicy)!], all.last!]
        var options = Self.options()
        options.byDay = true
        let whole = try Evaluator(options: options).evaluate(.events(events, name: "commuter"), policies: policies, truth: truth)
        let curve = try #require(whole.byDay)
        #expect(curve.isCounterfactual && curve.days.count >= 28)
        let parts = try Self.partials(events, shards: 3, policies: policies, options: options, truth: truth)
        #expect(parts.allSatisfy { String(decoding: $0.encoded(), as: UTF8.self).contains("\"by_day\":[[") })
        let merged = try Evaluator.merge(parts.reversed(), name: "commuter", sources: whole.dataset.sources, threads: 1)
        #expect(try Self.rendered(merged) == Self.rendered(whole))
    }

    /// Partials with and without the curve do not merge; lines whose tallies the header does not
    /// announce are refused.
    @Test func partialsWithAndWithoutTheLearningCurveAreRefused() throws {
        let events = syntheticDataset(users: 4, days: 3, seed: 3)
        var options = Fixture.options()
        options.byDay = true
        let plain = try Self.partials(events, shards: 2, policies: [staticFactory], options: Fixture.options())
        #expect(!String(decoding: plain[0].encoded(), as: UTF8.self).contains("by_day"))
        let two = try Self.partials(events, shards: 2, policies: [staticFactory], options: options)
        do { _ = try Evaluator.merge([two[0], plain[1]], labels: ["a", "b"]); Issue.record("merged a partial without the curve") } catch let e as EvaluationError {
            #expect(e.message == "cannot merge b with a: evaluated with different options (by day off vs on)")
        }
        let text = String(decoding: two[0].encoded(), as: UTF8.self)
        let stripped = text.replacingOccurrences(of: "\"reference\":null,\"by_day\":true}", with: "\"reference\":null}")
        #expect(stripped != text)
        #expect(Self.refusal(Array(stripped.utf8), "s.partial").contains("s.partial:2:"))
    }

    @Test func withoutNameTheReportNamesTheShards() throws {
        let events = syntheticDataset(users: 4, days: 3, seed: 3)
        let parts = try Self.partials(events, shards: 2, policies: [staticFactory], options: Fixture.options())
        let merged = try Evaluator.merge(parts)
        #expect(merged.dataset.name == parts[0].name)
        #expect(merged.dataset.sources == parts.flatMap(\.sources))
        #expect(merged.dataset.users == 4)
    }

    @Test func partialsOfOtherOptionsOrPoliciesOrSharingAUserAreRefused() throws {
        let events = syntheticDataset(users: 4, days: 3, seed: 3)
        var a = try Self.partials(events, shards: 2, policies: [staticFactory], options: Fixture.options())
        var other = Fixture.options()
        other.window = 300
        let b = try Self.partials(events, shards: 2, policies: [staticFactory], options: other)
        do { _ = try Evaluator.merge([a[0], b[1]], labels: ["a", "b"]); Issue.record("merged other options") } catch let e as EvaluationError {
            #expect(e.message == "cannot merge b with a: evaluated with different options (window 300.0 s vs 600.0 s)")
        }
        let c = try Self.partials(events, shards: 2, policies: [staticFactory, recentFactory()], options: Fixture.options())
        do { _ = try Evaluator.merge([a[0], c[1]], labels: ["a", "c"]); Issue.record("merged other policies") } catch let e as EvaluationError {
            #expect(e.message == "cannot merge c with a: evaluated with different policies (static,recent vs static)")
        }
        a.append(a[0])
        do { _ = try Evaluator.merge(a, labels: ["x", "y", "z"]); Issue.record("merged a user twice") } catch let e as EvaluationError {
            #expect(e.message.hasPrefix("user 'user") && e.message.contains("is in both x and z: it would be counted twice"))
        }
    }

    @Test func aPartialFileCutShortOrAlteredIsRefusedNamingIt() throws {
        let events = syntheticDataset(users: 3, days: 2, seed: 4)
        let partial = try Evaluator(options: Fixture.options()).partial(.events(events, name: "x"), policies: [staticFactory])
        let bytes = partial.encoded()
        #expect(try PartialEvaluation(bytes: bytes, name: "ok.partial").userCount == 3)
        let cut = Array(bytes.prefix(bytes.count * 2 / 3))
        #expect(Self.refusal(cut, "cut.partial").hasPrefix("cut.partial"))
        var altered = bytes
        let digit = altered.firstIndex(of: UInt8(ascii: "7")) ?? 200
        altered[digit] = UInt8(ascii: "8")
        #expect(Self.refusal(altered, "altered.partial").contains("corrupt partial"))
        #expect(Self.refusal(Array("{\"user\":\"a\"}\n".utf8), "x.jsonl").hasPrefix("x.jsonl"))
        let text = String(decoding: bytes, as: UTF8.self)
        let version = PartialEvaluation.version
        let older = Array(text.replacingOccurrences(of: "\"version\":\(version)", with: "\"version\":\(version - 1)").utf8)
        #expect(Self.refusal(older, "old.partial") == "old.partial: partial format version \(version - 1); this smartstack reads version \(version) (written by an earlier smartstack: evaluate its shard again with this one; make all partials of a report with the same smartstack)")
        let newer = Array(text.replacingOccurrences(of: "\"version\":\(version)", with: "\"version\":\(version + 1)").utf8)
        #expect(Self.refusal(newer, "new.partial").contains("partial format version \(version + 1)"))
        let lastLineCut = Array(bytes.dropLast(5))
        #expect(Self.refusal(lastLineCut, "cut2.partial").hasPrefix("cut2.partial: not a complete partial file (it ends within line"))
        #expect(Self.refusal([], "empty.partial") == "empty.partial: not a complete partial file (empty)")
    }

    @Test func userLinesParsedInParallelBatchesMergeTheSameAndNameTheFirstBadLine() throws {
        let events = syntheticDataset(users: 40, days: 3, seed: 6)
        let policies = [staticFactory, recentFactory()]
        let whole = try Evaluator(options: Fixture.options()).evaluate(.events(events, name: "syn"), policies: policies)
        let bytes = try Evaluator(options: Fixture.options()).partial(.events(events, name: "syn"), policies: policies).encoded()
        // Batches of a few lines each, parsed on 3 threads: every user, in order, as read alone.
        let reader = try PartialReader(bytes: bytes, name: "p.partial", threads: 3, batchBytes: 3000)
        let merged = try Evaluator.merge([reader], name: "syn", sources: whole.dataset.sources, threads: 3)
        #expect(try Self.rendered(merged) == Self.rendered(whole))
        // Lines 10 and 30 (users 9 and 29) damaged: the error names line 10, the first in the file.
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for k in [9, 29] { lines[k] = lines[k].replacingOccurrences(of: "\"events\":", with: "\"evenst\":") }
        let damaged = try PartialReader(bytes: Array(lines.joined(separator: "\n").utf8), name: "d.partial", threads: 3, batchBytes: 3000)
        do { while try damaged.next() != nil {}; Issue.record("read a damaged line") } catch {
            #expect(error.message.hasPrefix("d.partial:10:") && error.message.contains("expected key 'events' but found 'evenst'"))
        }
    }

    /// Many small partials (one or two users each) are primed side by side on several threads:
    /// the report is the single run's, and of two damaged partials the error names the one the
    /// merge reads first, as when they were read one after another.
    @Test func manySmallPartialsPrimedInParallelMergeTheSameAndNameTheFirstBadFile() throws {
        let events = syntheticDataset(users: 24, days: 2, seed: 8)
        let policies = [staticFactory, recentFactory()]
        let whole = try Evaluator(options: Fixture.options()).evaluate(.events(events, name: "syn"), policies: policies)
        let parts = try Self.partials(events, shards: 16, policies: policies, options: Fixture.options())
        #expect(parts.count > 8)
        let merged = try Evaluator.merge(parts, name: "syn", sources: whole.dataset.sources, threads: 3)
        #expect(try Self.rendered(merged) == Self.rendered(whole))
        func readers(damaging damaged: Set<Int>) throws -> [PartialReader] {
            try parts.enumerated().map { k, part in
                var text = String(decoding: part.encoded(), as: UTF8.self)
                if damaged.contains(k) {   // a key of user lines only
                    text = text.replacingOccurrences(of: "\"merged_repeats\":", with: "\"merged_repaets\":")
                }
                return try PartialReader(bytes: Array(text.utf8), name: "part-\(k).partial", threads: 2)
            }
        }
        do {
            _ = try Evaluator.merge(try readers(damaging: [6, 2]), name: "syn", sources: nil, threads: 3)
            Issue.record("merged damaged partials")
        } catch let error as EvaluationError {
            #expect(error.message.hasPrefix("part-2.partial:2:") && error.message.contains("merged_repaets"), "\(error.message)")
        }
    }

    /// Partial files are opened and primed side by side: the merge is the single run's, and of
    /// several bad files the error names the first in the order given, whichever thread read it.
    @Test func partialFilesOpenedInParallelMergeTheSameAndNameTheFirstBadFile() throws {
        let events = syntheticDataset(users: 24, days: 2, seed: 9)
        let policies = [staticFactory, recentFactory()]
        let whole = try Evaluator(options: Fixture.options()).evaluate(.events(events, name: "syn"), policies: policies)
        let parts = try Self.partials(events, shards: 16, policies: policies, options: Fixture.options())
        try #require(parts.count > 12)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(damaging damaged: [Int: (String, String)] = [:]) throws -> [String] {
            try parts.enumerated().map { k, part in
                var text = String(decoding: part.encoded(), as: UTF8.self)
                if let (old, new) = damaged[k] { text = text.replacingOccurrences(of: old, with: new) }
                let path = dir.appendingPathComponent("part-\(k).partial").path
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
        }
        func failure(_ files: [String]) -> String {
            do { _ = try Evaluator.merge(files: files, name: "syn", threads: 2); return "" } catch { return "\(error)" }
        }
        let merged = try Evaluator.merge(files: try write(), name: "syn", sources: whole.dataset.sources, threads: 2)
        #expect(try Self.rendered(merged) == Self.rendered(whole))
        let userKey = ("\"merged_repeats\":", "\"merged_repaets\":")
        let lines = failure(try write(damaging: [11: userKey, 3: userKey]))
        #expect(lines.contains("part-3.partial:2:") && lines.contains("merged_repaets"), "\(lines)")
        let headerKey = ("{\"format\":", "{\"fromat\":")
        let headers = failure(try write(damaging: [12: headerKey, 5: headerKey, 1: userKey]))
        #expect(headers.contains("part-5.partial") && !headers.contains("part-12") && !headers.contains("part-1."), "\(headers)")
    }

    static func refusal(_ bytes: [UInt8], _ name: String) -> String {
        do { _ = try PartialEvaluation(bytes: bytes, name: name); return "" } catch { return "\(error)" }
    }

    @Test func partialsMadeWithDifferentGroundTruthFilesAreRefusedNamingThem() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("truth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let truth = try String(contentsOf: Self.repository.appendingPathComponent("Datasets/commuter.truth.jsonl"), encoding: .utf8)
        let a = dir.appendingPathComponent("a.truth.jsonl").path, copy = dir.appendingPathComponent("copy.truth.jsonl").path
        let b = dir.appendingPathComponent("b.truth.jsonl").path
        try truth.write(toFile: a, atomically: true, encoding: .utf8)
        try truth.write(toFile: copy, atomically: true, encoding: .utf8)
        try (truth + "\n").write(toFile: b, atomically: true, encoding: .utf8)   // the same entries, other bytes
        let events = try Self.commuter().events
        func partials(truth: String) throws -> [PartialEvaluation] {
            try Self.partials(events, shards: 2, policies: [try OracleSupport.factory(truthPath: truth)], options: Self.options())
        }
        let (pa, pcopy, pb) = (try partials(truth: a), try partials(truth: copy), try partials(truth: b))
        // The same contents at another path is the same ground truth.
        _ = try Evaluator.merge([pa[0], pcopy[1]], labels: ["s0", "s1"])
        do { _ = try Evaluator.merge([pa[0], pb[1]], labels: ["s0.partial", "s1.partial"]); Issue.record("merged other truths") } catch let e as EvaluationError {
            #expect(e.message.hasPrefix("cannot merge s1.partial with s0.partial: policy 'oracle' read different files ('\(b)' ("))
            #expect(e.message.contains("vs '\(a)' (") && e.message.hasSuffix("a ground truth must be the same file for every shard"))
        }
    }

    @Test func mergeStreamsPartialFilesPlainAndGzip() throws {
        let events = syntheticDataset(users: 9, days: 4, seed: 8)
        let policies = [staticFactory, recentFactory()]
        let whole = try Evaluator(options: Fixture.options()).evaluate(.events(events, name: "syn"), policies: policies)
        let parts = try Self.partials(events, shards: 3, policies: policies, options: Fixture.options())
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var files: [String] = []
        for (k, p) in parts.enumerated() {
            let path = dir.appendingPathComponent("p\(k).partial" + (k == 1 ? ".gz" : "")).path
            let bytes = k == 1 ? try GzipWriter.compress(p.encoded()) : p.encoded()
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        let merged = try Evaluator.merge(files: files, name: "syn", sources: whole.dataset.sources, threads: 2)
        #expect(try Self.rendered(merged) == Self.rendered(whole))
        do { _ = try Evaluator.merge(files: [files[0], dir.appendingPathComponent("missing.partial").path]); Issue.record("read a missing file") } catch let e as EvaluationError {
            #expect(e.message.contains("missing.partial") && e.message.contains("no such file"))
        }
    }

    @Test func aFileRoundTripsThroughDiskAndGzip() throws {
        let events = syntheticDataset(users: 3, days: 2, seed: 5)
        let partial = try Evaluator(options: Fixture.options()).partial(.events(events, name: "x"), policies: [staticFactory, recentFactory()])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("partial-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = dir.appendingPathComponent("p.partial").path
        try partial.write(to: plain)
        let packed = dir.appendingPathComponent("p.partial.gz").path
        try Data(GzipWriter.compress(partial.encoded())).write(to: URL(fileURLWithPath: packed))
        let a = try PartialEvaluation(contentsOf: plain), b = try PartialEvaluation(contentsOf: packed)
        #expect(a.encoded() == partial.encoded() && b.encoded() == partial.encoded())
    }
}
