import Foundation
import Testing
import SmartStackEvaluation

/// The committed output of `Benchmarks/obp/reference.py` (Open Bandit Pipeline 0.5.7).
private struct ObpReference: Decodable {
    struct Case: Decodable {
        var name: String
        var rounds: Int
        var n_actions: Int
        var action: [Int]
        var reward: [Double]
        var pscore: [Double]
        var action_dist_at_position: [[Double]]
        var estimated_rewards_at_position: [[Double]]
        var estimates: [Estimate]
    }
    struct Estimate: Decodable {
        var estimator: String
        var parameter: Double?
        var value: Double
        var obp_ci: [Double]

        var swiftEstimator: OffPolicyEstimator? {
            switch estimator {
            case "replay": .replay
            case "ips": .ips(clip: parameter)
            case "snips": .snips
            case "dm": .directMethod
            case "dr": .doublyRobust(clip: parameter)
            case "switch_dr": parameter.map { .switchDoublyRobust(tau: $0) }
            case "dr_os": parameter.map { .doublyRobustWithShrinkage(lambda: $0) }
            default: nil
            }
        }
    }
    var obp_version: String
    var cases: [Case]

    static func load() throws -> ObpReference {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/obp_reference.json")
        return try JSONDecoder().decode(ObpReference.self, from: Data(contentsOf: url))
    }
}

@Suite struct OffPolicyReferenceTests {
    private static func feedback(_ c: ObpReference.Case) throws -> BanditFeedback {
        try BanditFeedback(actions: c.action, rewards: c.reward, propensities: c.pscore, actionCount: c.n_actions,
                           targetDistribution: c.action_dist_at_position.flatMap { $0 },
                           estimatedRewards: c.estimated_rewards_at_position.flatMap { $0 })
    }

    @Test func fixtureCoversEveryEstimatorAndCase() throws {
        let reference = try ObpReference.load()
        #expect(reference.obp_version == "0.5.7")
        #expect(reference.cases.count >= 5)
        let kinds = Set(reference.cases.flatMap { $0.estimates.map(\.estimator) })
        #expect(kinds == ["replay", "ips", "snips", "dm", "dr", "switch_dr", "dr_os"])
        #expect(reference.cases.flatMap(\.estimates).allSatisfy { $0.swiftEstimator != nil })
    }

    @Test func pointEstimatesMatchObpWithin1e9() throws {
        for c in try ObpReference.load().cases {
            let feedback = try Self.feedback(c)
            #expect(feedback.count == c.rounds)
            let estimators = c.estimates.compactMap(\.swiftEstimator)
            let result = try OffPolicyEvaluation.estimate(feedback, estimators: estimators,
                                                          bootstrap: BootstrapOptions(samples: 0), seed: 0)
            for (expected, mine) in zip(c.estimates, result.estimates) {
                let value = try #require(mine.value, "\(c.name) \(mine.estimator)")
                #expect(abs(value - expected.value) <= 1e-9,
                        "\(c.name) \(mine.estimator): SmartStack \(value), obp \(expected.value)")
            }
        }
    }

    /// Different generators, same method: the percentile bootstrap intervals of the linear
    /// estimators agree with obp's up to resampling noise (a quarter of the interval's width).
    @Test func bootstrapIntervalsAgreeWithObpUpToResamplingNoise() throws {
        for c in try ObpReference.load().cases {
            let feedback = try Self.feedback(c)
            let estimators = c.estimates.compactMap(\.swiftEstimator)
            let result = try OffPolicyEvaluation.estimate(feedback, estimators: estimators,
                                                          bootstrap: BootstrapOptions(samples: 1000), seed: 2024)
            for (expected, mine) in zip(c.estimates, result.estimates) where expected.estimator != "snips" && expected.estimator != "replay" {
                let ci = try #require(mine.interval)
                let width = expected.obp_ci[1] - expected.obp_ci[0]
                #expect(abs(ci[0] - expected.obp_ci[0]) <= 0.25 * width && abs(ci[1] - expected.obp_ci[1]) <= 0.25 * width,
                        "\(c.name) \(mine.estimator): SmartStack \(ci), obp \(expected.obp_ci)")
            }
        }
    }
}
