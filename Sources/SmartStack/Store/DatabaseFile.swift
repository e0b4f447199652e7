#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks and, when needed, creates the database file before SQLite touches it, so that a new
/// file is never readable by anyone but its owner and problems are reported in plain words.
enum DatabaseFile {
    /// Whether `path` names an in-memory or temporary database rather than a file.
    static func isInMemory(_ path: String) -> Bool {
        path == ":memory:" || path.isEmpty
    }

    /// The name to give SQLite for `path`: always a plain file name, never a `file:` URI, so
    /// SQLite opens exactly the file checked and created here.
    static func sqliteName(for path: String) -> String {
        path.hasPrefix("file:") ? "./" + path : path
    }

    /// What ``prepare(_:readOnly:)`` found.
    struct Prepared: Sendable {
        /// Whether the file was created.
        var isCreated: Bool
        /// Whether another process has the database open through SQLite (see
        /// ``isOpenElsewhere(_:)``), or a store of this process has: either may change it.
        var isOpenElsewhere: Bool
        /// The file, registered in ``DatabaseRegistry`` once more until the caller releases it.
        var identity: DatabaseRegistry.FileIdentity
    }

    /// Makes sure `path` is a regular file SQLite can open; creates it with mode 0600 when it
    /// does not exist and `readOnly` is false. Registers the file in ``DatabaseRegistry``: the
    /// caller releases ``Prepared/identity`` once it has opened (or failed to open) the file.
    ///
    /// A file a store of this process has open is checked without opening a descriptor of it:
    /// closing one would cancel the POSIX locks of that store's connection (see
    /// ``DatabaseRegistry``).
    static func prepare(_ path: String, readOnly: Bool) throws(StoreError) -> Prepared {
        try DatabaseRegistry.withLock { (registrations: inout DatabaseRegistry.Registrations) throws(StoreError) -> Prepared in
            var info = stat()
            if stat(path, &info) == 0, registrations.contains(DatabaseRegistry.FileIdentity(info)) {
                try checkOpenFile(path, info, readOnly: readOnly)
                let prepared = Prepared(isCreated: false, isOpenElsewhere: true, identity: DatabaseRegistry.FileIdentity(info))
                registrations.register(prepared.identity)
                return prepared
            }
            // No store of this process has the file open (a file renamed onto `path` between the
            // `stat` above and the `open` below is the only way around this check), so a
            // descriptor of it may be opened and closed.
            let prepared = try checkClosedFile(path, readOnly: readOnly)
            registrations.register(prepared.identity)
            return prepared
        }
    }

    /// Checks the file at `path`, which a store of this process has open, with `stat` and
    /// `faccessat` only; reports what `open` would have.
    private static func checkOpenFile(_ path: String, _ info: stat, readOnly: Bool) throws(StoreError) {
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError(kind: .cannotOpen, path: path, message: "is not a regular file, so it cannot be a database")
        }
        // The access `open` checks: read for a read-only open, read and write otherwise.
        guard faccessat(AT_FDCWD, path, readOnly ? R_OK : R_OK | W_OK, AT_EACCESS) == 0 else {
            throw openFailure(errno, path: path, readOnly: readOnly)
        }
    }

    /// Checks (and when needed creates) the file at `path`, which no store of this process has
    /// open, through a descriptor closed before returning.
    private static func checkClosedFile(_ path: String, readOnly: Bool) throws(StoreError) -> Prepared {
        func failure(_ message: String, _ kind: StoreError.Kind = .cannotOpen) -> StoreError {
            StoreError(kind: kind, path: path, message: message)
        }
        var created = false
        var descriptor: Int32
        if readOnly {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
        } else {
            // O_EXCL tells a new file from an existing one; only a new file gets its mode set.
            descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                created = true
            } else if errno == EEXIST {
                descriptor = open(path, O_RDWR | O_CLOEXEC)
            }
        }
        guard descriptor >= 0 else {
            throw openFailure(errno, path: path, readOnly: readOnly)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw failure("cannot inspect the database file: \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw failure("is not a regular file, so it cannot be a database")
        }
        if created {
            // The process umask may have removed bits; set exactly owner read/write, nothing else,
            // before any data is written.
            guard fchmod(descriptor, 0o600) == 0 else {
                let message = String(cString: strerror(errno))
                unlink(path)
                throw failure("cannot restrict the new database file to mode 0600: \(message)")
            }
        }
        return Prepared(isCreated: created, isOpenElsewhere: isOpenElsewhere(descriptor),
                        identity: DatabaseRegistry.FileIdentity(info))
    }

    /// The error for opening `path` failing with `code` (an `errno`).
    private static func openFailure(_ code: Int32, path: String, readOnly: Bool) -> StoreError {
        func failure(_ message: String, _ kind: StoreError.Kind = .cannotOpen) -> StoreError {
            StoreError(kind: kind, path: path, message: message)
        }
        switch code {
        case EISDIR:
            return failure("is a directory, not a database file")
        case ENOENT:
            return failure(readOnly ? "no such database file" : "cannot create the database: the directory does not exist")
        case EACCES, EPERM:
            if readOnly {
                return failure("permission denied: cannot read the database file", .readOnly)
            } else if access(path, F_OK) == 0 {
                return failure("the database file is read-only for this user (permission denied): changing the log needs write access to it; reading it works", .readOnly)
            } else {
                return failure("permission denied: cannot create the database file: the directory '\(directory(of: path))' is read-only for this user", .readOnly)
            }
        case EROFS:
            return failure("the database is on a read-only file system: changing the log is impossible there; reading it works, or copy it to a writable place", .readOnly)
        case ENOTDIR:
            return failure("a component of the path is not a directory")
        default:
            return failure("cannot open the database file: \(String(cString: strerror(code)))")
        }
    }

    /// Whether another process has the database behind `descriptor` open through SQLite: every
    /// SQLite connection to a WAL database holds a shared POSIX lock on the file's "shared" lock
    /// bytes (offset 2^30 + 2, 510 bytes) for as long as it is open. Locks of this process are
    /// not seen (POSIX locks never conflict with their own process's).
    static func isOpenElsewhere(_ descriptor: Int32) -> Bool {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0x4000_0002
        lock.l_len = 510
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }
}

// MARK: Files next to the database

extension DatabaseFile {
    /// The directory holding `path` (`.` for a bare file name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// The size in bytes of the file at `path`, `nil` when there is none.
    static func size(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Whether this process may write `path` (an existing file or directory): `false` for
    /// permission bits that forbid it and for a read-only file system. Checked with the identity
    /// that opening files uses (effective, not real, user), as `open` would decide.
    static func isWritable(_ path: String) -> Bool {
        faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0
    }

    /// Why this process cannot change the log at `path` although the file itself opened for
    /// writing, as a sentence naming the file in the way; `nil` when nothing visible is in the way.
    ///
    /// SQLite changes a WAL database through `<path>-wal` and `<path>-shm`: both must be writable,
    /// or creatable in the directory.
    static func writeObstacle(_ path: String) -> String? {
        if !isWritable(path) {
            return "the database file is read-only for this user: changing the log needs write access to it; reading it works"
        }
        let wal = path + "-wal", shm = path + "-shm"
        if size(of: wal) != nil && !isWritable(wal) {
            // Never suggest deleting it: a -wal may hold committed changes.
            return "'\(wal)' (SQLite's write-ahead log of the database) is read-only for this user: changing the log needs write access to it; have its owner open the log read-write once, or give this user write access"
        }
        if size(of: shm) != nil && !isWritable(shm) {
            return "'\(shm)' (SQLite's index of the write-ahead log) is read-only for this user: changing the log needs write access to it; when no program has the log open, deleting '\(shm)' is safe (SQLite rebuilds it)"
        }
        let directory = directory(of: path)
        if (size(of: wal) == nil || size(of: shm) == nil) && !isWritable(directory) {
            return "the directory '\(directory)' is read-only for this user: changing the log needs to create '\(wal)' and '\(shm)' in it; reading it works"
        }
        return nil
    }

    /// An SQLite URI opening `path` read-only and immutable: SQLite then takes no lock and
    /// creates, reads and changes no other file (no `-wal`, no `-shm`). Only correct while nothing
    /// changes the file and no `-wal` or `-journal` next to it holds data.
    static func immutableURI(for path: String) -> String {
        var absolute = path
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                absolute = (cwd.hasSuffix("/") ? cwd : cwd + "/") + path
            }
        }
        // Every byte but unreserved ones and '/' is percent-encoded, so '?', '#' and '%' in
        // file names stay part of the path.
        var encoded = ""
        for byte in absolute.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        // An empty authority ("file://") so a path starting with "//" is not read as a host.
        return "file://" + encoded + "?mode=ro&immutable=1"
    }
}
