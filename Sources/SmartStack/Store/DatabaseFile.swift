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

    /// Makes sure `path` is a regular file SQLite can open; creates it with mode 0600 when it
    /// does not exist and `readOnly` is false. Returns whether it was created.
    static func prepare(_ path: String, readOnly: Bool) throws(StoreError) -> Bool {
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
            let code = errno
            switch code {
            case EISDIR:
                throw failure("is a directory, not a database file")
            case ENOENT:
                throw failure(readOnly ? "no such database file" : "cannot create the database: the directory does not exist")
            case EACCES, EPERM:
                throw failure(readOnly
                    ? "permission denied: cannot read the database file"
                    : "permission denied: cannot create or write the database file (is the file or its directory read-only?)",
                    .readOnly)
            case EROFS:
                throw failure("the database is on a read-only file system; open it read-only or move it", .readOnly)
            case ENOTDIR:
                throw failure("a component of the path is not a directory")
            default:
                throw failure("cannot open the database file: \(String(cString: strerror(code)))")
            }
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
        return created
    }
}
