import Foundation
import Testing
@testable import SmartStack

/// Many threads appending to, reading and erasing from one store at once: counts are exact
/// at the end. CI runs these under ThreadSanitizer
/// (`swift test --sanitize=thread --filter ConcurrencyTests`).
@Suite struct StoreConcurrencyTests {
    private typealias S = StoreSamples

    @Test(arguments: [false, true])
    func concurrentAppendersAndReadersSeeExactCounts(onDisk: Bool) async throws {
        let directory = try StoreTemporaryDirectory()
        let store = try EventStore(path: onDisk ? directory.file("concurrent.sqlite") : ":memory:")
        let writers = 8, batches = 25, batchSize = 20
        // Every writer appends its batches twice (ids make the second time a no-op), while
        // readers count and stream; counts seen by readers only ever grow.
        let results = await withTaskGroup(of: (inserted: Int, duplicates: Int, violations: Int).self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var inserted = 0, duplicates = 0
                    for round in 0..<2 {
                        for b in 0..<batches {
                            let events = (0..<batchSize).map { k in
                                S.appLaunch("u\(writer)", "b\(b)-\(k)", at: Int64(b * batchSize + k), app: "com.\(writer)")
                            }
                            // The streaming path on the second round, the array path on the first.
                            let result = round == 0 ? try? store.append(events)
                                                    : try? store.append(contentsOf: events, batchSize: 7)
                            inserted += result?.inserted ?? 0
                            duplicates += result?.duplicates ?? 0
                        }
                    }
                    return (inserted, duplicates, 0)
                }
            }
            for reader in 0..<4 {
                group.addTask {
                    var violations = 0
                    var last = 0
                    for _ in 0..<40 {
                        let count = (try? store.count(EventQuery())) ?? -1
                        if count < last { violations += 1 }
                        last = max(last, count)
                        var streamed = 0
                        try? store.forEach(EventQuery(user: "u\(reader)")) { _, event in
                            if event.user != "u\(reader)" { violations += 1 }
                            streamed += 1
                        }
                        if streamed % batchSize != 0 { violations += 1 }   // a batch is seen whole or not at all
                        _ = try? store.statistics()
                    }
                    return (0, 0, violations)
                }
            }
            var total = (inserted: 0, duplicates: 0, violations: 0)
            for await result in group {
                total.inserted += result.inserted
                total.duplicates += result.duplicates
                total.violations += result.violations
            }
            return total
        }
        let expected = writers * batches * batchSize
        #expect(results.inserted == expected)
        #expect(results.duplicates == expected)
        #expect(results.violations == 0)
        #expect(try store.count(EventQuery()) == expected)
        #expect(try store.users().count == writers)
        for writer in 0..<writers {
            #expect(try store.count(EventQuery(user: "u\(writer)")) == batches * batchSize)
        }
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func concurrentErasuresAndAppendsLeaveExactlyTheKeptUsers() async throws {
        let directory = try StoreTemporaryDirectory()
        let store = try EventStore(path: directory.file("erase.sqlite"))
        let users = 12, perUser = 50
        for user in 0..<users {
            try store.append((0..<perUser).map { S.appLaunch("u\(user)", "\($0)", at: Int64($0), app: "com.app\(user % 3)") })
            try store.saveState(user: "u\(user)", key: "model", sequence: 1, blob: [1])
        }
        // Odd users are erased while even users keep appending and the app com.app0 is erased.
        await withTaskGroup(of: Void.self) { group in
            for user in 0..<users {
                group.addTask {
                    if user % 2 == 1 {
                        _ = try? store.erase(user: "u\(user)")
                    } else {
                        for k in 0..<perUser {
                            _ = try? store.append([S.appLaunch("u\(user)", "late\(k)", at: Int64(1000 + k), app: "com.late")])
                        }
                    }
                }
            }
            group.addTask { _ = try? store.erase(app: "com.app0") }
        }
        // Even users: 50 late launches each, plus their 50 originals unless their app was com.app0.
        var expected = 0
        for user in stride(from: 0, to: users, by: 2) {
            expected += perUser + (user % 3 == 0 ? 0 : perUser)
            #expect(try store.count(EventQuery(user: "u\(user)")) == perUser + (user % 3 == 0 ? 0 : perUser))
        }
        #expect(try store.count(EventQuery()) == expected)
        for user in stride(from: 1, to: users, by: 2) {
            #expect(try store.count(EventQuery(user: "u\(user)")) == 0)
            #expect(try store.loadState(user: "u\(user)", key: "model") == nil)
        }
        #expect(try store.events(EventQuery()).allSatisfy { !($0.payload == .appLaunch(app: "com.app0")) })
    }

    @Test func twoConnectionsToOneFileNeverLoseAnAppend() async throws {
        let directory = try StoreTemporaryDirectory()
        let path = directory.file("shared.sqlite")
        let first = try EventStore(path: path)
        let second = try EventStore(path: path, options: .init(busyTimeout: .seconds(30)))
        await withTaskGroup(of: Void.self) { group in
            for (index, store) in [first, second].enumerated() {
                group.addTask {
                    for k in 0..<100 {
                        _ = try? store.append([S.appLaunch("c\(index)", "\(k)", at: Int64(k))])
                    }
                }
            }
        }
        #expect(try first.count(EventQuery()) == 200)
        #expect(try second.count(EventQuery(user: "c0")) == 100)
        #expect(try second.count(EventQuery(user: "c1")) == 100)
    }
}
