import SmartStackSQLite

/// Opening the log read-only where this process may not write: a read-only file, a read-only
/// directory, a read-only file system.
///
/// SQLite reads a WAL database through two files next to it, `<path>-wal` (changes not yet
/// copied into the database file) and `<path>-shm` (the index of that log, shared by every
/// connection). A read-only connection still needs both to exist or to be creatable, so in a
/// directory it may not write it fails unless they are already there. The way out is SQLite's
/// `immutable=1`: read the database file alone, with no lock and no other file. That is exact
/// only when no `-wal` (or `-journal`) next to it holds data and no other process, nor another
/// store of this one, has the log open (it could change the file under a reader that takes no
/// lock), so it is used only then; otherwise the open fails and says why, rather than silently
/// reading another state of the log.
extension EventStore {
    /// Opens `path` read-only, without creating or changing any file when this process may not
    /// write there; throws when that would hide committed changes or race another process.
    /// `prepared`: what checking the file found (whether another process, or a store of this
    /// one, had the log open), its registration kept by the connection.
    static func openReadOnly(_ path: String, options: Options, prepared: DatabaseFile.Prepared) throws -> Connection {
        let isOpenElsewhere = prepared.isOpenElsewhere
        let walPath = path + "-wal", journalPath = path + "-journal"
        let isFileWritable = DatabaseFile.isWritable(path)
        // A file this process may not write (0444, someone else's, a read-only file system) with
        // no write-ahead log: nothing can be pending, so read it as it is. A read-only SQLite
        // connection would create `-wal` and `-shm` in a writable directory with the file's
        // read-only mode, and such a `-shm` later stops its owner from writing the log.
        if !isFileWritable && !isOpenElsewhere && DatabaseFile.size(of: walPath) == nil
            && (DatabaseFile.size(of: journalPath) ?? 0) == 0 {
            return try openImmutable(path, options: options)
        }
        do {
            // A file this process may write is opened read-write with `query_only` (set by
            // `prepare`, so every change fails as on a read-only connection): closing it then
            // removes the `-wal` and `-shm` it needed, which a read-only connection leaves behind.
            let connection = try openLockingConnection(DatabaseFile.sqliteName(for: path), of: prepared.identity,
                options: Connection.Options(isReadOnly: !isFileWritable, createsFile: false, busyTimeout: options.busyTimeout))
            // Connection does not read the file: the first statement meets the missing `-shm`.
            try connection.withDatabase { db in try prepare(db, path: path, options: options) }
            return connection
        } catch let error as SQLiteError where cannotOpenSideFiles(error) {
            if let size = DatabaseFile.size(of: walPath), size > 0 {
                let shmPath = path + "-shm", directory = DatabaseFile.directory(of: path)
                let obstacle = DatabaseFile.size(of: shmPath) == nil
                    ? "which cannot be created because '\(directory)' is read-only for this user"
                    : "which this user may not open"
                throw StoreError(kind: .readOnly, path: path, message:
                    "cannot read the log read-only: '\(walPath)' holds changes not yet copied into the database file (\(size) bytes; the log was not closed cleanly or is open elsewhere), and reading them needs '\(shmPath)', \(obstacle); open the log read-write once as a user who may write '\(directory)' (SQLite then copies the changes into the file), or make the directory writable",
                    underlying: error)
            }
            if isOpenElsewhere {
                throw StoreError(kind: .busy, path: path, message:
                    "cannot read the log read-only: another program has it open and may be changing it, and this user cannot share SQLite's '\(path)-shm' with it ('\(DatabaseFile.directory(of: path))' or that file is read-only for this user); try again when the other program has closed the log",
                    underlying: error)
            }
            if let size = DatabaseFile.size(of: journalPath), size > 0 {
                throw StoreError(kind: .readOnly, path: path, message:
                    "cannot read the log read-only: '\(journalPath)' holds an unfinished transaction (\(size) bytes) that must be rolled back first, and this user may not write next to the database; open the log read-write once as a user who may",
                    underlying: error)
            }
            return try openImmutable(path, options: options)
        }
    }

    /// Opens `path` with SQLite's `immutable=1`: read-only, no lock, no `-wal` or `-shm` (so the
    /// connection need not stay registered in ``DatabaseRegistry``: it holds no lock to lose).
    private static func openImmutable(_ path: String, options: Options) throws -> Connection {
        let connection = try Connection(path: DatabaseFile.immutableURI(for: path), options: Connection.Options(
            isReadOnly: true, createsFile: false, busyTimeout: options.busyTimeout, interpretsURI: true))
        try connection.withDatabase { db in try prepare(db, path: path, options: options) }
        return connection
    }

    /// Whether `error` is SQLite failing to create or open `-wal`/`-shm` for a read-only
    /// connection (a read-only directory or file system, a `-shm` it may not use).
    private static func cannotOpenSideFiles(_ error: SQLiteError) -> Bool {
        switch error.resultCode {
        case 14 /* SQLITE_CANTOPEN */, 8 /* SQLITE_READONLY */:
            return true
        case 264 /* SQLITE_READONLY_RECOVERY */, 520 /* SQLITE_READONLY_CANTLOCK */,
             1288 /* SQLITE_READONLY_CANTINIT */, 1544 /* SQLITE_READONLY_DIRECTORY */:
            return true
        case 4618 /* SQLITE_IOERR_SHMOPEN */, 4874 /* SQLITE_IOERR_SHMSIZE */,
             5130 /* SQLITE_IOERR_SHMLOCK */, 5386 /* SQLITE_IOERR_SHMMAP */:
            return true
        default:
            return error.primaryResultCode == 14 /* SQLITE_CANTOPEN_* */
        }
    }

    /// A store error of a read-write open that failed because this process may not write the
    /// file, its `-wal`/`-shm` or its directory, restated to name what is in the way.
    static func explainingWriteObstacle(_ error: any Error, path: String, options: Options) -> any Error {
        guard !options.isReadOnly, !DatabaseFile.isInMemory(path), let storeError = error as? StoreError,
              storeError.kind == .readOnly || storeError.kind == .cannotOpen, storeError.underlying != nil,
              let obstacle = DatabaseFile.writeObstacle(path) else { return error }
        return StoreError(kind: .readOnly, path: path, message: obstacle, underlying: storeError.underlying)
    }
}
