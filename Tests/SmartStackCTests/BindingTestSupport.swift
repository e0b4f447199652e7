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

    /// Where an example of the bindings is printed: the main README's short one (section
    /// "Embedding it") or a binding's README with the full one (its first block of the language).
    struct Example: Sendable, CustomTestStringConvertible {
        var file: String
        var section: String?
        /// Whether the example also shows an error a host branches on (the unknown stack 'gym').
        var showsAnError: Bool
        var testDescription: String { file }

        static let readme = Example(file: "README.md", section: "Embedding it", showsAnError: false)
        static func binding(_ name: String) -> Example {
            Example(file: "bindings/\(name)/README.md", section: nil, showsAnError: true)
        }
    }

    /// The fenced code block of `language` in `example`'s file (within its section, if any).
    static func example(_ language: String, in example: Example) throws -> String {
        let text = try String(contentsOf: root.appendingPathComponent(example.file), encoding: .utf8)
        var body = Substring(text)
        if let name = example.section {
            guard let section = text.range(of: "\n## \(name)\n") else {
                throw BindingTestFailure("\(example.file) has no section '\(name)'")
            }
            let rest = text[section.upperBound...]
            body = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        }
        guard let start = body.range(of: "\n```\(language)\n"), let end = body[start.upperBound...].range(of: "\n```\n") else {
            throw BindingTestFailure("\(example.file)\(example.section.map { ", section '\($0)'," } ?? "") has no ```\(language) block")
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
