import Foundation
import Testing

/// The Java binding: the JNI library compiled against the header and the built library, the
/// classes compiled with every lint warning an error, then the launcher-host program and the
/// README's example run on this machine's JDK.
@Suite struct JavaBindingTests {
    struct Build: Sendable {
        var java: String, javac: String, jni: String, classes: String
    }

    /// The JNI library and the binding's classes, built once per test run under .build.
    static let build: Result<Build, BindingTestFailure> = {
        guard let javac = Bindings.tool("javac"), let cc = Bindings.tool("cc") else {
            return .failure(BindingTestFailure("javac or cc is missing (apt-get install default-jdk-headless gcc)"))
        }
        let javaBin = URL(fileURLWithPath: javac).resolvingSymlinksInPath().deletingLastPathComponent()
        let javaHome = javaBin.deletingLastPathComponent().path
        let out = Bindings.root.appendingPathComponent(".build/java-binding-tests").path
        let jni = out + "/libsmartstack_jni.so", classes = out + "/classes"
        do {
            try? FileManager.default.removeItem(atPath: out)
            try FileManager.default.createDirectory(atPath: classes, withIntermediateDirectories: true)
            let library = try Bindings.library().deletingLastPathComponent().path
            let glue = try runProgram(cc, CProgramTests.strictC + [
                "-fPIC", "-shared", "-I", Bindings.root.appendingPathComponent("include").path,
                "-I", javaHome + "/include", "-I", javaHome + "/include/linux",
                Bindings.root.appendingPathComponent("bindings/java/jni/smartstack_jni.c").path,
                "-L", library, "-lSmartStackC", "-Wl,-rpath,\(library)", "-o", jni])
            guard glue.status == 0 else { return .failure(BindingTestFailure("cc failed on smartstack_jni.c: \(glue)")) }
            let sources = try FileManager.default.contentsOfDirectory(
                atPath: Bindings.root.appendingPathComponent("bindings/java/src/org/smartstack").path)
                .filter { $0.hasSuffix(".java") }.map { "bindings/java/src/org/smartstack/" + $0 }
            let compiled = try runProgram(javac, ["-Werror", "-Xlint:all", "-d", classes] + sources
                                                    + ["bindings/java/test/LauncherHostTest.java"], in: Bindings.root)
            guard compiled.status == 0 else { return .failure(BindingTestFailure("javac failed: \(compiled)")) }
        } catch {
            return .failure(BindingTestFailure("\(error)"))
        }
        return .success(Build(java: javaBin.appendingPathComponent("java").path, javac: javac, jni: jni, classes: classes))
    }()

    /// The build, or (outside CI, without a JDK or a C compiler) a cancelled test.
    static func built() throws -> Build {
        _ = try Bindings.require("javac", "apt-get install default-jdk-headless")
        _ = try Bindings.require("cc", "apt-get install gcc")
        return try build.get()
    }

    @Test func launcherHostProgramPasses() throws {
        let build = try Self.built()
        let run = try runProgram(build.java, ["-Dsmartstack.jni=\(build.jni)", "-cp", build.classes, "LauncherHostTest",
                                              Bindings.root.appendingPathComponent("include/smartstack.h").path])
        #expect(run.status == 0 && run.output.contains(" checks, 0 failed"), "\(run)")
        #expect(run.output.contains("screen on, Monday 08:00: top = calendar"), "\(run)")
    }

    /// The Java examples of the README and of bindings/java/README.md, exactly as printed there,
    /// compile and run.
    @Test(arguments: [Bindings.Example.readme, .binding("java")])
    func readmeJavaExampleRuns(_ example: Bindings.Example) throws {
        let build = try Self.built()
        let directory = try ScratchDirectory()
        try Bindings.example("java", in: example).write(toFile: directory.path("Launcher.java"), atomically: true, encoding: .utf8)
        let compiled = try runProgram(build.javac, ["-Werror", "-Xlint:all", "-cp", build.classes, "-d", directory.url.path,
                                                    directory.path("Launcher.java")])
        #expect(compiled.status == 0, "\(compiled)")
        let run = try runProgram(build.java, ["-Dsmartstack.jni=\(build.jni)", "-cp", "\(directory.url.path):\(build.classes)",
                                              "Launcher"], in: directory.url)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("top: calendar"), "\(run)")
        if example.showsAnError { #expect(run.output.contains("unknown stack 'gym'"), "\(run)") }
    }
}
