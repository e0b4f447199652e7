#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The database files this process has open through ``EventStore``, so that checking a file
/// never cancels the locks an open store's SQLite connection holds on it.
///
/// Why: SQLite coordinates connections with POSIX advisory locks (`fcntl`), and those belong to
/// the process, not to a descriptor: closing ANY descriptor of a file drops ALL of this process's
/// locks on that file, those of SQLite connections still open included (SQLite's "How To
/// Corrupt An SQLite Database File": POSIX advisory locks canceled by a separate close()).
/// Without them another process that closes a WAL database believes it is its last user: it
/// takes the exclusive lock, checkpoints, and deletes `-wal` and `-shm` while this process still
/// commits through them; those commits are then invisible to every other process, and copying
/// them into the file later overwrites what the others committed meanwhile.
///
/// The rule, kept by ``DatabaseFile/prepare(_:readOnly:)`` and ``EventStore``:
/// - This package opens a descriptor of a database file only while no store of this process has
///   it open, and only under the registry's lock, which registering a store takes too; a
///   registered file is checked with `stat` and `faccessat`, which need no descriptor. (SQLite
///   itself is safe: it shares one record of locks per file among its connections and keeps a
///   descriptor open until no connection of the process holds a lock on the file.) Descriptors
///   of `-wal`, `-shm` and `-journal` are never opened: they are inspected with `stat` only.
/// - A store is registered from its file's check until its init returns, and its SQLite
///   connection is registered for as long as it exists: the registration ends only once SQLite
///   has closed the file. An `immutable=1` connection takes no lock and is not registered.
///
/// Files are told apart by device and inode, as SQLite does: two paths to one file are one
/// entry, and a new file created under the path of a deleted one is another.
enum DatabaseRegistry {
    /// A file's identity: its device and inode.
    struct FileIdentity: Hashable, Sendable {
        /// The device holding the file.
        var device: UInt64
        /// The file's inode number on that device.
        var inode: UInt64

        /// The identity of the file `info` describes.
        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// How many registrations each file has; a file with none has no entry.
    struct Registrations: Sendable {
        fileprivate var counts: [FileIdentity: Int] = [:]

        /// Whether a store of this process has the file open or is opening it.
        func contains(_ identity: FileIdentity) -> Bool { counts[identity] != nil }

        /// Adds one registration of the file.
        mutating func register(_ identity: FileIdentity) { counts[identity, default: 0] += 1 }
    }

    /// A POSIX mutex (`EngineLock`), not `Synchronization.Mutex`: ThreadSanitizer, which CI runs
    /// over the store's concurrency tests, does not see `Mutex`'s futex locking on Linux and
    /// would report every access as a race.
    private static let registrations = EngineLock(Registrations())

    /// Runs `body` with the registrations, holding the registry's lock: nothing is registered or
    /// released meanwhile.
    static func withLock<T: Sendable, E: Error>(_ body: (inout Registrations) throws(E) -> T) throws(E) -> T {
        try registrations.withLock { (registrations: inout Registrations) throws(E) -> T in
            try body(&registrations)
        }
    }

    /// Adds one registration of a file that is registered already.
    static func retain(_ identity: FileIdentity) {
        registrations.withLock { registrations in
            precondition(registrations.contains(identity), "a database file is retained while it is not registered")
            registrations.register(identity)
        }
    }

    /// Ends one registration of the file.
    static func release(_ identity: FileIdentity) {
        registrations.withLock { registrations in
            guard let count = registrations.counts[identity] else {
                preconditionFailure("a database file is released more often than it was registered")
            }
            registrations.counts[identity] = count > 1 ? count - 1 : nil
        }
    }

    /// How many registrations the file has (0 when none).
    static func registrationCount(of identity: FileIdentity) -> Int {
        registrations.withLock { $0.counts[identity] ?? 0 }
    }
}
