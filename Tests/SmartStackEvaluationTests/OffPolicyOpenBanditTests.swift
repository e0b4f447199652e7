import Foundation
import Testing
import SmartStackDatasets
import SmartStackEvaluation

/// `../shared/datasets/obd` beside the repository (the worktree or CI's clone).
private let openBanditDirectory: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/datasets/obd").path
private let openBanditPresent = FileManager.default.fileExists(atPath: openBanditDirectory + "/bts_all.csv.gz")
    && FileManager.default.fileExists(atPath: openBanditDirectory + "/random_all.csv.gz")
private let runningInCI = ProcessInfo.processInfo.environment["CI"] != nil

@Suite struct OffPolicyOpenBanditTests {
    // Runs when the data is there; in CI (CI set) it runs regardless and fails if the data is missing.
    @Test(.enabled(if: openBanditPresent || runningInCI,
                   "Open Bandit sample not found at \(openBanditDirectory); skipped (set CI to make this a failure)"))
    func uniformPolicyEstimatedFromTheThompsonSamplingLog() throws {
        #expect(openBanditPresent, "Open Bandit sample missing at \(openBanditDirectory)")
        let report = try OpenBanditCheck.run(directory: openBanditDirectory, bootstrap: BootstrapOptions(samples: 200), seed: 1)
        #expect(report.observedRandom.rounds == 10_000)
        #expect(report.observedBTS.rounds == 10_000)
        // The sample's documented click rates (PROVENANCE.md): random 0.0038, BTS 0.0042.
        #expect(report.observedRandom.clicks == 38)
        #expect(report.observedBTS.clicks == 42)
        let result = report.uniformFromBTS
        #expect(result.rounds == 10_000)
        // The uniform policy gives every item mass, so every logged item has a positive weight.
        #expect(result.diagnostics.zeroWeightShare == 0)
        #expect(result.diagnostics.effectiveSampleSize > 0 && result.diagnostics.effectiveSampleSize < 10_000)
        #expect(abs(result.diagnostics.replayAccepted - 10_000.0 / 80) < 1e-6)
        for estimate in result.estimates {
            let value = try #require(estimate.value, "\(estimate.estimator)")
            let ci = try #require(estimate.interval)
            #expect(value >= 0 && ci[0] <= value && value <= ci[1], "\(estimate.estimator): \(value) \(ci)")
        }
        // Reverse: BTS from the random log, whose uniform logging support is known.
        let reverse = report.btsFromRandom
        #expect(reverse.rounds == 10_000)
        #expect(reverse.diagnostics.zeroSupportShare == 0)
        #expect(reverse.diagnostics.supportKnownRounds == 10_000)
        // Under uniform logging replay and SNIPS are the same estimator.
        let replay = try #require(reverse[.replay]?.value), snips = try #require(reverse[.snips]?.value)
        #expect(abs(replay - snips) < 1e-12)
        print("OBD uniform-from-BTS:", result.estimates.map { "\($0.estimator)=\($0.value ?? .nan)" }.joined(separator: " "),
              "observed random:", report.observedRandom.rate)
    }

    @Test func malformedLogsGetAnErrorWithFileLineAndColumn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("obd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("log.csv").path
        let header = ",timestamp,item_id,position,click,propensity_score\n"
        try (header + "0,t,3,1,0,0.0125\n1,t,4,2,1,zero\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: OpenBanditLogError(file: path, line: 3, field: "propensity_score", message: "'zero' is not a number")) {
            try OpenBanditLog(contentsOfFile: path)
        }
        try (header + "0,t,80,1,0,0.0125\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: OpenBanditLogError.self) { try OpenBanditLog(contentsOfFile: path) }
        try (",timestamp,item_id,click\n0,t,1,0\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: OpenBanditLogError(file: path, line: 1, message: "missing column 'position' in the header")) {
            try OpenBanditLog(contentsOfFile: path)
        }
        try (header + "0,t,3,2,1,0.5\n").write(toFile: path, atomically: true, encoding: .utf8)
        let log = try OpenBanditLog(contentsOfFile: path)
        #expect(log.items == [3] && log.positions == [1] && log.clicks == [1] && log.propensities == [0.5])
        // A truncated gzip file is reported, not read as a shorter log.
        let gz = directory.appendingPathComponent("log.csv.gz").path
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-k", path]
        try gzip.run()
        gzip.waitUntilExit()
        let full = try Data(contentsOf: URL(fileURLWithPath: gz))
        #expect(try OpenBanditLog(contentsOfFile: gz) == log)
        try full.prefix(full.count - 12).write(to: URL(fileURLWithPath: gz))
        let truncated = #expect(throws: OpenBanditLogError.self) { try OpenBanditLog(contentsOfFile: gz) }
        #expect(truncated?.file == gz && truncated?.message.hasPrefix("truncated gzip file") == true)
    }
}
