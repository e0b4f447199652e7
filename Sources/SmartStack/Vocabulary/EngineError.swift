/// Errors of the engine: a ``kind`` a host branches on, and a sentence a person can act on.
///
/// ```swift
/// do { _ = try engine.ranking(stack: "gym", user: "me", at: now) }
/// catch let error as EngineError where error.kind == .unknownStack { showSetup() }
/// ```
///
/// The event log's own failures (a full disk, a read-only or locked file) are ``StoreError``s,
/// which carry a kind of their own.
public struct EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for a host that reacts differently to each.
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// The policy's name is empty or not a built-in policy.
        case unknownPolicy
        /// A policy or rotation parameter is unknown, repeated, malformed or out of range.
        case invalidParameter
        /// The stack is not configured for the user.
        case unknownStack
        /// No events are recorded for the user.
        case unknownUser
        /// A stack configuration the engine refuses: an empty stack, user or widget id, a
        /// widget listed twice, or one whose `stack_config` line would exceed the format's 1 MiB.
        case invalidConfiguration
        /// An argument out of range: an instant outside the years 1678...2261 or a UTC offset
        /// that is not a whole number of minutes within ±23:59, a number that is not finite, an
        /// empty stack or user name (`docs/contract.md`).
        case invalidArgument
        /// An event the JSONL v1 format would refuse (`Datasets/FORMAT.md`): nothing of the
        /// batch was recorded.
        case invalidEvent
        /// Saved state bytes that cannot be restored: unreadable, of another version, user or
        /// policy, or inconsistent.
        case invalidSnapshot
        /// A history the engine refuses to backfill: an event that is not an `app_launch`, of
        /// another user or without an id, or launches older than events already recorded live.
        case invalidHistory
        /// The engine was closed.
        case closed
        /// A population prior that cannot be used: a file that cannot be read, is too large, cut
        /// short, of a newer version, or holds a negative, non-finite or out-of-range value.
        case invalidPrior
    }

    /// What went wrong.
    public var kind: Kind
    /// The sentence describing what went wrong and where.
    public var message: String
    /// Creates an error of `kind` with its message.
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    /// The message.
    public var description: String { message }
}
