import Dispatch
import Foundation
import Synchronization
import Testing
@testable import SmartStack
#if canImport(Glibc)
import Glibc
#endif

/// The registry of logs this process has open (``DatabaseRegistry``): a store's file is
/// registered exactly while its SQLite connection exists, so a later open checks the file without
/// a descriptor (which would cancel that connection's locks) only while it must, and reports
/// exactly what it reports on a file no store has open. The effect on other processes is tested
/// end to end by `StoreLockTests` (SmartStackCLITests).
@Suite struct StoreRegistryTests {
    private func identity(of path: String) throws -> DatabaseRegistry.FileIdentity {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return DatabaseRegistry.FileIdentity(info)
    }

    private func events(_ prefix: String, count: Int) -> [Event] {
        (0..<count).map { k in
            Event(time: EventTime(nanosecondsSinceEpoch: Int64(k) * 1_000_000_000, utcOffsetSeconds: 0),
                  user: "u00", id: "\(prefix)\(k)", payload: .screenOn)
        }
    }

    @Test func aStoreIsRegisteredExactlyWhileItsConnectionExists() throws {
        let dir = try StoreTemporaryDirectory()
        let path = dir.file("events.db")
        var first: EventStore? = try EventStore(path: path)
        let file = try identity(of: path)
        #expect(DatabaseRegistry.registrationCount(of: file) == 1)
        try first?.append(events("a", count: 10))

        // Another path to the same file is the same entry.
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.db"), withDestinationPath: path)
        var second: EventStore? = try EventStore(path: dir.file("link.db"), options: EventStore.Options(isReadOnly: true))
        #expect(DatabaseRegistry.registrationCount(of: file) == 2)
        #expect(try second?.count(EventQuery()) == 10)

        first = nil
        #expect(DatabaseRegistry.registrationCount(of: file) == 1)
        #expect(try second?.count(EventQuery()) == 10)
        second = nil
        #expect(DatabaseRegistry.registrationCount(of: file) == 0)

        // Closed for good: opening again checks the file as a new one would be.
        let reopened = try EventStore(path: path)
        #expect(DatabaseRegistry.registrationCount(of: file) == 1)
        #expect(try reopened.count(EventQuery()) == 10)
    }

    @Test func failedOpensLeaveNoRegistration() throws {
        let dir = try StoreTemporaryDirectory()
        let foreign = dir.file("notes.txt")
        try Data("not a database, just some notes\n".utf8).write(to: URL(fileURLWithPath: foreign))
        let foreignFile = try identity(of: foreign)
        for readOnly in [false, true] {
            #expect(throws: StoreError.self) { try EventStore(path: foreign, options: EventStore.Options(isReadOnly: readOnly)) }
            #expect(DatabaseRegistry.registrationCount(of: foreignFile) == 0)
        }
        #expect(throws: StoreError.self) { try EventStore(path: dir.file("missing.db"), options: EventStore.Options(isReadOnly: true)) }
        #expect(!FileManager.default.fileExists(atPath: dir.file("missing.db")))
    }

    /// Opening a file a store has open checks it with `faccessat` instead of `open`: the errors
    /// must be the very ones the open of a file nobody has open gives.
    @Test(.enabled(if: UnprivilegedFileAccess.isEnabled, "needs permission bits to apply: run as a user, or as root with setfsuid"),
          arguments: [false, true])
    func errorsAreTheSameWhetherOrNotAStoreHasTheFileOpen(readOnly: Bool) throws {
        let dir = try StoreTemporaryDirectory()
        let path = dir.file("events.db")
        func errorOfAnotherUser() throws -> StoreError? {
            var caught: StoreError?
            try UnprivilegedFileAccess.run {
                do {
                    _ = try EventStore(path: path, options: EventStore.Options(isReadOnly: readOnly))
                } catch let error as StoreError {
                    caught = error
                }
            }
            return caught
        }
        var store: EventStore? = try EventStore(path: path)
        try store?.append(events("a", count: 3))
        // Mode 0600 and owned by this user: another user may neither read nor write it.
        let whileOpen = try errorOfAnotherUser()
        // The failed open left only the open store's registration.
        #expect(DatabaseRegistry.registrationCount(of: try identity(of: path)) == 1)
        #expect(try store?.count(EventQuery()) == 3)
        store = nil
        let whileClosed = try errorOfAnotherUser()
        let expected = try #require(whileClosed)
        #expect(expected.kind == .readOnly)
        #expect(whileOpen?.kind == expected.kind)
        #expect(whileOpen?.message == expected.message)
        #expect(DatabaseRegistry.registrationCount(of: try identity(of: path)) == 0)
    }

    @Test func storesOpenedAndClosedOnManyThreadsKeepEveryEventAndNoRegistration() throws {
        let dir = try StoreTemporaryDirectory()
        let path = dir.file("events.db")
        let keeper = try EventStore(path: path)
        let file = try identity(of: path)
        let threads = 4, rounds = 20
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                do {
                    let store = try EventStore(path: path, options: EventStore.Options(isReadOnly: round % 3 == 2))
                    if round % 3 == 2 {
                        _ = try store.count(EventQuery())
                    } else {
                        try store.append(events("t\(thread)r\(round)-", count: 5))
                    }
                } catch {
                    failures.withLock { $0.append("thread \(thread) round \(round): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(DatabaseRegistry.registrationCount(of: file) == 1)
        let writes = threads * (0..<rounds).filter { $0 % 3 != 2 }.count
        #expect(try keeper.count(EventQuery()) == writes * 5)
        #expect(try keeper.integrityCheck() == ["ok"])
    }
}
