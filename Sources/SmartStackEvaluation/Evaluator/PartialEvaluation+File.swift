import Foundation
import SmartStack
import SmartStackDatasets

extension PartialEvaluation {
    /// The partial file's bytes: a header line, one line per user (sorted by id), the timeline
    /// line, and a trailer line with the user count and a checksum of everything before it
    /// (`Datasets/PARTIAL-FORMAT.md`).
    ///
    /// - Complexity: O(size of the statistics).
    public func encoded() -> [UInt8] {
        var w = PartialWriter()
        Self.write(header, &w)
        w.raw("\n")
        for u in users {
            Self.write(u, byDay: header.options.byDay, &w)
            w.raw("\n")
        }
        Self.write(timeline, &w)
        w.raw("\n")
        let checksum = PartialWriter.checksum(w.bytes[...])
        w.raw("{")
        w.key("end", first: true); w.string(Self.format)
        w.key("users"); w.int(users.count)
        w.key("checksum"); w.string(PartialWriter.hex(checksum))
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

    /// Reads a whole partial file (plain or gzip-compressed) into memory (`merge` streams
    /// instead).
    ///
    /// - Throws: `EvaluationError` naming the file (and line and column) when it is missing,
    ///   not a partial, of another version, cut short or altered.
    public init(contentsOf path: String) throws {
        try self.init(reading: try PartialReader(path: path))
    }

    /// Reads a partial from its bytes; `name` is used in errors.
    public init(bytes: [UInt8], name file: String) throws {
        try self.init(reading: try PartialReader(bytes: bytes, name: file))
    }

    private init(reading reader: PartialReader) throws {
        var users: [UserReplayResult] = []
        while let u = try reader.next() { users.append(u) }
        self.init(header: reader.header, users: users, timeline: reader.timeline)
    }

    private static func write(_ h: Header, _ w: inout PartialWriter) {
        w.raw("{")
        w.key("format", first: true); w.string(format)
        w.key("version"); w.int(version)
        w.key("dataset"); w.raw("{")
        w.key("name", first: true); w.string(h.name)
        w.key("sources"); w.array(h.sources) { $0.string($1) }
        w.raw("}")
        w.key("options"); w.raw("{")
        w.key("window_seconds", first: true); w.double(h.options.window)
        w.key("merge_repeats"); w.bool(h.options.mergeRepeats)
        w.key("warmup_days"); w.int(h.options.warmupDays)
        w.key("seed"); w.int(h.options.seed)
        w.key("rotation"); w.string(h.options.rotation)
        w.key("bootstrap_resamples"); w.int(h.options.bootstrapResamples)
        w.key("flicker_window_seconds"); w.double(h.options.flickerWindow)
        w.key("off_policy_estimates"); w.bool(h.options.offPolicyEstimates)
        w.key("off_policy_round_limit"); w.int(h.options.offPolicyRoundLimit)
        w.key("reference"); w.optionalString(h.options.reference)
        if h.options.byDay { w.key("by_day"); w.bool(true) }
        w.raw("}")
        w.key("policies"); w.array(h.policies) { $0.string($1) }
        w.key("policy_files"); w.array(h.policyFiles) { w, file in
            guard let file else { w.raw("null"); return }
            w.raw("{"); w.key("path", first: true); w.string(file.path); w.key("digest"); w.string(file.digest); w.raw("}")
        }
        w.key("events"); w.int(h.events)
        w.key("first"); write(h.first, &w)
        w.key("last"); write(h.last, &w)
        w.key("users"); w.int(h.users)
        w.key("impressions"); w.int(h.impressions)
        w.key("truth")
        if let t = h.truth {
            w.raw("{"); w.key("path", first: true); w.string(t.file.path); w.key("digest"); w.string(t.file.digest)
            w.key("lines"); w.int(t.lines)
            if !t.ignoredFields.isEmpty {
                w.key("ignored_fields"); w.array(t.ignoredFields) { w, field in
                    w.raw("{"); w.key("name", first: true); w.string(field.name); w.key("lines"); w.int(field.lines)
                    w.key("first_line"); w.int(field.firstLine); w.raw("}")
                }
            }
            w.raw("}")
        } else {
            w.raw("null")
        }
        w.raw("}")
    }

    static func readHeader(_ s: inout PartialScanner) throws(EvaluationError) -> Header {
        try s.expect("{")
        try s.key("format", first: true)
        guard try s.string() == format else { throw s.failure("not a SmartStack partial file (expected format '\(format)')") }
        try s.key("version")
        let v = try s.int()
        guard v == version else {
            let why = v < version ? "written by an earlier smartstack: evaluate its shard again with this one"
                                  : "written by a later smartstack"
            throw EvaluationError("\(s.file): partial format version \(v); this smartstack reads version \(version) (\(why); make all partials of a report with the same smartstack)")
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
        let byDay = s.takeKey("by_day") ? try s.bool() : false
        try s.expect("}")
        try s.key("policies"); let policies = try s.strings()
        try s.key("policy_files")
        var files: [PolicyInputFile?] = []
        try s.array { (s: inout PartialScanner) throws(EvaluationError) in
            if try s.takeNull() { files.append(nil); return }
            try s.expect("{")
            try s.key("path", first: true); let path = try s.string()
            try s.key("digest"); let digest = try s.string()
            try s.expect("}")
            files.append(PolicyInputFile(path: path, digest: digest))
        }
        try s.key("events"); let events = try s.int()
        try s.key("first"); let first = try readTime(&s)
        try s.key("last"); let last = try readTime(&s)
        try s.key("users"); let users = try s.int()
        try s.key("impressions"); let impressions = try s.int()
        try s.key("truth")
        var truth: TruthFile?
        if try !s.takeNull() {
            try s.expect("{")
            try s.key("path", first: true); let path = try s.string()
            try s.key("digest"); let digest = try s.string()
            try s.key("lines"); let lines = try s.int()
            var ignored: [IgnoredTruthField] = []
            if s.takeKey("ignored_fields") {
                try s.array { (s: inout PartialScanner) throws(EvaluationError) in
                    try s.expect("{")
                    try s.key("name", first: true); let name = try s.string()
                    try s.key("lines"); let count = try s.int()
                    try s.key("first_line"); let firstLine = try s.int()
                    try s.expect("}")
                    guard count > 0, firstLine > 0 else { throw s.failure("an ignored truth field without lines") }
                    ignored.append(IgnoredTruthField(name: name, lines: count, firstLine: firstLine))
                }
            }
            try s.expect("}")
            guard lines >= 0 else { throw s.failure("a negative count of truth lines") }
            truth = TruthFile(file: PolicyInputFile(path: path, digest: digest), lines: lines, ignoredFields: ignored)
        }
        try s.expect("}")
        try s.end()
        guard !policies.isEmpty else { throw s.failure("no policy") }
        guard files.count == policies.count else { throw s.failure("policy_files does not match policies") }
        guard events >= 0, users >= 0, impressions >= 0 else { throw s.failure("a negative count") }
        let options = Options(window: window, mergeRepeats: mergeRepeats, warmupDays: warmup, seed: seed, rotation: rotation,
                              bootstrapResamples: resamples, flickerWindow: flicker, offPolicyEstimates: ope,
                              offPolicyRoundLimit: limit, reference: reference, byDay: byDay)
        return Header(name: name, sources: sources, options: options, policies: policies, policyFiles: files,
                      events: events, first: first, last: last, users: users, impressions: impressions, truth: truth)
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
