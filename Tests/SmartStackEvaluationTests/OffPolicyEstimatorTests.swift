import Foundation
import Testing
import SmartStack
@testable import SmartStackEvaluation

/// Four rounds, two actions, every figure computed by hand (see each expectation).
private func handCase(logging: [Double]? = nil) throws -> BanditFeedback {
    // round: logged action, propensity, reward, π_e, q̂
    // 0: a=0 p=0.5  r=1  π=[1, 0]        q̂=[0.6, 0.2]   w=2
    // 1: a=1 p=0.25 r=1  π=[0.5, 0.5]    q̂=[0.4, 0.8]   w=2
    // 2: a=0 p=0.8  r=0  π=[0, 1]        q̂=[0.3, 0.5]   w=0
    // 3: a=1 p=0.5  r=0  π=[0.25, 0.75]  q̂=[0.5, 0.1]   w=1.5
    try BanditFeedback(
        actions: [0, 1, 0, 1], rewards: [1, 1, 0, 0], propensities: [0.5, 0.25, 0.8, 0.5], actionCount: 2,
        targetDistribution: [1, 0, 0.5, 0.5, 0, 1, 0.25, 0.75],
        estimatedRewards: [0.6, 0.2, 0.4, 0.8, 0.3, 0.5, 0.5, 0.1],
        loggingDistribution: logging)
}

private func value(_ estimator: OffPolicyEstimator, _ feedback: BanditFeedback) throws -> Double {
    try #require(try OffPolicyEvaluation.pointEstimate(estimator, on: feedback))
}

@Suite struct OffPolicyEstimatorTests {
    @Test func inversePropensityScoringIsTheMeanOfWeightedRewards() throws {
        let f = try handCase()
        #expect(abs(try value(.ips(), f) - 1.0) < 1e-12)              // (1·2 + 1·2 + 0 + 0) / 4
        #expect(abs(try value(.ips(clip: 1.5), f) - 0.75) < 1e-12)    // (1.5 + 1.5) / 4
        #expect(abs(try value(.ips(clip: .infinity), f) - 1.0) < 1e-12)
    }

    @Test func selfNormalizedIPSDividesByTheWeightTotal() throws {
        #expect(abs(try value(.snips, try handCase()) - 4 / 5.5) < 1e-12)   // Σwr / Σw
    }

    @Test func replayAveragesRewardsWhereThePolicyWouldPickTheLoggedAction() throws {
        // Σ π(a_i) r_i / Σ π(a_i) = (1 + 0.5) / (1 + 0.5 + 0 + 0.75)
        #expect(abs(try value(.replay, try handCase()) - 1.5 / 2.25) < 1e-12)
        // Deterministic policy: the mean reward of the matching rounds (rounds 0 and 2 match).
        let deterministic = try BanditFeedback(
            actions: [0, 1, 1, 0], rewards: [1, 0, 1, 0], propensities: [0.5, 0.5, 0.5, 0.5], actionCount: 2,
            targetDistribution: [1, 0, 1, 0, 0, 1, 0, 1])
        #expect(abs(try value(.replay, deterministic) - 1.0) < 1e-12)   // rounds 0 (r=1) and 2 (r=1)
    }

    @Test func replayAndSNIPSAreUndefinedWithoutSupport() throws {
        let f = try BanditFeedback(actions: [0, 0], rewards: [1, 0], propensities: [0.5, 0.5], actionCount: 2,
                                   targetDistribution: [0, 1, 0, 1])
        let result = try OffPolicyEvaluation.estimate(f, estimators: [.replay, .snips, .ips()],
                                                      bootstrap: BootstrapOptions(samples: 50), seed: 1)
        #expect(result[.replay]?.value == nil)
        #expect(result[.snips]?.value == nil)
        #expect(result[.replay]?.interval == nil)
        #expect(result[.ips()]?.value == 0)
    }

    @Test func directMethodAveragesTheRewardModelUnderThePolicy() throws {
        // DM_i = 0.6, 0.6, 0.5, 0.2 → mean 0.475
        #expect(abs(try value(.directMethod, try handCase()) - 0.475) < 1e-12)
    }

    @Test func doublyRobustAddsTheWeightedResidual() throws {
        let f = try handCase()
        // corrections w(r − q̂(a)): 2·0.4, 2·0.2, 0, 1.5·(−0.1) → (1.9 + 1.05) / 4
        #expect(abs(try value(.doublyRobust(), f) - 2.95 / 4) < 1e-12)
        // clipped at 1.5: 1.5·0.4 + 1.5·0.2 − 0.15 = 0.75 → (1.9 + 0.75) / 4
        #expect(abs(try value(.doublyRobust(clip: 1.5), f) - 2.65 / 4) < 1e-12)
    }

    @Test func switchDRKeepsTheCorrectionOnlyForSmallWeights() throws {
        let f = try handCase()
        // τ = 1.5: only rounds 2 (w 0) and 3 (w 1.5) keep the correction → (1.9 − 0.15) / 4
        #expect(abs(try value(.switchDoublyRobust(tau: 1.5), f) - 1.75 / 4) < 1e-12)
        #expect(abs(try value(.switchDoublyRobust(tau: .infinity), f) - (try value(.doublyRobust(), f))) < 1e-12)
        #expect(abs(try value(.switchDoublyRobust(tau: 0), f) - (try value(.directMethod, f))) < 1e-12)
    }

    @Test func shrinkageReplacesTheWeightByLambdaWOverWSquaredPlusLambda() throws {
        let f = try handCase()
        // λ = 2: w=2 → 2/3, w=1.5 → 3/4.25; corrections 2/3·0.4 + 2/3·0.2 − 0.1·3/4.25
        let expected = (1.9 + 0.4 - 0.3 / 4.25) / 4
        #expect(abs(try value(.doublyRobustWithShrinkage(lambda: 2), f) - expected) < 1e-12)
        #expect(abs(try value(.doublyRobustWithShrinkage(lambda: .infinity), f) - (try value(.doublyRobust(), f))) < 1e-12)
        #expect(abs(try value(.doublyRobustWithShrinkage(lambda: 0), f) - (try value(.directMethod, f))) < 1e-12)
    }

    @Test func replayEqualsSNIPSUnderUniformLogging() throws {
        let f = try BanditFeedback(
            actions: [0, 1, 2, 1, 0], rewards: [1, 0, 1, 1, 0], propensities: Array(repeating: 1.0 / 3, count: 5),
            actionCount: 3, targetDistribution: [0.2, 0.5, 0.3, 0.1, 0.1, 0.8, 0.3, 0.3, 0.4, 1, 0, 0, 0.5, 0.25, 0.25])
        #expect(abs(try value(.replay, f) - (try value(.snips, f))) < 1e-12)
    }

    @Test func positionsSliceObpShapedArraysAtTheLoggedPosition() throws {
        // Two rounds, two actions, two positions; round 0 shown at position 1, round 1 at 0.
        let byPosition = try BanditFeedback(
            actions: [1, 0], rewards: [1, 1], propensities: [0.5, 0.25], positions: [1, 0],
            targetDistribution: [[[0.9, 0.0], [0.1, 1.0]], [[0.5, 0.3], [0.5, 0.7]]],
            estimatedRewards: [[[9, 0.2], [9, 0.4]], [[0.6, 9], [0.1, 9]]])
        #expect(byPosition.targetDistribution == [0.0, 1.0, 0.5, 0.5])
        #expect(byPosition.estimatedRewards == [0.2, 0.4, 0.6, 0.1])
        #expect(abs(try value(.ips(), byPosition) - (2 + 2) / 2) < 1e-12)   // w = 1/0.5, 0.5/0.25
        #expect(throws: OffPolicyError.self) {
            try BanditFeedback(actions: [0], rewards: [1], propensities: [1], positions: [2],
                               targetDistribution: [[[1, 0]], [[0, 1]]].dropLast().map { $0 })
        }
    }

    @Test func diagnosticsDescribeTheWeights() throws {
        let d = try OffPolicyEvaluation.estimate(try handCase(), bootstrap: BootstrapOptions(samples: 0), seed: 0).diagnostics
        #expect(abs(d.effectiveSampleSize - 5.5 * 5.5 / 10.25) < 1e-12)   // (Σw)² / Σw², w = 2, 2, 0, 1.5
        #expect(d.maxWeight == 2)
        #expect(abs(d.meanWeight - 1.375) < 1e-12)
        #expect(d.zeroWeightShare == 0.25)
        #expect(abs(d.replayAccepted - 2.25) < 1e-12)
        #expect(d.zeroSupportShare == nil)     // logging support unknown
        #expect(d.supportKnownRounds == 0)
    }

    @Test func zeroSupportShareCountsMassOnActionsTheLoggerCouldNotChoose() throws {
        // Round 0: logger [0.5, 0.5, 0] and policy on action 2 → outside the support.
        // Round 1: logger [0.2, 0.8, 0], policy within it. Round 2: deterministic logger
        // (propensity 1, support known without a distribution) and policy on another action.
        let withLogging = try BanditFeedback(
            actions: [0, 1], rewards: [1, 0], propensities: [0.5, 0.8], actionCount: 3,
            targetDistribution: [0.5, 0, 0.5, 0, 1, 0], loggingDistribution: [0.5, 0.5, 0, 0.2, 0.8, 0])
        let d1 = try OffPolicyEvaluation.estimate(withLogging, estimators: [.ips()], bootstrap: BootstrapOptions(samples: 0), seed: 0).diagnostics
        #expect(d1.zeroSupportShare == 0.5)
        #expect(d1.supportKnownRounds == 2)
        let deterministicLogger = try BanditFeedback(
            actions: [0, 0], rewards: [1, 0], propensities: [1, 1], actionCount: 2,
            targetDistribution: [1, 0, 0.5, 0.5])
        let d2 = try OffPolicyEvaluation.estimate(deterministicLogger, estimators: [.ips()], bootstrap: BootstrapOptions(samples: 0), seed: 0).diagnostics
        #expect(d2.zeroSupportShare == 0.5)
        #expect(d2.zeroWeightShare == 0)
    }

    @Test func badInputNamesTheRoundAndField() throws {
        func message(_ body: () throws -> Void) -> String {
            do { try body(); return "" } catch let error as OffPolicyError { return error.description } catch {
                return "unexpected error type: \(error)"
            }
        }
        #expect(message {
            _ = try BanditFeedback(actions: [0, 1], rewards: [1, 0], propensities: [0.5, 0], actionCount: 2,
                                   targetDistribution: [1, 0, 1, 0])
        } == "round 1, field 'propensity': must be in (0, 1], got 0.0")
        #expect(message {
            _ = try BanditFeedback(actions: [0, 2], rewards: [1, 0], propensities: [0.5, 0.5], actionCount: 2,
                                   targetDistribution: [1, 0, 1, 0])
        }.hasPrefix("round 1, field 'action'"))
        #expect(message {
            _ = try BanditFeedback(actions: [0], rewards: [1], propensities: [0.5], actionCount: 2,
                                   targetDistribution: [0.7, 0.7])
        }.hasPrefix("round 0, field 'target_distribution': probabilities sum to"))
        #expect(message {
            _ = try BanditFeedback(actions: [0], rewards: [.nan], propensities: [0.5], actionCount: 1,
                                   targetDistribution: [1])
        }.hasPrefix("round 0, field 'reward'"))
        let ok = try BanditFeedback(actions: [0], rewards: [1], propensities: [0.5], actionCount: 1, targetDistribution: [1])
        #expect(message { _ = try OffPolicyEvaluation.estimate(ok, estimators: [.ips(clip: -1)], seed: 0) }
            .contains("must be >= 0"))
        #expect(message { _ = try OffPolicyEvaluation.estimate(ok, estimators: [.directMethod], seed: 0) }
            .hasPrefix("field 'estimated_rewards'"))
        let rounds = [LoggedRound(candidateCount: 2, loggedAction: 0, propensity: 0.5, reward: 1, targetDistribution: [1])]
        #expect(message { _ = try OffPolicyEvaluation.estimate(rounds, seed: 0) }
            .hasPrefix("round 0, field 'target_distribution': has 1 entries for 2 candidates"))
    }
}

@Suite struct OffPolicyBootstrapTests {
    private func sample() throws -> BanditFeedback {
        // A deterministic pseudo-random log of 300 rounds, 4 actions.
        var rng = SeededGenerator(seed: 99)
        var actions: [Int] = [], rewards: [Double] = [], propensities: [Double] = [], target: [Double] = [], q: [Double] = []
        let logging = [0.4, 0.3, 0.2, 0.1]
        for _ in 0..<300 {
            let u = Double(rng.next() >> 11) / Double(1 << 53)
            let a = u < 0.4 ? 0 : u < 0.7 ? 1 : u < 0.9 ? 2 : 3
            actions.append(a)
            propensities.append(logging[a])
            rewards.append(rng.index(below: 10) < 3 + a ? 1 : 0)
            target += [0.1, 0.2, 0.3, 0.4]
            q += [0.3, 0.4, 0.5, 0.6]
        }
        return try BanditFeedback(actions: actions, rewards: rewards, propensities: propensities, actionCount: 4,
                                  targetDistribution: target, estimatedRewards: q)
    }

    @Test func intervalsAreDeterministicForASeedAndChangeWithIt() throws {
        let f = try sample()
        let a = try OffPolicyEvaluation.estimate(f, bootstrap: BootstrapOptions(samples: 200), seed: 7)
        let b = try OffPolicyEvaluation.estimate(f, bootstrap: BootstrapOptions(samples: 200), seed: 7)
        let c = try OffPolicyEvaluation.estimate(f, bootstrap: BootstrapOptions(samples: 200), seed: 8)
        #expect(a == b)
        #expect(a.estimates.map(\.interval) != c.estimates.map(\.interval))
        #expect(a.estimates.map(\.value) == c.estimates.map(\.value))
    }

    @Test func intervalsBracketTheEstimateAndNarrowWithAlpha() throws {
        let f = try sample()
        let wide = try OffPolicyEvaluation.estimate(f, bootstrap: BootstrapOptions(samples: 400, alpha: 0.05), seed: 3)
        let narrow = try OffPolicyEvaluation.estimate(f, bootstrap: BootstrapOptions(samples: 400, alpha: 0.5), seed: 3)
        for (w, n) in zip(wide.estimates, narrow.estimates) {
            let value = try #require(w.value)
            let ci = try #require(w.interval)
            let inner = try #require(n.interval)
            #expect(ci[0] <= value && value <= ci[1], "\(w.estimator): \(ci) around \(value)")
            #expect(ci[0] <= inner[0] && inner[1] <= ci[1], "\(w.estimator)")
        }
    }

    @Test func percentileInterpolatesLinearlyLikeNumpy() {
        #expect(RoundTerms.percentile([1, 2, 3, 4], 0.25) == 1.75)
        #expect(RoundTerms.percentile([1, 2, 3, 4], 0.0) == 1)
        #expect(RoundTerms.percentile([1, 2, 3, 4], 1.0) == 4)
        #expect(RoundTerms.percentile([5], 0.975) == 5)
    }

    @Test func resultEncodesWithSnakeCaseKeysAndRoundTrips() throws {
        let result = try OffPolicyEvaluation.estimate(try sample(), estimators: [.replay, .ips(clip: 10), .snips],
                                                      bootstrap: BootstrapOptions(samples: 20), seed: 5)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(result)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["replay", "ips_lambda_10", "snips", "diagnostics", "rounds", "bootstrap"])
        let ips = try #require(object["ips_lambda_10"] as? [String: Any])
        #expect((ips["ci"] as? [Double])?.count == 2)
        let diagnostics = try #require(object["diagnostics"] as? [String: Any])
        #expect(Set(diagnostics.keys) == ["ess", "max_weight", "mean_weight", "zero_weight_share", "zero_support_share",
                                          "support_known_rounds", "replay_accepted"])
        #expect(diagnostics["zero_support_share"] is NSNull)
        #expect(object["rounds"] as? Int == 300)
        let decoded = try JSONDecoder().decode(OffPolicyResult.self, from: data)
        #expect(decoded.diagnostics == result.diagnostics)
        #expect(Set(decoded.estimates) == Set(result.estimates))
        #expect(OffPolicyEstimator(key: "dr_os_lambda_0.5") == .doublyRobustWithShrinkage(lambda: 0.5))
        #expect(OffPolicyEstimator(key: "switch_dr_tau_-1") == nil)
    }
}

@Suite struct OffPolicyRewardModelTests {
    @Test func smoothedMeansShrinkTowardsTheActionThenGlobalMean() {
        let model = RewardModel(rows: [(contextKey: "a", action: 0, reward: 1.0), ("a", 0, 0.0), ("b", 1, 1.0)],
                                priorStrength: 1)
        // μ = 2/3; μ_0 = (1 + 2/3) / 3 = 5/9; q̂(a, 0) = (1 + 5/9) / 3 = 14/27
        #expect(abs(model.prediction(contextKey: "a", action: 0) - 14.0 / 27) < 1e-12)
        #expect(abs(model.prediction(contextKey: "b", action: 0) - 5.0 / 9) < 1e-12)   // unseen cell
        #expect(abs(model.prediction(contextKey: "z", action: 7) - 2.0 / 3) < 1e-12)   // unseen action
        #expect(RewardModel().prediction(contextKey: "a", action: 0) == 0)
        #expect(model.observationCount == 3)
    }

    @Test func loggedRoundsFitTheModelAndCrossFittingLeavesEachRoundOut() throws {
        // Rounds (context, reward): (a, 1), (a, 1), (b, 0); the policy always picks the logged action 0.
        let rounds = [("a", 1.0), ("a", 1.0), ("b", 0.0)].map { key, reward in
            LoggedRound(candidateCount: 2, loggedAction: 0, propensity: 0.5, reward: reward,
                        targetDistribution: [1, 0], contextKey: key)
        }
        let options = BootstrapOptions(samples: 0)
        // In-sample, m = 1: μ = 2/3, μ_0 = 2/3, q̂(a,0) = 8/9, q̂(b,0) = 1/3 → DM = 19/27.
        let inSample = try OffPolicyEvaluation.estimate(rounds, estimators: [.directMethod],
                                                        rewardModelPriorStrength: 1, bootstrap: options, seed: 0)
        #expect(abs(try #require(inSample[.directMethod]?.value) - 19.0 / 27) < 1e-12)
        // Leave-one-out (3 folds): q̂ = 0.75, 0.75, 1 → DM = 2.5 / 3.
        let crossFitted = try OffPolicyEvaluation.estimate(rounds, estimators: [.directMethod], rewardModelPriorStrength: 1,
                                                           crossFitFolds: 3, bootstrap: options, seed: 0)
        #expect(abs(try #require(crossFitted[.directMethod]?.value) - 2.5 / 3) < 1e-12)
    }

    @Test func loggedRoundsWithTheirOwnPredictionsMatchObpShapedFeedback() throws {
        let feedback = try handCase()
        let rounds = (0..<feedback.count).map { i in
            LoggedRound(candidateCount: 2, loggedAction: feedback.actions[i], propensity: feedback.propensities[i],
                        reward: feedback.rewards[i], targetDistribution: Array(feedback.targetDistribution[(2 * i)..<(2 * i + 2)]),
                        estimatedRewards: Array(feedback.estimatedRewards![(2 * i)..<(2 * i + 2)]))
        }
        let a = try OffPolicyEvaluation.estimate(rounds, bootstrap: BootstrapOptions(samples: 30), seed: 11)
        let b = try OffPolicyEvaluation.estimate(feedback, bootstrap: BootstrapOptions(samples: 30), seed: 11)
        #expect(a == b)
    }
}
