import Foundation
import Testing

/// Paths and tools for the tests that build and run the C, Python and Java programs.
enum Bindings {
    static let isCI = ProcessInfo.processInfo.environment["CI"] != nil

    /// The package root (where `Package.swift` is).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `libSmartStackC.so`, which `swift test` builds next to the test bundle.
    static func library() throws -> URL {
        var candidates: [URL] = []
        if let test = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: test).deletingLastPathComponent().appendingPathComponent(libraryFile))
        }
        candidates.append(root.appendingPathComponent(".build/debug/" + libraryFile))
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw BindingTestFailure("\(libraryFile) not found at \(candidates.map(\.path)); build it with `swift build --product SmartStackC`")
        }
        return found
    }

    static let libraryFile = "libSmartStackC.so"

    /// An executable on the PATH, if any.
    static func tool(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// `name` on the PATH; when it is missing, cancels the test outside CI (saying why) and fails it in CI.
    static func require(_ name: String, _ install: String) throws -> String {
        if let path = tool(name) { return path }
        if isCI { throw BindingTestFailure("\(name) is required under CI: \(install)") }
        try Test.cancel("\(name) is not installed (\(install)): skipping")
    }

    /// The fenced code block of `language` in the README's section "Using it from C, Python and Java".
    static func readmeExample(_ language: String) throws -> String {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let section = readme.range(of: "\n## Using it from C, Python and Java\n") else {
            throw BindingTestFailure("README.md has no section 'Using it from C, Python and Java'")
        }
        let rest = readme[section.upperBound...]
        let body = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        guard let start = body.range(of: "\n```\(language)\n"), let end = body[start.upperBound...].range(of: "\n```\n") else {
            throw BindingTestFailure("the README section has no ```\(language) block")
        }
        return String(body[start.upperBound..<end.lowerBound]) + "\n"
    }
}

struct BindingTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A directory under the system's temporary one, removed when the value goes.
final class ScratchDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("smartstack-bindings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// One finished process.
struct ProgramRun: CustomStringConvertible {
    var status: Int32
    var output: String
    var description: String { "exit status \(status):\n\(output)" }
}

/// Runs `executable` with `arguments` and waits at most `timeout` seconds; stdout and stderr go
/// through one file, so a large output cannot fill a pipe.
func runProgram(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                in directory: URL? = nil, timeout: Double = 600) throws -> ProgramRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    if let directory { process.currentDirectoryURL = directory }
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("smartstack-run-\(UUID().uuidString).log")
    guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
        throw BindingTestFailure("cannot create \(log.path)")
    }
    defer { try? FileManager.default.removeItem(at: log) }
    let output = try FileHandle(forWritingTo: log)
    defer { try? output.close() }
    (process.standardOutput, process.standardError, process.standardInput) = (output, output, FileHandle.nullDevice)
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning {
        guard Date() < deadline else {
            process.terminate()
            throw BindingTestFailure("\(executable) \(arguments.joined(separator: " ")) did not finish in \(Int(timeout)) s")
        }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return ProgramRun(status: process.terminationStatus, output: try String(contentsOf: log, encoding: .utf8))
}
