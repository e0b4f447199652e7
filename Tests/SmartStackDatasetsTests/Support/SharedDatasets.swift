import Foundation
import Testing

/// Locates the real recordings of `../shared/datasets` (see PROVENANCE.md there) for tests.
///
/// The directory is `$SMARTSTACK_DATASETS` when set, else `../shared/datasets` relative to the
/// package root (found from this file's path). Tests that need it use the trait and the path
/// lookup together:
///
/// ```swift
/// @Test(.requiresSharedDatasets)
/// func importsStudentLife() throws {
///     let gps = try SharedDatasets.path("studentlife_small/gps_u00_u01_u02.csv")
/// }
/// ```
///
/// When the data is missing the test is skipped with a message saying where it was looked
/// for, except when the environment variable `CI` is set: then the test runs and
/// ``path(_:)`` fails it loudly.
enum SharedDatasets {
    /// The datasets directory that is looked for (it may not exist).
    static var expectedDirectory: String {
        if let override = ProcessInfo.processInfo.environment["SMARTSTACK_DATASETS"], !override.isEmpty {
            return override
        }
        // <root>/Tests/SmartStackEvaluationTests/Support/SharedDatasets.swift
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.deletingLastPathComponent().appendingPathComponent("shared/datasets").standardizedFileURL.path
    }

    /// Whether the datasets directory exists.
    static var isAvailable: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: expectedDirectory, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Whether missing data must fail tests rather than skip them (`CI` is set).
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    /// The absolute path of `relativePath` inside the datasets directory.
    ///
    /// - Throws: ``Missing`` (failing the test) when the file does not exist.
    static func path(_ relativePath: String) throws -> String {
        let full = URL(fileURLWithPath: expectedDirectory).appendingPathComponent(relativePath).path
        guard FileManager.default.fileExists(atPath: full) else {
            throw Missing(path: full)
        }
        return full
    }

    /// A shared dataset file is missing.
    struct Missing: Error, CustomStringConvertible {
        /// The path looked for.
        var path: String
        var description: String {
            "shared dataset file missing: \(path) (set SMARTSTACK_DATASETS to the datasets directory)"
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test when the shared datasets are present or `CI` is set (then missing data
    /// fails it); otherwise skips it with a message saying where the data was looked for.
    static var requiresSharedDatasets: Self {
        .enabled(
            if: SharedDatasets.isAvailable || SharedDatasets.isCI,
            Comment(rawValue: "shared datasets not found at \(SharedDatasets.expectedDirectory); "
                + "set SMARTSTACK_DATASETS to run this test (with CI set it fails instead)"))
    }
}
