/// Decayed engagement counts per (context, widget), e.g. per place or per previous app.
/// Rows are created lazily and grow to the number of widgets on first write.
struct ContextTable: Sendable, Codable, Hashable {
    private(set) var rows: [[Double]] = []

    init() {}

    /// Subscripts in place (binding the row to a local would cost a reference count).
    @inline(__always) func value(_ context: Int, _ widget: Int) -> Double {
        guard context >= 0, context < rows.count, widget < rows[context].count else { return 0 }
        return rows[context][widget]
    }

    /// Calls `body` with row `context` read in place (empty when the row does not exist), so a
    /// stack's widgets are read with one bounds check each (`UnsafeBufferPointer.entry(_:)`).
    @inline(__always) func withRow<T>(_ context: Int, _ body: (UnsafeBufferPointer<Double>) -> T) -> T {
        guard context >= 0, context < rows.count else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return rows[context].withUnsafeBufferPointer(body)
    }

    mutating func add(_ amount: Double, _ context: Int, _ widget: Int) {
        guard context >= 0 else { return }
        if context >= rows.count { rows.append(contentsOf: repeatElement([], count: context + 1 - rows.count)) }
        if widget >= rows[context].count {
            rows[context].append(contentsOf: repeatElement(0, count: widget + 1 - rows[context].count))
        }
        rows[context][widget] += amount
    }

    /// Makes row `r` a copy of row `row` of `other` (rows in between stay empty).
    mutating func copyRow(from other: ContextTable, row: Int, to r: Int) {
        guard row >= 0, row < other.rows.count, r >= 0 else { return }
        if r >= rows.count { rows.append(contentsOf: repeatElement([], count: r + 1 - rows.count)) }
        rows[r] = other.rows[row]
    }

    mutating func scale(by factor: Double) {
        for i in rows.indices { for j in rows[i].indices { rows[i][j] *= factor } }
    }
}

extension UnsafeBufferPointer where Element == Double {
    /// The count of widget `w` in a `ContextTable` row read by `withRow` (0 past its end, as
    /// `ContextTable.value`).
    @inline(__always) func entry(_ w: Int) -> Double { w < count ? self[w] : 0 }
}
