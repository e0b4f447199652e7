import Foundation
import SmartStack
import SmartStackDatasets

extension PartialEvaluation {
    /// The partial file's bytes: a header line, one line per user (sorted by id), and a trailer
    /// line with the user count and a checksum of everything before it
    /// (`Datasets/PARTIAL-FORMAT.md`).
    ///
    /// - Complexity: O(size of the statistics).
    public func encoded() -> [UInt8] {
        var w = PartialWriter()
        w.raw("{")
        w.key("format", first: true); w.string(Self.format)
        w.key("version"); w.int(Self.version)
        w.key("dataset"); w.raw("{")
        w.key("name", first: true); w.string(name)
        w.key("sources"); w.array(sources) { $0.string($1) }
        w.raw("}")
        w.key("options"); w.raw("{")
        w.key("window_seconds", first: true); w.double(options.window)
        w.key("merge_repeats"); w.bool(options.mergeRepeats)
        w.key("warmup_days"); w.int(options.warmupDays)
        w.key("seed"); w.int(options.seed)
        w.key("rotation"); w.string(options.rotation)
        w.key("bootstrap_resamples"); w.int(options.bootstrapResamples)
        w.key("flicker_window_seconds"); w.double(options.flickerWindow)
        w.key("off_policy_estimates"); w.bool(options.offPolicyEstimates)
        w.key("off_policy_round_limit"); w.int(options.offPolicyRoundLimit)
        w.key("reference"); w.optionalString(options.reference)
        w.raw("}")
        w.key("policies"); w.array(policies) { $0.string($1) }
        w.key("events"); w.int(events)
        w.key("first"); Self.write(first, &w)
        w.key("last"); Self.write(last, &w)
        w.key("users"); w.int(users.count)
        w.raw("}\n")
        for u in users {
            Self.write(u, &w)
            w.raw("\n")
        }
        let checksum = PartialWriter.checksum(w.bytes[...])
        w.raw("{")
        w.key("end", first: true); w.string(Self.format)
        w.key("users"); w.int(users.count)
        w.key("checksum"); w.string(String(format: "%016llx", checksum))
        w.raw("}\n")
        return w.bytes
    }

    /// Writes the partial to `path` (through a temporary file renamed when complete).
    ///
    /// - Throws: `EvaluationError` naming the file when it cannot be written.
    public func write(to path: String) throws {
        do {
            try Data(encoded()).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw EvaluationError("cannot write the partial '\(path)': \(error.localizedDescription)")
        }
    }

    /// Reads a partial file (plain or gzip-compressed).
    ///
    /// - Throws: `EvaluationError` naming the file (and line and column) when it is missing,
    ///   not a partial, of another version, cut short or altered.
    public init(contentsOf path: String) throws {
        var bytes: [UInt8] = []
        do {
            let source = GzipByteSource(try JSONLFileSource(path: path))
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = try chunk.withUnsafeMutableBufferPointer { try source.read(into: $0) }
                if n == 0 { break }
                bytes.append(contentsOf: chunk[0..<n])
            }
        } catch let error as JSONLError {
            throw EvaluationError("cannot read partial: \(error)")
        } catch {
            throw EvaluationError("cannot read partial '\(path)': \(error)")
        }
        self = try Self(bytes: bytes, name: path)
    }

    /// Reads a partial from its bytes; `name` is used in errors.
    public init(bytes: [UInt8], name file: String) throws {
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        // header, users..., trailer, and the empty piece after the last newline
        guard lines.count >= 3, lines.last?.isEmpty == true else {
            throw EvaluationError("\(file): not a complete partial file (\(bytes.isEmpty ? "empty" : "it does not end with its trailer line"))")
        }
        self = try lines[0].withUnsafeBufferPointer { (header: UnsafeBufferPointer<UInt8>) throws -> PartialEvaluation in
            var s = PartialScanner(header, file: file, line: 1)
            return try Self.readHeader(&s)
        }
        let trailerIndex = lines.count - 2
        let (count, checksum) = try lines[trailerIndex].withUnsafeBufferPointer { (t: UnsafeBufferPointer<UInt8>) throws -> (Int, String) in
            var s = PartialScanner(t, file: file, line: trailerIndex + 1)
            try s.expect("{")
            try s.key("end", first: true)
            guard try s.string() == Self.format else { throw s.failure("not the trailer line: the file is cut short") }
            try s.key("users")
            let n = try s.int()
            try s.key("checksum")
            let c = try s.string()
            try s.expect("}")
            try s.end()
            return (n, c)
        }
        let bodyEnd = lines[trailerIndex].startIndex
        let actual = String(format: "%016llx", PartialWriter.checksum(bytes[..<bodyEnd]))
        guard actual == checksum else {
            throw EvaluationError("\(file): corrupt partial: checksum \(actual) does not match the trailer's \(checksum) (the file was altered or damaged)")
        }
        guard count == users.count, trailerIndex - 1 == count else {
            throw EvaluationError("\(file): corrupt partial: the header announces \(users.count) users, the file holds \(trailerIndex - 1), the trailer says \(count)")
        }
        var read: [UserReplayResult] = []
        read.reserveCapacity(count)
        for k in 1..<trailerIndex {
            let u = try lines[k].withUnsafeBufferPointer { (line: UnsafeBufferPointer<UInt8>) throws -> UserReplayResult in
                var s = PartialScanner(line, file: file, line: k + 1)
                return try Self.readUser(&s, policies: policies.count)
            }
            if let previous = read.last, !(previous.user < u.user) {
                throw EvaluationError("\(file):\(k + 1): corrupt partial: users are not in strictly increasing order ('\(previous.user)' then '\(u.user)')")
            }
            read.append(u)
        }
        users = read
    }

    private static func readHeader(_ s: inout PartialScanner) throws(EvaluationError) -> PartialEvaluation {
        try s.expect("{")
        try s.key("format", first: true)
        guard try s.string() == format else { throw s.failure("not a SmartStack partial file (expected format '\(format)')") }
        try s.key("version")
        let v = try s.int()
        guard v == version else {
            throw EvaluationError("\(s.file): partial format version \(v); this smartstack reads version \(version) (make all partials with the same smartstack)")
        }
        try s.key("dataset"); try s.expect("{")
        try s.key("name", first: true); let name = try s.string()
        try s.key("sources"); let sources = try s.strings()
        try s.expect("}")
        try s.key("options"); try s.expect("{")
        try s.key("window_seconds", first: true); let window = try s.double()
        try s.key("merge_repeats"); let mergeRepeats = try s.bool()
        try s.key("warmup_days"); let warmup = try s.int()
        try s.key("seed"); let seed = try s.uint64()
        try s.key("rotation"); let rotation = try s.string()
        try s.key("bootstrap_resamples"); let resamples = try s.int()
        try s.key("flicker_window_seconds"); let flicker = try s.double()
        try s.key("off_policy_estimates"); let ope = try s.bool()
        try s.key("off_policy_round_limit"); let limit = try s.int()
        try s.key("reference"); let reference = try s.optionalString()
        try s.expect("}")
        try s.key("policies"); let policies = try s.strings()
        try s.key("events"); let events = try s.int()
        try s.key("first"); let first = try readTime(&s)
        try s.key("last"); let last = try readTime(&s)
        try s.key("users"); let count = try s.int()
        try s.expect("}")
        try s.end()
        guard !policies.isEmpty else { throw s.failure("no policy") }
        let options = Options(window: window, mergeRepeats: mergeRepeats, warmupDays: warmup, seed: seed, rotation: rotation,
                              bootstrapResamples: resamples, flickerWindow: flicker, offPolicyEstimates: ope,
                              offPolicyRoundLimit: limit, reference: reference)
        // `users` is filled by the caller; the count is checked against the trailer.
        return PartialEvaluation(name: name, sources: sources, options: options, policies: policies, events: events,
                                 first: first, last: last, users: Array(repeating: UserReplayResult(user: ""), count: count))
    }

    private static func write(_ t: EventTime?, _ w: inout PartialWriter) {
        guard let t else { w.raw("null"); return }
        w.raw("["); w.int(t.nanosecondsSinceEpoch); w.raw(","); w.int(t.utcOffsetSeconds); w.raw("]")
    }

    private static func readTime(_ s: inout PartialScanner) throws(EvaluationError) -> EventTime? {
        if try s.takeNull() { return nil }
        try s.expect("[")
        let ns = try s.int()
        try s.expect(",")
        let offset = try s.int()
        try s.expect("]")
        guard let o = Int32(exactly: offset) else { throw s.failure("UTC offset out of range") }
        return EventTime(nanosecondsSinceEpoch: Int64(ns), utcOffsetSeconds: o)
    }
}
