import Foundation
import Testing
import SmartStack
import SmartStackDatasets

/// `DatasetSharder`: whole users per shard, by a documented hash, nothing lost or duplicated.
@Suite struct DatasetSharderTests {
    /// The events of a shard file (an empty shard has none).
    static func read(_ path: String) throws -> [Event] {
        guard (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 > 0 else { return [] }
        var reader = try JSONLReader(detectingGzip: path)
        var out: [Event] = []
        while let e = try reader.next() { out.append(e) }
        return out
    }

    @Test(arguments: [1, 2, 3, 7])
    func everyUserLandsWholeInTheShardOfItsHash(count: Int) throws {
        let dir = ImportFixtureDirectory()
        let events = GzipByteSourceTests.events(5_000)
        // Two inputs, the second gzip: a user continues across them.
        let half = events.count / 2
        let cut = events[half...].firstIndex(of: 0x0A)! + 1
        let a = dir.write("a.jsonl", bytes: Array(events[..<cut]))
        let b = dir.write("b.jsonl", bytes: try GzipWriter.compress(Array(events[cut...])))
        let summary = try DatasetSharder(count: count).shard([a, b], into: dir.path + "/out")
        #expect(summary.shards.count == count)
        #expect(summary.events == 5_000)
        var all: [Event] = []
        for shard in summary.shards {
            #expect(shard.path == dir.path + "/out/" + DatasetSharder.fileName(index: shard.index, count: count))
            let got = try Self.read(shard.path)
            #expect(got.count == shard.events)
            #expect(Set(got.map(\.user)).count == shard.users)
            #expect(got.allSatisfy { DatasetSharder.shard(of: $0.user, count: count) == shard.index })
            all += got
        }
        let original = try Self.read(a) + Self.read(b)
        // Same events, and each user's events in their original order.
        for user in Set(original.map(\.user)) {
            #expect(all.filter { $0.user == user } == original.filter { $0.user == user })
        }
        #expect(all.count == original.count)
    }

    @Test func theHashIsFNV1a64OfTheUTF8Bytes() {
        // Values any other engine must reproduce (Datasets/PARTIAL-FORMAT.md): computed by hand
        // from FNV-1a's offset basis and prime.
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in "commuter-00".utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        #expect(DatasetSharder.shard(of: "commuter-00", count: 1_000_003) == Int(h % 1_000_003))
        #expect(DatasetSharder.shard(of: "", count: 7) == Int(0xCBF2_9CE4_8422_2325 % 7 as UInt64))
    }

    @Test func anInvalidLineStopsShardingAndLeavesNoShardFile() throws {
        let dir = ImportFixtureDirectory()
        var bytes = GzipByteSourceTests.events(10)
        bytes += Array("{\"time\":\"nope\",\"user\":\"x\",\"type\":\"screen_on\"}\n".utf8)
        let path = dir.write("bad.jsonl", bytes: bytes)
        var message = ""
        do { _ = try DatasetSharder(count: 3).shard([path], into: dir.path + "/out") } catch { message = error.message }
        #expect(message.hasPrefix("\(path):11:"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out").isEmpty)
    }
}
