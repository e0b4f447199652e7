import Foundation
import SmartStack
import SmartStackDatasets

/// `smartstack import usage-history ... --db <path>`: stores an imported history as one person's
/// backfill (``Engine/backfill(_:user:)``), then says what it holds for the person's widgets.
///
/// ```swift
/// try HistoryBackfill(result: imported, database: "smartstack.sqlite").run(output)
/// ```
struct HistoryBackfill {
    /// The imported launches (one user's) and where each was read.
    let result: ImportResult
    let database: String

    /// `-05:00`, `+00:00`.
    static func offset(_ seconds: Int32) -> String {
        let m = abs(Int(seconds)) / 60
        return (seconds < 0 ? "-" : "+") + String(format: "%02d:%02d", m / 60, m % 60)
    }

    /// Stores the launches; prints the import summary, the count stored and skipped, and notes.
    ///
    /// - Throws: ``CommandFailure`` naming the file and line of the first launch the engine
    ///   refuses (nothing is stored then), or when the history holds several users.
    func run(_ output: CommandOutput) throws {
        var report = result.report
        let users = Array(Set(result.events.map(\.user))).sorted()
        guard users.count <= 1 else {
            throw CommandFailure("a history backfills one person, but \(report.files.joined(separator: ", ")) holds \(users.count) users "
                + "(\(users.prefix(5).joined(separator: ", "))\(users.count > 5 ? ", ..." : "")): give --user, or import each person's history on its own")
        }
        guard let user = users.first else {
            output.printError(report.summary + "\n  nothing to store in \(database)")
            return
        }
        let engine: Engine
        do { engine = try Engine(path: database) } catch { throw CommandFailure("\(error)") }
        defer { try? engine.close() }
        if let latest = try? engine.store.latestEvent(user: user, excluding: []),
           !result.events.contains(where: { $0.time.utcOffsetSeconds == latest.time.utcOffsetSeconds }) {
            let offsets = Set(result.events.map { Self.offset($0.time.utcOffsetSeconds) }).sorted()
            report.notes.append("the history's UTC offsets (\(offsets.joined(separator: ", "))) all differ from that of user '\(user)''s "
                + "latest recorded event (\(Self.offset(latest.time.utcOffsetSeconds))): if the export wrote UTC times, "
                + "give --timezone with the phone's zone")
        }
        let stored: AppendResult
        do {
            stored = try engine.backfill(result.events, user: user)
        } catch let error as EngineError {
            // The engine names the launch by its id: say where it was read.
            let origin = result.events.lazy.compactMap { e -> String? in
                guard let id = e.id, error.message.contains("'\(id)'") else { return nil }
                return result.origins[user + "\u{0}" + id]
            }.first
            throw CommandFailure((origin.map { "\($0): " } ?? "") + error.message + "; nothing was stored")
        } catch {
            throw CommandFailure("\(error); nothing was stored")
        }
        if let stacks = try? engine.stacks(user: user) {
            var launches: [String: Int] = [:]
            for e in result.events { if case .appLaunch(let app) = e.payload { launches[app, default: 0] += 1 } }
            for (stack, widgets) in stacks.sorted(by: { $0.key < $1.key }) {
                for w in widgets {
                    guard let app = w.app else {
                        report.notes.append("widget '\(w.id)' of stack '\(stack)' names no app: the history cannot tell its use")
                        continue
                    }
                    let n = launches[app] ?? 0
                    report.notes.append("widget '\(w.id)' of stack '\(stack)' (app '\(app)'): \(n) launch\(n == 1 ? "" : "es") in the history"
                        + (n == 0 ? " (if its package is named otherwise, give --map <package>=\(app))" : ""))
                }
            }
        } else {
            report.notes.append("user '\(user)' has no stack yet: configure the stacks (any time: a widget configured after its app's launches starts from them)")
        }
        output.printError(report.summary)
        output.printError("  stored \(stored.inserted) launch\(stored.inserted == 1 ? "" : "es") for user '\(user)' in \(database)"
            + (stored.duplicates > 0 ? "; \(stored.duplicates) already stored (skipped)" : ""))
    }
}
