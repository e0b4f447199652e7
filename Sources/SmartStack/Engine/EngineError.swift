/// Errors of the engine, each a sentence a person can act on.
///
/// ```swift
/// do { _ = try PolicySpec(parsing: "nope") }
/// catch { print(error) }  // unknown policy 'nope' (valid: static, round-robin, ...)
/// ```
public struct EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sentence describing what went wrong and where.
    public var message: String
    /// Creates an error with its message.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
