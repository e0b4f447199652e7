import Foundation
import Testing

/// The conformance scenarios (`Conformance/scenarios.jsonl`) through the C, Python and Java doors,
/// each with its own runner (`Conformance/c`, `Conformance/python`, `Conformance/java`) against the
/// library this build made. The Swift and command-line doors run in `SmartStackCLITests`
/// (`ConformanceTests`); CI also runs the C runner under AddressSanitizer (`.ci/bindings.sh`).
@Suite struct ConformanceDoorTests {
    static let scenarios = Bindings.root.appendingPathComponent("Conformance/scenarios.jsonl").path

    @Test func everyScenarioThroughTheCDoor() throws {
        let directory = try ScratchDirectory()
        let runner = try CProgramTests.build([Bindings.root.appendingPathComponent("Conformance/c/run_scenarios.c").path],
                                             into: directory, name: "run_scenarios")
        let run = try runProgram(runner, [Self.scenarios])
        #expect(run.status == 0 && run.output.contains(" 0 failed checks"), "\(run)")
        #expect(!run.output.contains("FAIL"), "\(run)")
    }

    @Test func everyScenarioThroughThePythonDoor() throws {
        let venv = try PythonBindingTests.environment()
        let run = try runProgram(venv + "/bin/pytest", ["-q", "-s", "-p", "no:cacheprovider", "Conformance/python"],
                                 environment: ["SMARTSTACK_LIBRARY": try Bindings.library().path], in: Bindings.root)
        #expect(run.status == 0 && run.output.contains(" passed"), "\(run)")
        #expect(!run.output.contains(" failed") && !run.output.contains(" skipped"), "\(run)")
    }

    @Test func everyScenarioThroughTheJavaDoor() throws {
        let build = try JavaBindingTests.built()
        let directory = try ScratchDirectory()
        let compiled = try runProgram(build.javac, ["-Werror", "-Xlint:all", "-cp", build.classes, "-d", directory.url.path,
                                                    "Conformance/java/org/smartstack/ConformanceRunner.java"], in: Bindings.root)
        #expect(compiled.status == 0, "\(compiled)")
        let run = try runProgram(build.java, ["-Dsmartstack.jni=\(build.jni)", "-cp", "\(directory.url.path):\(build.classes)",
                                              "org.smartstack.ConformanceRunner", Self.scenarios])
        #expect(run.status == 0 && run.output.contains(" 0 failed checks"), "\(run)")
    }
}
