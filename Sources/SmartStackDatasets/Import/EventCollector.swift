import SmartStack

/// Gathers an importer's events per user, then orders them, adds the stack configuration
/// and gives deterministic ids. Internal machinery shared by the importers.
///
/// Output order: users in ascending (byte-wise) order; within a user, events in time order,
/// events at the same instant in the order they were produced (stable). Ids are
/// `<prefix>-<user>-<n>`, n = 1, 2, ... in that order, so importing the same files with the
/// same options again gives the same ids (and re-ingesting them is a no-op).
struct EventCollector {
    let idPrefix: String
    private var byUser: [String: [Event]] = [:]
    var report: ImportReport
    private var firstInvalid: ImportError?

    init(format: String, idPrefix: String) {
        self.idPrefix = idPrefix
        report = ImportReport(format: format)
    }

    mutating func add(_ event: Event) {
        byUser[event.user, default: []].append(event)
    }

    /// Handles an invalid row: rethrows unless rows may be skipped, then counts it.
    mutating func invalidRow(_ error: ImportError, skipping: Bool) throws(ImportError) {
        guard skipping else { throw error }
        report.skip("invalid value" + (error.column.map { " in column '\($0)'" } ?? " (malformed row)"))
        if firstInvalid == nil {
            firstInvalid = error
            report.notes.append("first invalid row skipped: \(error)")
        }
    }

    /// The ordered events with ids, and the final report.
    ///
    /// - Complexity: O(n log n).
    mutating func finish(stackRule: ImportStackRule, stackName: String) -> ImportResult {
        var out: [Event] = []
        out.reserveCapacity(byUser.values.reduce(0) { $0 + $1.count } + byUser.count)
        var usersWithoutStack: [String] = []
        for user in byUser.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            let events = byUser[user]!
            let ordered = events.indices.sorted { a, b in
                let ta = events[a].time.nanosecondsSinceEpoch, tb = events[b].time.nanosecondsSinceEpoch
                return ta != tb ? ta < tb : a < b
            }.map { events[$0] }
            var (withStack, config) = stackRule.applied(to: ordered, user: user, stack: stackName)
            if config == nil, stackRule != .none { usersWithoutStack.append(user) }
            for i in withStack.indices {
                withStack[i].id = "\(idPrefix)-\(user)-\(i + 1)"
                report.eventsByType[withStack[i].type, default: 0] += 1
            }
            out += withStack
        }
        switch stackRule {
        case .none:
            break
        case .fixed(let apps):
            report.notes.append("stack '\(stackName)' = \(apps.count) given apps, configured at each user's first event")
        case .mostUsed(let count, let days):
            report.notes.append("stack '\(stackName)' = each user's \(count) most launched apps during their first "
                + "\(formatDays(days)) day(s), configured at the end of that warm-up")
        }
        if !usersWithoutStack.isEmpty {
            report.notes.append("no stack for \(usersWithoutStack.count) user(s) without app launches in the warm-up: "
                + usersWithoutStack.prefix(5).joined(separator: ", ") + (usersWithoutStack.count > 5 ? ", ..." : ""))
        }
        return ImportResult(events: out, report: report)
    }

    private func formatDays(_ d: Double) -> String {
        d == d.rounded() ? String(Int(d)) : String(d)
    }
}
