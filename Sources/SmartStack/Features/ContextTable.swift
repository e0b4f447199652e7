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
