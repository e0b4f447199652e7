import Foundation
import Testing
import SmartStack
import SmartStackDatasets
@testable import SmartStackEvaluation

/// Parsing a file in chunks on several threads gives the events, and the errors, that one
/// `JSONLReader` gives reading it alone: chunks here are 200 bytes, so every file spans many.
@Suite struct ParallelEventReaderTests {
    static func temporaryFile(_ bytes: [UInt8], _ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parallel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The events, or the error message, of reading `path` in parallel chunks.
    static func parallel(_ path: String, parsers: Int = 3) -> Result<[Event], EvaluationError> {
        var events: [Event] = []
        do {
            try ParallelEventReader(parsers: parsers, counters: ProgressCounters(), chunkSize: 200)
                .forEachEvent(path) { events.append($0) }
            return .success(events)
        } catch let error as EvaluationError {
            return .failure(error)
        } catch {
            return .failure(EvaluationError("\(error)"))
        }
    }

    /// The same read by one `JSONLReader`, as `evaluate` words its error.
    static func alone(_ path: String) -> Result<[Event], EvaluationError> {
        var events: [Event] = []
        do {
            var reader = JSONLReader(source: GzipByteSource(try JSONLFileSource(path: path)), name: path)
            while let e = try reader.next() { events.append(e) }
            return .success(events)
        } catch {
            return .failure(EvaluationError("invalid dataset: \(error)"))
        }
    }

    static func lines(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for e in syntheticDataset(users: 3, days: 2, seed: 6).prefix(count) { JSONLWriter.append(e, to: &bytes) }
        return bytes
    }

    @Test func eventsComeInFileOrderWhateverTheLayout() throws {
        let body = Self.lines(400)
        var crlf: [UInt8] = []
        for b in body { if b == 0x0A { crlf.append(0x0D) }; crlf.append(b) }
        let blanks = Array(repeating: UInt8(0x0A), count: 700) + Array(" \t\r\n".utf8)   // blank lines spanning chunks
        let cases: [(String, [UInt8])] = [
            ("plain.jsonl", body),
            ("bom.jsonl", [0xEF, 0xBB, 0xBF] + body),
            ("crlf.jsonl", crlf),
            ("blanks.jsonl", blanks + body.prefix(3000) + blanks + body.dropFirst(3000) + blanks),
            ("unterminated.jsonl", Array(body.dropLast())),
            ("gzip.jsonl.gz", try GzipWriter.compress(body)),
        ]
        for (name, bytes) in cases {
            let path = try Self.temporaryFile(bytes, name)
            defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
            let expected = try Self.alone(path).get()
            #expect(expected.count >= 300, "\(name)")
            for parsers in [1, 4] {
                #expect(try Self.parallel(path, parsers: parsers).get() == expected, "\(name), \(parsers) parsers")
            }
        }
    }

    @Test func errorsAreThoseOfReadingTheFileAlone() throws {
        let body = Self.lines(300)
        let cut = body.count * 2 / 3
        var badDeep = body
        badDeep.insert(contentsOf: Array("{\"time\":\"nope\"}\n".utf8), at: body[cut...].firstIndex(of: 0x0A)! + 1)
        var bomLater = body
        bomLater.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: body[cut...].firstIndex(of: 0x0A)! + 1)
        let long = Array(repeating: UInt8(ascii: "x"), count: 1 << 21)
        let packed = try GzipWriter.compress(body)
        let cases: [(String, [UInt8])] = [
            ("bad.jsonl", badDeep),
            ("bom-later.jsonl", bomLater),              // a byte order mark only counts on line 1
            ("truncated.jsonl", Array(body.dropLast(10))),
            ("long.jsonl", Array(body.prefix(cut)) + long + [0x0A] + body),
            ("cut.jsonl.gz", Array(packed.prefix(packed.count / 2))),
        ]
        for (name, bytes) in cases {
            let path = try Self.temporaryFile(bytes, name)
            defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
            guard case .failure(let expected) = Self.alone(path) else {
                Issue.record("\(name) reads without error alone")
                continue
            }
            guard case .failure(let error) = Self.parallel(path) else {
                Issue.record("\(name) reads without error in parallel")
                continue
            }
            #expect(error == expected, "\(name)")
        }
    }

    /// A file without events — empty, or blank lines — is a shard the hash gave no user: it
    /// delivers no event and no error (docs/contract.md, "Shards and partials"), where reading it
    /// alone as a dataset says it has none.
    @Test func aFileWithoutEventsDeliversNone() throws {
        for (name, bytes) in [("empty.jsonl", [UInt8]()), ("blank.jsonl", Array("\n \n\t\n".utf8)), ("one-blank.jsonl", Array("  ".utf8))] {
            let path = try Self.temporaryFile(bytes, name)
            defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
            guard case .success(let events) = Self.parallel(path) else {
                Issue.record("\(name) is an error in parallel")
                continue
            }
            #expect(events.isEmpty, "\(name)")
            guard case .failure(let alone) = Self.alone(path) else {
                Issue.record("\(name) reads without error alone")
                continue
            }
            #expect(alone.message.contains("no events"), "\(name): \(alone.message)")
        }
    }
}
