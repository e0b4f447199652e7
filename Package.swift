// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SmartStack",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SmartStack", targets: ["SmartStack"]),
        .library(name: "SmartStackDatasets", targets: ["SmartStackDatasets"]),
        .library(name: "SmartStackEvaluation", targets: ["SmartStackEvaluation"]),
        .executable(name: "smartstack", targets: ["smartstack"]),
        .executable(name: "smartstack-bench", targets: ["SmartStackBench"]),
        // The C API (include/smartstack.h) for hosts in any language: libSmartStackC.so and a
        // static variant. (The name `smartstack` is the command-line tool's.)
        .library(name: "SmartStackC", type: .dynamic, targets: ["SmartStackC"]),
        .library(name: "SmartStackCStatic", type: .static, targets: ["SmartStackC"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "SmartStackSQLite", dependencies: ["CSQLite"]),
        .target(
            name: "SmartStack",
            dependencies: ["SmartStackSQLite"],
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        .systemLibrary(name: "CSmartStack", path: "include"),
        .target(name: "SmartStackC", dependencies: ["SmartStack", "CSmartStack"]),
        .target(name: "SmartStackDatasets", dependencies: ["SmartStack", "CZlib"]),
        .target(name: "SmartStackEvaluation", dependencies: ["SmartStack", "SmartStackDatasets"]),
        .target(name: "SmartStackCLI", dependencies: ["SmartStack", "SmartStackDatasets", "SmartStackEvaluation"]),
        .executableTarget(name: "smartstack", dependencies: ["SmartStackCLI"]),
        .executableTarget(
            name: "SmartStackBench",
            dependencies: ["SmartStack", "SmartStackDatasets", "SmartStackEvaluation", "SmartStackSQLite", "CSQLite",
                           "SmartStackC", "CSmartStack"],
            path: "Benchmarks/SmartStackBench"
        ),
        .testTarget(name: "SmartStackSQLiteTests", dependencies: ["SmartStackSQLite"]),
        .testTarget(name: "SmartStackTests", dependencies: ["SmartStack"]),
        .testTarget(name: "SmartStackDatasetsTests", dependencies: ["SmartStackDatasets"]),
        .testTarget(
            name: "SmartStackEvaluationTests",
            dependencies: ["SmartStackEvaluation", "SmartStackDatasets"],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "SmartStackCLITests", dependencies: ["SmartStackCLI", "SmartStackDatasets"]),
        .testTarget(name: "SmartStackCTests", dependencies: ["SmartStackC", "CSmartStack", "SmartStack", "SmartStackCLI"]),
    ],
    swiftLanguageModes: [.v6]
)
