import Foundation
import SmartStack
@testable import SmartStackCLI
import Testing

/// Tests of the `smartstack` command line: parsing, help and errors, the foundation
/// subcommands in-process, and a few runs of the built binary.
@Suite struct CLITests {}

/// What one in-process run of the tool printed and returned.
struct ToolRun {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs `smartstack <arguments>` in-process, capturing both streams. With `bytesPath`, bulk
/// output goes through `standardOutputBytes` as in the executable.
func runTool(_ arguments: [String], subcommands: [any SubcommandProtocol.Type] = allSubcommands,
             bytesPath: Bool = true) -> ToolRun {
    var out: [UInt8] = []
    var err = ""
    let output = CommandOutput(standardOutput: { out += Array($0.utf8) }, standardError: { err += $0 })
    if bytesPath { output.standardOutputBytes = { out += $0 } }
    let status = CommandLineTool.run(arguments: arguments, output: output, subcommands: subcommands)
    return ToolRun(status: status, standardOutput: String(decoding: out, as: UTF8.self), standardError: err)
}

/// A fresh directory under the system temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("smartstack-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `path/name` and returns that path.
    func write(_ name: String, _ text: String) throws -> String {
        let target = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Whether `path/name` exists.
    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

/// Twelve events, one of each type, three users (`u00`, `u01`, `default`), not in time order,
/// two with ids, two sharing an instant.
let sampleJSONL = """
    {"time":"2013-03-27T08:05:00-04:00","type":"stack_config","user":"u00","id":"c1","stack":"home","widgets":[{"id":"w.cal","app":"com.example.cal"},{"id":"w.weather"}]}
    {"time":"2013-03-27T08:06:00-04:00","type":"app_launch","user":"u00","id":"e1","app":"com.example.mail"}
    {"time":"2013-03-27T12:07:30.25Z","type":"widget_impression","user":"u01","stack":"home","widget":"w.cal","propensity":0.5,"policy":"rr/1"}
    {"time":"2013-03-27T08:10:00-04:00","type":"widget_tap","user":"u00","widget":"w.cal","stack":"home"}
    {"time":"2013-03-28T09:00:00+01:00","type":"location","user":"u01","lat":48.85,"lon":2.35,"accuracy":12.5}
    {"time":"2013-03-28T09:00:00+01:00","type":"screen_on","user":"u01"}
    {"time":"2013-03-28T10:00:00+01:00","type":"context","user":"u01","key":"charging","value":"true"}
    {"time":"2013-03-28T10:00:00+01:00","type":"relevance","widget":"w.cal","score":0.8,"duration":3600}
    {"time":"2013-03-28T11:00:00+01:00","type":"place","place":"work"}
    {"time":"2013-03-28T11:30:00+01:00","type":"widget_swipe","stack":"home","from":"w.cal","to":"w.weather"}
    {"time":"2013-03-28T11:31:00+01:00","type":"widget_pin","stack":"home","widget":"w.cal"}
    {"time":"2013-03-28T11:32:00+01:00","type":"widget_unpin","stack":"home","widget":"w.cal"}

    """

/// Every event of JSONL `text`, in the order written (throws on an invalid line).
func events(inJSONL text: String, name: String = "<test>") throws -> [Event] {
    var reader = JSONLReader(bytes: Array(text.utf8), name: name)
    var result: [Event] = []
    while let event = try reader.next() { result.append(event) }
    return result
}

/// `events` in export order: by instant, ties in the order given.
func inTimeOrder(_ events: [Event]) -> [Event] {
    events.enumerated()
        .sorted {
            ($0.element.time.nanosecondsSinceEpoch, $0.offset) < ($1.element.time.nanosecondsSinceEpoch, $1.offset)
        }
        .map(\.element)
}
