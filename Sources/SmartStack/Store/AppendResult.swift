/// The outcome of an append.
///
/// ```swift
/// let result = try store.append(events)
/// print("ingested \(result.inserted), duplicates skipped \(result.duplicates)")
/// ```
public struct AppendResult: Sendable, Hashable {
    /// Events newly stored.
    public var inserted: Int
    /// Events skipped because their (user, id) was already stored, earlier or in the same batch.
    public var duplicates: Int
    /// Creates a result.
    public init(inserted: Int, duplicates: Int) { self.inserted = inserted; self.duplicates = duplicates }
}
