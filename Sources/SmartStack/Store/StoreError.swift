import SmartStackSQLite

/// Why the event log could not do what was asked; the message names the database file.
///
/// ```swift
/// do { _ = try EventStore(path: "/tmp") }
/// catch let error as StoreError { print(error) }   // "/tmp: is a directory, not a database file"
/// ```
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad kind of failure, for callers that react differently to each.
    public enum Kind: Sendable, Hashable {
        /// The file cannot be created or opened (directory, permissions, missing folder).
        case cannotOpen
        /// The file is not a SQLite database, or a SQLite database of another program.
        case notADatabase
        /// The database was written by a newer SmartStack.
        case newerSchema
        /// The database is read-only (opened so, or the file or folder is).
        case readOnly
        /// Another connection held the lock longer than the busy timeout.
        case busy
        /// The disk, or the database's size limit, is full.
        case full
        /// The file is damaged.
        case corrupt
        /// An event cannot be stored faithfully (e.g. a NaN number).
        case invalidEvent
        /// The store was used from inside one of its own closures.
        case misuse
        /// Any other SQLite failure.
        case sqlite
    }

    /// The broad kind of failure.
    public var kind: Kind
    /// The database path.
    public var path: String
    /// What went wrong, as a sentence.
    public var message: String
    /// The SQLite extended result code behind this error (e.g. 5 `SQLITE_BUSY`, 13
    /// `SQLITE_FULL`, 1544 `SQLITE_READONLY_DIRECTORY`), `nil` when SQLite did not fail.
    public var sqliteResultCode: Int32? { underlying?.resultCode }
    /// The SQLite error behind this one, if any.
    package var underlying: SQLiteError?

    /// Creates an error.
    public init(kind: Kind, path: String, message: String) {
        self.init(kind: kind, path: path, message: message, underlying: nil)
    }

    /// Creates an error caused by a SQLite failure.
    package init(kind: Kind, path: String, message: String, underlying: SQLiteError?) {
        self.kind = kind
        self.path = path
        self.message = message
        self.underlying = underlying
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}

extension StoreError {
    /// Translates errors of the SQLite layer into store errors naming `path`; any other error
    /// (e.g. thrown by a caller's closure) is returned unchanged.
    static func wrapping(_ error: any Error, path: String, busyTimeout: Duration) -> any Error {
        switch error {
        case let error as StoreError:
            return error
        case let error as MigrationError:
            switch error {
            case .newerSchema:
                return StoreError(kind: .newerSchema, path: path, message: error.description)
            case .unknownMigration:
                return StoreError(kind: .notADatabase, path: path, message: "not a SmartStack database: \(error)")
            }
        case let error as SQLiteError:
            return StoreError(sqlite: error, path: path, busyTimeout: busyTimeout)
        default:
            return error
        }
    }

    init(sqlite error: SQLiteError, path: String, busyTimeout: Duration) {
        let kind: Kind
        let message: String
        switch error.primaryResultCode {
        case 5 /* SQLITE_BUSY */, 6 /* SQLITE_LOCKED */:
            kind = .busy
            message = "database is locked by another connection (waited \(busyTimeout)); try again when it is done"
        case 13 /* SQLITE_FULL */:
            kind = .full
            message = "database or disk is full; nothing of the failed operation was stored"
        case 8 /* SQLITE_READONLY */:
            kind = .readOnly
            message = "database is read-only: \(error.message)"
        case 11 /* SQLITE_CORRUPT */:
            kind = .corrupt
            message = "database file is damaged: \(error.message)"
        case 26 /* SQLITE_NOTADB */:
            kind = .notADatabase
            message = "not a SmartStack database: \(error.message)"
        case 14 /* SQLITE_CANTOPEN */:
            kind = .cannotOpen
            message = error.message
        case 21 /* SQLITE_MISUSE */:
            kind = .misuse
            message = error.message
        default:
            kind = .sqlite
            message = error.description
        }
        self.init(kind: kind, path: path, message: message, underlying: error)
    }
}
