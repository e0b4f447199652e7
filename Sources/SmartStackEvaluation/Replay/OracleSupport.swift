import SmartStack
import SmartStackDatasets

/// Builds the `oracle` policy: the simulator's ground truth scored by `OracleScorer` under the
/// engine's rotation policy (the ceiling any policy can reach on a simulated dataset).
public enum OracleSupport {
    /// A factory hosting the oracle for each user, reading `truthPath` once (its digest becomes
    /// the factory's `inputFile`).
    ///
    /// - Throws: `GroundTruthError` when the file cannot be read or is invalid.
    /// - Complexity: O(size of the truth file) once.
    public static func factory(truthPath: String, rotation: RotationParameters = RotationParameters()) throws -> PolicyFactory {
        factory(truth: try EvaluationTruth(path: truthPath), rotation: rotation)
    }

    /// The same over a ground truth already read (the one the evaluation's counterfactual
    /// measure reads, so the file is read once).
    public static func factory(truth: EvaluationTruth, rotation: RotationParameters = RotationParameters()) -> PolicyFactory {
        let lines = truth.truth
        return PolicyFactory.scorer(name: "oracle", rotation: rotation, inputFile: truth.file) { user in
            OracleScorer(truth: lines, user: user)
        }
    }
}
