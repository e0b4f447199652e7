/// Builds the `oracle` policy: the simulator's ground truth scored by `OracleScorer` under the
/// engine's rotation policy (the ceiling any policy can reach on a simulated dataset).
public enum OracleSupport {
    /// A factory hosting the oracle for each user, reading `truthPath` once.
    public static func factory(truthPath: String) throws -> PolicyFactory {
        throw EvaluationError("this build has no ground-truth support (the simulator module is missing), so '\(truthPath)' cannot be used")
    }
}
