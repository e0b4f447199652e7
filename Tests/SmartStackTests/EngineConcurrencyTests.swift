import Foundation
import Testing
@testable import SmartStack

/// Many tasks recording and ranking on one engine at once (CI runs this suite under TSan).
@Suite struct EngineConcurrencyTests {
    @Test func concurrentRecordersAndRankersEndWithExactCounts() async throws {
        let dir = try HostTemporaryDirectory()
        let engine = try Engine(path: dir.database, saveInterval: 64)
        let users = (0..<6).map { "user\($0)" }
        let streams = users.enumerated().map { HostRoutine.events(user: $1, days: 4, seed: UInt64($0 + 7)) }
        // Configure first so rankers always find the stacks.
        for stream in streams { try engine.record(Array(stream.prefix(2))) }
        let probe = HostRoutine.time(day: 5, minutes: 0)
        let rankings = HostCounter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (u, stream) in streams.enumerated() {
                let rest = Array(stream.dropFirst(2))
                // Two recorders per user, interleaving halves of the stream; duplicates re-sent.
                for part in 0..<2 {
                    group.addTask {
                        let mine = rest.enumerated().filter { $0.offset % 2 == part }.map(\.element)
                        var i = 0
                        while i < mine.count {
                            let batch = Array(mine[i..<min(mine.count, i + 1 + (i % 5))])
                            try engine.record(batch)
                            if i % 4 == 0 { try engine.record(batch.prefix(1).map { $0 }) }
                            i += batch.count
                        }
                    }
                }
                group.addTask {
                    for k in 0..<40 {
                        let r = try engine.ranking(stack: k % 2 == 0 ? "home" : "work", user: users[u], at: probe)
                        #expect(!r.widgets.isEmpty)
                        rankings.add(1)
                        if k % 10 == 0 { _ = try engine.decide(stack: "home", user: users[u], at: probe.adding(seconds: Double(k))) }
                    }
                }
            }
            group.addTask { for _ in 0..<5 { try engine.flush() } }
            try await group.waitForAll()
        }
        #expect(rankings.value == users.count * 40)
        for (u, stream) in streams.enumerated() {
            #expect(try engine.store.count(EventQuery(user: users[u])) == stream.count)
            let slot = try #require(engine.slotForTesting(users[u]))
            #expect(slot.state.withLock { $0.appliedThrough } == (try maxSequence(engine.store, users[u])))
        }
        // The live state equals a replay of the log in the order it was stored.
        let live = try users.map { try engine.ranking(stack: "home", user: $0, at: probe) }
        try engine.close()
        let rebuilt = try Engine(path: dir.database)
        try rebuilt.rebuild()
        #expect(try users.map { try rebuilt.ranking(stack: "home", user: $0, at: probe) } == live)
    }

    func maxSequence(_ store: EventStore, _ user: String) throws -> Int64 {
        var last: Int64 = 0
        try store.forEach(EventQuery(user: user)) { sequence, _ in last = max(last, sequence) }
        return last
    }
}

/// A counter shared by tasks (behind the engine's lock, which ThreadSanitizer understands).
final class HostCounter: Sendable {
    private let count = EngineLock(0)
    func add(_ n: Int) { count.withLock { $0 += n } }
    var value: Int { count.withLock { $0 } }
}
