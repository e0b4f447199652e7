import Foundation
import Testing

/// ARCHITECTURE.md stays true: every folder of each module it lists uses only its own and lower
/// folders' types.
@Suite struct ArchitectureTests {
    func architecture() throws -> String {
        try String(contentsOf: LayerCheck.root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
    }

    @Test func architectureListsTheEngineFoldersInOrder() throws {
        let layerings = LayerCheck.layerings(architecture: try architecture())
        #expect(layerings.first { $0.module == "SmartStack" }?.folders
                == ["Vocabulary", "Events", "Store", "Features", "Scoring", "Rotation", "Engine"])
    }

    @Test func architectureListsTheEvaluatorAndDatasetsFoldersInOrder() throws {
        let layerings = LayerCheck.layerings(architecture: try architecture())
        #expect(layerings.first { $0.module == "SmartStackEvaluation" }?.folders
                == ["Replay", "Metrics", "OffPolicy", "Reports", "Evaluator"])
        #expect(layerings.first { $0.module == "SmartStackDatasets" }?.folders == ["Simulation", "Import"])
    }

    @Test func noFolderUsesATypeOfAHigherOne() throws {
        let layerings = LayerCheck.layerings(architecture: try architecture())
        #expect(!layerings.isEmpty)
        for layering in layerings {
            let files = try LayerCheck.sources(of: layering.module)
            #expect(!files.isEmpty, "no Swift files under Sources/\(layering.module)")
            let findings = LayerCheck.findings(layering, files: files)
            #expect(findings.isEmpty, "\(findings.count) upward references:\n\(findings.joined(separator: "\n"))")
        }
    }

    let layering = LayerCheck.Layering(module: "M", folders: ["Low", "High"])

    @Test func anUpwardReferenceIsNamedWithItsFileAndLine() {
        let files = [
            SwiftSource(path: "Sources/M/High/Engine.swift", text: "public final class Engine {\n    let part = Part()\n}\n"),
            SwiftSource(path: "Sources/M/Low/Part.swift", text: "struct Part {\n    var x = 0\n}\n\nextension Part {\n    func owner() -> Engine? { nil }\n}\n"),
        ]
        #expect(LayerCheck.findings(layering, files: files)
                == ["Sources/M/Low/Part.swift:6: Low uses Engine, declared in High, a higher layer"])
    }

    @Test func commentsStringsAndMembersAreNotUses() {
        let files = [
            SwiftSource(path: "Sources/M/High/Engine.swift", text: "final class Engine {}\n"),
            SwiftSource(path: "Sources/M/Low/Part.swift", text: """
                /// Read by `Engine`.
                struct Part {
                    /* an Engine /* nested */ Engine */
                    var name = "Engine \\("x") Engine"
                    var raw = #"Engine "\\(Engine)" "#
                    var text = \"\"\"
                        Engine
                        \"\"\"
                    func f(_ p: Part) -> Int { p.Engine }
                }
                """),
        ]
        #expect(LayerCheck.findings(layering, files: files).isEmpty)
    }

    @Test func aTypeInAStringInterpolationIsAUse() {
        let files = [
            SwiftSource(path: "Sources/M/High/Engine.swift", text: "enum Engine { static let name = \"e\" }\n"),
            SwiftSource(path: "Sources/M/Low/Part.swift", text: "struct Part {\n    var text = \"a \\(Engine.name) b\"\n}\n"),
        ]
        #expect(LayerCheck.findings(layering, files: files)
                == ["Sources/M/Low/Part.swift:2: Low uses Engine, declared in High, a higher layer"])
    }

    @Test func aFileOutsideTheListedFoldersIsReported() {
        let files = [SwiftSource(path: "Sources/M/Misc/Helper.swift", text: "struct Helper {}\n")]
        #expect(LayerCheck.findings(layering, files: files)
                == ["Sources/M/Misc/Helper.swift:1: not in a folder of the layer order of M in ARCHITECTURE.md"])
    }

    @Test func layersAreReadFromTheirLines() {
        let text = "intro\n\n```\nlayers A: X → Y\nlayers B: P\n```\nlayers are nice\n"
        #expect(LayerCheck.layerings(architecture: text)
                == [LayerCheck.Layering(module: "A", folders: ["X", "Y"]), LayerCheck.Layering(module: "B", folders: ["P"])])
    }
}
