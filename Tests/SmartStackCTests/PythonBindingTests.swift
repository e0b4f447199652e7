import Foundation
import Testing

/// The Python package: installed with pip from the checkout into a venv under .build, then its
/// pytest suite and the README's example run against the library this build made.
@Suite struct PythonBindingTests {
    /// `.build/bindings-venv` with pytest and the package freshly installed from
    /// `bindings/python` (once per test run; tests share it).
    static let venv: Result<String, BindingTestFailure> = {
        guard let python = Bindings.tool("python3") else { return .failure(BindingTestFailure("python3 is missing")) }
        let venv = Bindings.root.appendingPathComponent(".build/bindings-venv").path
        let pip = venv + "/bin/pip"
        do {
            if !FileManager.default.isExecutableFile(atPath: pip) {
                let created = try runProgram(python, ["-m", "venv", venv])
                guard created.status == 0 else {
                    return .failure(BindingTestFailure("python3 -m venv failed (install python3-venv): \(created)"))
                }
            }
            let installed = try runProgram(pip, ["install", "-q", "--disable-pip-version-check",
                                                 "-r", "bindings/python/requirements-test.txt", "./bindings/python"],
                                           in: Bindings.root)
            guard installed.status == 0 else { return .failure(BindingTestFailure("pip install failed: \(installed)")) }
        } catch {
            return .failure(BindingTestFailure("\(error)"))
        }
        return .success(venv)
    }()

    /// The venv, or (outside CI, without python3) a cancelled test.
    static func environment() throws -> String {
        _ = try Bindings.require("python3", "apt-get install python3 python3-venv")
        return try venv.get()
    }

    @Test func pytestPasses() throws {
        let venv = try Self.environment()
        let run = try runProgram(venv + "/bin/pytest", ["-q", "-p", "no:cacheprovider", "bindings/python/tests"],
                                 environment: ["SMARTSTACK_LIBRARY": try Bindings.library().path], in: Bindings.root)
        #expect(run.status == 0 && run.output.contains(" passed"), "\(run)")
        #expect(!run.output.contains(" failed") && !run.output.contains(" skipped"), "\(run)")
    }

    /// The Python examples of the README and of bindings/python/README.md, exactly as printed
    /// there, run on the installed package.
    @Test(arguments: [Bindings.Example.readme, .binding("python")])
    func readmePythonExampleRuns(_ example: Bindings.Example) throws {
        let venv = try Self.environment()
        let directory = try ScratchDirectory()
        let script = directory.path("example.py")
        try Bindings.example("python", in: example).write(toFile: script, atomically: true, encoding: .utf8)
        let run = try runProgram(venv + "/bin/python", [script], environment: ["SMARTSTACK_LIBRARY": try Bindings.library().path],
                                 in: directory.url)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("top: calendar"), "\(run)")
        if example.showsAnError { #expect(run.output.contains("UNKNOWN_STACK unknown stack 'gym'"), "\(run)") }
    }
}
