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
        let truth = try GroundTruth.load(path: truthPath)
        let file = PolicyInputFile(path: truthPath, digest: truth.fileDigest ?? "")
        return PolicyFactory.scorer(name: "oracle", rotation: rotation, inputFile: file) { user in
            OracleScorer(truth: truth, user: user)
        }
    }
}
