import Foundation
import SmartStack

/// Writes imported events as SmartStack JSONL v1, all or nothing.
///
/// ```swift
/// try ImportedEventsWriter.write(result.events, toFile: "studentlife.jsonl")
/// ```
public enum ImportedEventsWriter {
    /// The JSONL bytes of `events` (one line each, `\n`-terminated).
    ///
    /// - Complexity: O(n).
    public static func jsonl(_ events: [Event]) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(events.count * 96)
        for event in events { JSONLWriter.append(event, to: &buffer) }
        return buffer
    }

    /// Writes `events` to `path` through a temporary file in the same directory renamed over
    /// `path` at the end, so the file is either the complete new output or untouched.
    ///
    /// - Throws: ``ImportError`` naming `path` if it cannot be written.
    /// - Complexity: O(n).
    public static func write(_ events: [Event], toFile path: String) throws(ImportError) {
        let bytes = jsonl(events)
        let target = URL(fileURLWithPath: path)
        let directory = target.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ImportError(file: path, message: "cannot write: directory '\(directory.path)' does not exist")
        }
        let temporary = directory.appendingPathComponent(".\(target.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        do {
            try Data(bytes).write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ImportError(file: path, message: "cannot write: \(error.localizedDescription)")
        }
        // rename(2) replaces the target atomically.
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw ImportError(file: path, message: "cannot write: \(reason)")
        }
    }
}
