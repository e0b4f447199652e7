import Foundation
import SmartStack
import Testing

/// One run of the built `smartstack` binary.
struct BinaryRun {
    var status: Int32
    var standardOutput: Data
    var standardError: String
    var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
}

/// The built `smartstack` executable: next to the test bundle (same build directory and
/// configuration), else `<package>/.build/debug/smartstack`.
func smartstackBinary() throws -> URL {
    var candidates: [URL] = []
    if let testBinary = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append(URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent("smartstack"))
    }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("smartstack"))
    let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(packageRoot.appendingPathComponent(".build/debug/smartstack"))
    for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
        return candidate
    }
    struct BinaryNotFound: Error, CustomStringConvertible {
        var candidates: [URL]
        var description: String {
            "the smartstack executable was not found (looked at \(candidates.map(\.path).joined(separator: ", "))); "
                + "build it with `swift build` before running the end-to-end tests"
        }
    }
    throw BinaryNotFound(candidates: candidates)
}

/// Runs the binary with `arguments`, feeding `input` (if any) on stdin; the streams go through
/// files in `directory` so large outputs cannot fill a pipe and stall.
func runBinary(_ arguments: [String], input: Data? = nil, in directory: TemporaryDirectory) throws -> BinaryRun {
    let process = Process()
    process.executableURL = try smartstackBinary()
    process.arguments = arguments
    let tag = UUID().uuidString
    let inPath = directory.file("stdin-\(tag)"), outPath = directory.file("stdout-\(tag)"),
        errPath = directory.file("stderr-\(tag)")
    try (input ?? Data()).write(to: URL(fileURLWithPath: inPath))
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    let stdin = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
    let stdout = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    let stderr = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    process.waitUntilExit()
    try stdin.close(); try stdout.close(); try stderr.close()
    let run = BinaryRun(
        status: process.terminationStatus,
        standardOutput: try Data(contentsOf: URL(fileURLWithPath: outPath)),
        standardError: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    for path in [inPath, outPath, errPath] { try? FileManager.default.removeItem(atPath: path) }
    return run
}

/// `count` varied events as JSONL, deterministic, with several users, offsets and types.
func generatedJSONL(count: Int) -> String {
    var text = ""
    let offsets = ["-04:00", "Z", "+01:00", "+05:30"]
    for i in 0..<count {
        let day = 1 + (i / 1000) % 28
        let seconds = (i * 37) % 86_400
        let time = "2013-03-\(day < 10 ? "0" : "")\(day)T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
            + (i % 3 == 0 ? ".\(i % 1000)" : "") + offsets[i % offsets.count]
        let user = "u\(two(i % 7))"
        switch i % 5 {
        case 0: text += #"{"time":"\#(time)","type":"app_launch","user":"\#(user)","id":"a\#(i)","app":"com.example.app\#(i % 13)"}"#
        case 1: text += #"{"time":"\#(time)","type":"widget_impression","user":"\#(user)","stack":"s\#(i % 3)","widget":"w\#(i % 11)","propensity":0.\#(1 + i % 9)}"#
        case 2: text += #"{"time":"\#(time)","type":"location","user":"\#(user)","lat":\#(Double(i % 180) - 89.5),"lon":\#(Double(i % 360) - 179.25)}"#
        case 3: text += #"{"time":"\#(time)","type":"context","user":"\#(user)","key":"motion","value":"walk \"\#(i)\" \u00e9"}"#
        default: text += #"{"time":"\#(time)","type":"screen_on","user":"\#(user)"}"#
        }
        text += "\n"
    }
    return text
}

private func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

extension CLITests {
    /// A few runs of the real executable: exit codes, streams, and the export round trip.
    @Suite struct EndToEnd {
        @Test func versionAndExitCodes() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let version = try runBinary(["--version"], in: dir)
            #expect(version.status == 0)
            #expect(version.outputText == "smartstack 0.1.0\n")

            let unknown = try runBinary(["frobnicate"], in: dir)
            #expect(unknown.status == 64)
            #expect(unknown.standardOutput.isEmpty)
            #expect(unknown.standardError.hasPrefix("Error: unknown subcommand 'frobnicate'"))

            let help = try runBinary(["help", "ingest"], in: dir)
            #expect(help.status == 0)
            #expect(help.outputText.hasPrefix("OVERVIEW: "))

            let missing = try runBinary(["stats", "--db", dir.file("none.db")], in: dir)
            #expect(missing.status == 1)
            #expect(missing.standardError == "Error: no database at \(dir.file("none.db"))\n")
        }

        @Test func stdinIngestThenExportRoundTripsByteForByte() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            // Enough lines that export spans many 64 KiB writes.
            let input = generatedJSONL(count: 20_000)
            let first = dir.file("first.db"), second = dir.file("second.db")

            let ingest = try runBinary(["ingest", "-", "--db", first], input: Data(input.utf8), in: dir)
            #expect(ingest.status == 0, "\(ingest.standardError)")
            #expect(ingest.outputText == "ingested 20,000 events (0 duplicates skipped) into \(first)\n")

            let exported = try runBinary(["export", "--db", first], in: dir)
            #expect(exported.status == 0, "\(exported.standardError)")
            #expect(exported.standardOutput.count > 1 << 20)
            #expect(try events(inJSONL: exported.outputText) == inTimeOrder(try events(inJSONL: input)))

            let exportedPath = dir.file("exported.jsonl")
            try exported.standardOutput.write(to: URL(fileURLWithPath: exportedPath))
            #expect(try runBinary(["ingest", exportedPath, "--db", second], in: dir).status == 0)
            let again = try runBinary(["export", "--db", second], in: dir)
            #expect(again.status == 0)
            #expect(again.standardOutput == exported.standardOutput)

            let stats = try runBinary(["stats", "--db", second, "--json"], in: dir)
            #expect(stats.status == 0)
            #expect(stats.outputText.hasPrefix(#"{"events":20000,"users":7,"#))
        }

        @Test func invalidInputExitsOneAndStoresNothing() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let bad = try dir.write("bad.jsonl", sampleJSONL + #"{"time":"2013-03-29T08:00:00Z","type":"location","lat":"north","lon":0}"# + "\n")
            let run = try runBinary(["ingest", bad, "--db", dir.file("events.db")], in: dir)
            #expect(run.status == 1)
            #expect(run.standardOutput.isEmpty)
            #expect(run.standardError.hasPrefix("Error: \(bad):13:"), "\(run.standardError)")
            #expect(!dir.exists("events.db"))
        }
    }
}
