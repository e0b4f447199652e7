import Foundation
import Testing
@testable import SmartStack
#if canImport(Glibc)
import Glibc
#endif

/// Runs code with this thread's file-system identity switched to `nobody`, so permission bits
/// apply even when the tests run as root (root ignores them). `setfsuid`/`setfsgid` change the
/// calling thread only, so tests running on other threads are not affected.
enum UnprivilegedFileAccess {
    private typealias SetID = @convention(c) (UInt32) -> Int32
    static let nobody: UInt32 = 65_534

    /// Whether permission bits can be made to apply: not root, or root able to switch.
    static var isAvailable: Bool { geteuid() != 0 || (function("setfsuid") != nil && function("setfsgid") != nil) }

    private static func function(_ name: String) -> SetID? {
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: SetID.self)
    }

    struct Unavailable: Error, CustomStringConvertible {
        var description = "running as root and cannot switch this thread's file-system user (setfsuid)"
    }

    /// Runs `body` as `nobody` for file access when root; as is otherwise (already unprivileged).
    static func run(_ body: () throws -> Void) throws {
        guard geteuid() == 0 else { return try body() }
        guard let setUser = function("setfsuid"), let setGroup = function("setfsgid") else { throw Unavailable() }
        _ = setGroup(nobody)
        _ = setUser(nobody)
        defer {
            _ = setUser(0)
            _ = setGroup(0)
        }
        // setfsuid answers the previous value; asking for an invalid one changes nothing.
        guard UInt32(bitPattern: setUser(UInt32.max)) == nobody else { throw Unavailable() }
        try body()
    }

    /// The enabling condition of tests that need permission bits to apply: skipped with a reason
    /// only outside CI; under CI they run and fail loudly if switching is impossible.
    static var isEnabled: Bool { isAvailable || ProcessInfo.processInfo.environment["CI"] != nil }
}

/// The event log opened read-only where the user may only read: a read-only file, a read-only
/// directory, pending changes in a `-wal` that cannot be read without creating files. Reading
/// gives exactly what a writable copy gives and creates or changes no file; what cannot be read
/// faithfully, or written, is a clear error naming the file.
@Suite(.enabled(if: UnprivilegedFileAccess.isEnabled, "needs permission bits to apply: run as a user, or as root with setfsuid"))
struct ReadOnlyStoreTests {
    private typealias S = StoreSamples

    /// The names in `directory`, sorted.
    private func listing(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    private func setMode(_ mode: Int, _ path: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// A closed log holding every event type in `directory/name`, and its events.
    private func makeLog(in directory: StoreTemporaryDirectory, name: String = "events.db") throws -> (String, [Event]) {
        let path = directory.file(name)
        let store = try EventStore(path: path)
        try store.append(S.everyType())
        return (path, try store.events(EventQuery()))
    }

    @Test func readOnlyFileInReadOnlyDirectoryReadsExactlyWhatAWritableCopyReads() throws {
        let directory = try StoreTemporaryDirectory()
        let (path, expected) = try makeLog(in: directory)
        let expectedStatistics = try EventStore(path: path).statistics()
        let before = S.fileBytes(path)
        try setMode(0o444, path)
        try setMode(0o555, directory.path)
        defer { try? setMode(0o755, directory.path) }
        let listed = listing(directory.path)
        try UnprivilegedFileAccess.run {
            // The precondition of the test: this thread may not create files here.
            #expect(!FileManager.default.createFile(atPath: directory.file("probe"), contents: nil))
            let store = try EventStore(path: path, options: .init(isReadOnly: true))
            #expect(S.firstBitDifference(try store.events(EventQuery()), expected) == nil)
            #expect(try store.statistics() == expectedStatistics)
            #expect(try store.events(EventQuery(user: "u01")) == expected.filter { $0.user == "u01" })
            #expect(throws: StoreError.self) { try store.append([S.appLaunch("u00", "new", at: 9)]) }
        }
        #expect(listing(directory.path) == listed, "no file is created next to the log")
        #expect(S.fileBytes(path) == before)
    }

    @Test func readOnlyFileInWritableDirectoryCreatesNoFileNextToIt() throws {
        // A read-only SQLite connection would leave `-wal` and `-shm` with the file's mode 0444,
        // and such a `-shm` would later stop the owner from writing the log.
        let directory = try StoreTemporaryDirectory()
        let (path, expected) = try makeLog(in: directory)
        try setMode(0o444, path)
        try setMode(0o777, directory.path)
        defer { try? setMode(0o755, directory.path) }
        try UnprivilegedFileAccess.run {
            let store = try EventStore(path: path, options: .init(isReadOnly: true))
            #expect(S.firstBitDifference(try store.events(EventQuery()), expected) == nil)
        }
        #expect(listing(directory.path) == ["events.db"])
        try setMode(0o644, path)
        try EventStore(path: path).append([S.appLaunch("u00", "after", at: 9)])
        #expect(try EventStore(path: path).count(EventQuery()) == expected.count + 1)
    }

    @Test func readOnlyOpenOfAWritableLogChangesNothingAndLeavesNoFileBehind() throws {
        let directory = try StoreTemporaryDirectory()
        let (path, expected) = try makeLog(in: directory)
        let before = S.fileBytes(path)
        do {
            let store = try EventStore(path: path, options: .init(isReadOnly: true))
            #expect(try store.events(EventQuery()) == expected)
            #expect { try store.append([S.appLaunch("u00", "new", at: 9)]) } throws: { error in
                (error as? StoreError)?.kind == .readOnly && "\(error)".hasPrefix(path + ": ")
            }
            #expect { try store.deleteEvents(before: EventTime(nanosecondsSinceEpoch: .max, utcOffsetSeconds: 0)) } throws: { error in
                (error as? StoreError)?.kind == .readOnly
            }
            #expect { try store.saveState(user: "u00", key: "k", sequence: 1, blob: [1]) } throws: { error in
                (error as? StoreError)?.kind == .readOnly
            }
        }
        #expect(listing(directory.path) == ["events.db"], "the -wal and -shm SQLite needed are removed on close")
        #expect(S.fileBytes(path) == before)
    }

    /// A log whose last appends are still in `-wal` only (its writer did not close it), copied
    /// with or without its `-shm` into `target`; returns the events a writer sees.
    private func logWithPendingChanges(copiedTo target: StoreTemporaryDirectory, withIndex: Bool) throws -> [Event] {
        let source = try StoreTemporaryDirectory()
        let (path, _) = try makeLog(in: source)
        let writer = try EventStore(path: path)
        try writer.append([S.appLaunch("late", "l1", at: 5), S.appLaunch("late", "l2", at: 6)])
        let all = try writer.events(EventQuery())
        let suffixes = withIndex ? ["", "-wal", "-shm"] : ["", "-wal"]
        for suffix in suffixes {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: target.file("events.db" + suffix))
        }
        withExtendedLifetime(writer) {}
        return all
    }

    @Test func pendingChangesThatCannotBeReadAreAClearErrorNeverAnOlderLog() throws {
        let directory = try StoreTemporaryDirectory()
        let all = try logWithPendingChanges(copiedTo: directory, withIndex: false)
        let path = directory.file("events.db"), wal = path + "-wal"
        #expect((DatabaseFile.size(of: wal) ?? 0) > 0)
        let before = S.fileBytes(path), walBefore = S.fileBytes(wal)
        try setMode(0o444, path)
        try setMode(0o444, wal)
        try setMode(0o555, directory.path)
        defer { try? setMode(0o755, directory.path) }
        try UnprivilegedFileAccess.run {
            #expect {
                _ = try EventStore(path: path, options: .init(isReadOnly: true))
            } throws: { error in
                guard let error = error as? StoreError else { return false }
                let text = "\(error)"
                return error.kind == .readOnly && text.hasPrefix(path + ": ") && text.contains("'\(wal)'")
                    && text.contains("not yet copied into the database file") && text.contains("'\(directory.path)' is read-only")
            }
        }
        #expect(listing(directory.path) == ["events.db", "events.db-wal"])
        #expect(S.fileBytes(path) == before && S.fileBytes(wal) == walBefore)
        // The changes were committed: a writable open sees them.
        try setMode(0o755, directory.path)
        try setMode(0o644, path)
        try setMode(0o644, wal)
        #expect(try EventStore(path: path).events(EventQuery()) == all)
    }

    @Test func pendingChangesWithTheirIndexPresentAreReadInFull() throws {
        let directory = try StoreTemporaryDirectory()
        let all = try logWithPendingChanges(copiedTo: directory, withIndex: true)
        let path = directory.file("events.db")
        for suffix in ["", "-wal", "-shm"] { try setMode(0o444, path + suffix) }
        try setMode(0o555, directory.path)
        defer { try? setMode(0o755, directory.path) }
        try UnprivilegedFileAccess.run {
            let store = try EventStore(path: path, options: .init(isReadOnly: true))
            #expect(try store.events(EventQuery()) == all)
        }
    }

    @Test func emptyWriteAheadLogInReadOnlyDirectoryIsNoObstacle() throws {
        let directory = try StoreTemporaryDirectory()
        let (path, expected) = try makeLog(in: directory)
        #expect(FileManager.default.createFile(atPath: path + "-wal", contents: nil))
        try setMode(0o644, path)
        try setMode(0o555, directory.path)
        defer { try? setMode(0o755, directory.path) }
        try UnprivilegedFileAccess.run {
            // No `-shm` can be created and the `-wal` holds nothing: the file alone is the log.
            let store = try EventStore(path: path, options: .init(isReadOnly: true))
            #expect(try store.events(EventQuery()) == expected)
        }
    }

    @Test func writableOpenOfReadOnlyFileIsAClearErrorAndChangesNothing() throws {
        let directory = try StoreTemporaryDirectory()
        let (path, _) = try makeLog(in: directory)
        let before = S.fileBytes(path)
        try setMode(0o444, path)
        try UnprivilegedFileAccess.run {
            #expect { _ = try EventStore(path: path) } throws: { error in
                (error as? StoreError)?.kind == .readOnly && "\(error)".hasPrefix(path + ": the database file is read-only")
            }
        }
        #expect(S.fileBytes(path) == before)
        #expect(listing(directory.path) == ["events.db"])
    }

    @Test func writableOpenInReadOnlyDirectoryNamesTheDirectory() throws {
        let directory = try StoreTemporaryDirectory()
        let (path, _) = try makeLog(in: directory)
        let before = S.fileBytes(path)
        // The file is the user's and writable; only the directory is read-only.
        if geteuid() == 0 { #expect(chown(path, UnprivilegedFileAccess.nobody, UnprivilegedFileAccess.nobody) == 0) }
        try setMode(0o600, path)
        try setMode(0o555, directory.path)
        defer { try? setMode(0o755, directory.path) }
        try UnprivilegedFileAccess.run {
            #expect { try EventStore(path: path).append([S.appLaunch("u00", "new", at: 9)]) } throws: { error in
                (error as? StoreError)?.kind == .readOnly
                    && "\(error)".contains("the directory '\(directory.path)' is read-only for this user")
                    && "\(error)".contains("'\(path)-wal'")
            }
            // Reading still works there.
            let reader = try EventStore(path: path, options: .init(isReadOnly: true))
            #expect(try reader.count(EventQuery()) > 0)
        }
        #expect(S.fileBytes(path) == before)
        #expect(listing(directory.path) == ["events.db"])
    }

    @Test func writableOpenWithAReadOnlyWalIndexNamesIt() throws {
        // What a read-only SQLite connection leaves next to a 0444 file in a writable directory.
        let source = try StoreTemporaryDirectory(), directory = try StoreTemporaryDirectory()
        let (original, _) = try makeLog(in: source)
        let holder = try EventStore(path: original)
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: original + suffix, toPath: directory.file("events.db" + suffix))
        }
        withExtendedLifetime(holder) {}
        let path = directory.file("events.db")
        if geteuid() == 0 {
            for name in ["", "-wal", "-shm"] {
                #expect(chown(path + name, UnprivilegedFileAccess.nobody, UnprivilegedFileAccess.nobody) == 0)
            }
        }
        try setMode(0o444, path + "-shm")
        let before = S.fileBytes(path)
        try UnprivilegedFileAccess.run {
            #expect { try EventStore(path: path).append([S.appLaunch("u00", "new", at: 9)]) } throws: { error in
                (error as? StoreError)?.kind == .readOnly
                    && "\(error)".hasPrefix(path + ": '\(path)-shm' (SQLite's index of the write-ahead log) is read-only for this user")
            }
        }
        #expect(S.fileBytes(path) == before)
    }

    @Test func immutableURIKeepsOddFileNamesAndRelativePaths() throws {
        let directory = try StoreTemporaryDirectory()
        let (path, expected) = try makeLog(in: directory, name: "a ?b#c%41 é.db")
        let uri = DatabaseFile.immutableURI(for: path)
        #expect(uri.hasPrefix("file:///") && uri.hasSuffix("?mode=ro&immutable=1"))
        #expect(!uri.dropLast("?mode=ro&immutable=1".count).contains("?") && !uri.contains("#") && !uri.contains(" "))
        try setMode(0o444, path)
        try UnprivilegedFileAccess.run {
            let store = try EventStore(path: path, options: .init(isReadOnly: true))
            #expect(try store.events(EventQuery()) == expected)
        }
        #expect(listing(directory.path) == ["a ?b#c%41 é.db"])
        let relative = DatabaseFile.immutableURI(for: "x.db")
        #expect(relative.hasPrefix("file:///") && relative.contains("/x.db?"))
    }
}
