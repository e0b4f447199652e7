import Foundation
import Testing

/// The C API from C: the header is the contract, compiled strictly against the built library.
@Suite struct CProgramTests {
    static let strictC = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"]

    /// Compiles `sources` against include/smartstack.h and the built libSmartStackC.so.
    static func build(_ sources: [String], into directory: ScratchDirectory, name: String) throws -> String {
        let cc = try Bindings.require("cc", "apt-get install gcc")
        let library = try Bindings.library().deletingLastPathComponent().path
        let executable = directory.path(name)
        let run = try runProgram(cc, strictC + ["-pthread", "-I", Bindings.root.appendingPathComponent("include").path]
            + sources + ["-L", library, "-lSmartStackC", "-Wl,-rpath,\(library)", "-o", executable])
        guard run.status == 0 else { throw BindingTestFailure("cc failed on \(sources):\n\(run.output)") }
        return executable
    }

    /// The functions the header declares are exactly the `smartstack_*` functions the library
    /// exports (each one's signature is checked when the library compiles: `@c @implementation`).
    @Test func headerDeclaresExactlyTheExportedFunctions() throws {
        let nm = try Bindings.require("nm", "apt-get install binutils")
        let header = try String(contentsOf: Bindings.root.appendingPathComponent("include/smartstack.h"), encoding: .utf8)
        let code = header.replacing(/\/\*[\s\S]*?\*\//, with: "")
        let declared = Set(code.matches(of: /\b(smartstack_\w+)\s*\(/).map { String($0.1) })
        let symbols = try runProgram(nm, ["-D", "--defined-only", try Bindings.library().path])
        #expect(symbols.status == 0, "\(symbols)")
        let exported = Set(symbols.output.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1] == "T", fields[2].hasPrefix("smartstack_") else { return nil }
            return String(fields[2])
        })
        #expect(declared.count >= 14 && declared.contains("smartstack_decide_packed") && declared.contains("smartstack_free_decision"))
        #expect(declared == exported, "declared only: \(declared.subtracting(exported)); exported only: \(exported.subtracting(declared))")
    }

    /// bindings/c/test_smartstack.c: every status, results, persistence and threads, from C.
    @Test func cTestProgramPasses() throws {
        let directory = try ScratchDirectory()
        let program = try Self.build([Bindings.root.appendingPathComponent("bindings/c/test_smartstack.c").path],
                                     into: directory, name: "test_smartstack")
        let run = try runProgram(program, [])
        #expect(run.status == 0 && run.output.contains(" checks, 0 failed"), "\(run)")
    }

    /// The header compiles as C++ too (its `extern "C"` guard), with every warning an error.
    @Test func headerCompilesAsCPlusPlus() throws {
        let cxx = try Bindings.require("c++", "apt-get install g++")
        let directory = try ScratchDirectory()
        let source = directory.path("host.cpp")
        try "#include \"smartstack.h\"\nint main() { return smartstack_version() == nullptr; }\n"
            .write(toFile: source, atomically: true, encoding: .utf8)
        let run = try runProgram(cxx, ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only",
                                       "-I", Bindings.root.appendingPathComponent("include").path, source])
        #expect(run.status == 0, "\(run)")
    }

    /// The C examples of the README and of bindings/c/README.md, exactly as printed there,
    /// compile strictly and run.
    @Test(arguments: [Bindings.Example.readme, .binding("c")])
    func readmeCExampleRuns(_ example: Bindings.Example) throws {
        let directory = try ScratchDirectory()
        let source = directory.path("example.c")
        try Bindings.example("c", in: example).write(toFile: source, atomically: true, encoding: .utf8)
        let program = try Self.build([source], into: directory, name: "example")
        let run = try runProgram(program, [], in: directory.url)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("\"top\":\"calendar\""), "\(run)")
        if example.showsAnError { #expect(run.output.contains("unknown stack 'gym'"), "\(run)") }
    }
}
