import Foundation
import Testing
import SmartStack
import SmartStackDatasets

/// Reading JSONL logs that arrive gzip-compressed, streamed, told apart by their first bytes.
@Suite struct GzipByteSourceTests {
    static func events(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        let base: Int64 = 1_704_096_000 * 1_000_000_000
        for i in 0..<count {
            let event = Event(time: EventTime(nanosecondsSinceEpoch: base + Int64(i) * 1_000_000_000, utcOffsetSeconds: 3600),
                              user: "u\(i % 7)", payload: .appLaunch(app: "app.\(i % 13)"))
            JSONLWriter.append(event, to: &bytes)
        }
        return bytes
    }

    static func readAll(_ path: String) throws -> [Event] {
        var reader = try JSONLReader(detectingGzip: path)
        var out: [Event] = []
        while let e = try reader.next() { out.append(e) }
        return out
    }

    /// How many events were read before the error, and the error (`nil` if none).
    static func readUntilError(_ path: String) throws -> (Int, JSONLError?) {
        var reader = try JSONLReader(detectingGzip: path)
        var read = 0
        do {
            while try reader.next() != nil { read += 1 }
        } catch {
            return (read, error)
        }
        return (read, nil)
    }

    @Test func gzipAndPlainReadTheSameEventsWhateverTheName() throws {
        let dir = ImportFixtureDirectory()
        let plain = Self.events(30_000)   // several MiB decompressed: crosses many chunks
        let a = dir.write("a.jsonl", bytes: plain)
        let b = dir.write("b.jsonl", bytes: try GzipWriter.compress(plain))   // gzip named .jsonl
        let c = dir.write("c.jsonl.gz", bytes: try GzipWriter.compress(plain, level: 1))
        let expected = try Self.readAll(a)
        #expect(expected.count == 30_000)
        #expect(try Self.readAll(b) == expected)
        #expect(try Self.readAll(c) == expected)
    }

    @Test func concatenatedMembersAndZeroPaddingAreReadLikeGzipDoes() throws {
        let dir = ImportFixtureDirectory()
        let first = Self.events(10), second = Array(Self.events(20).suffix(from: Self.events(10).count))
        let path = dir.write("two.gz", bytes: try GzipWriter.compress(first) + GzipWriter.compress(second) + [0, 0, 0])
        #expect(try Self.readAll(path).count == 20)
    }

    @Test(arguments: [0, 1])
    func tinyPlainFilesPassThrough(length: Int) throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("tiny.jsonl", bytes: Array("\n".utf8.prefix(length)))
        let (read, error) = try Self.readUntilError(path)
        #expect(read == 0)
        #expect(error?.message.contains("file") == true)   // empty: no events, not a gzip error
    }

    @Test func aTruncatedGzipFileIsAnErrorNamingTheFileAndLine() throws {
        let dir = ImportFixtureDirectory()
        let compressed = try GzipWriter.compress(Self.events(5_000))
        let path = dir.write("cut.jsonl.gz", bytes: Array(compressed.prefix(compressed.count / 2)))
        let (read, error) = try Self.readUntilError(path)
        #expect(read > 0 && read < 5_000)
        #expect(error?.file == path)
        #expect(error?.line == read + 1 || error?.line == read)
        #expect(error?.message.contains("truncated gzip file") == true)
    }

    @Test func corruptGzipDataIsAnError() throws {
        let dir = ImportFixtureDirectory()
        var compressed = try GzipWriter.compress(Self.events(2_000))
        for i in 20..<40 { compressed[i] ^= 0x5A }
        let path = dir.write("bad.jsonl.gz", bytes: compressed)
        let (_, error) = try Self.readUntilError(path)
        #expect(error?.file == path)
        #expect(error.map { $0.message.contains("corrupt gzip data") || $0.message.contains("truncated") } == true)
    }
}
