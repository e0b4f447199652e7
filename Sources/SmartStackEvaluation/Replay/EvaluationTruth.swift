import SmartStack
import SmartStackDatasets

/// The ground truth an evaluation reads for its counterfactual measure (and the `oracle`
/// policy), with the file's identity: partials made with different truth files do not merge.
///
/// ```swift
/// let truth = try EvaluationTruth(path: "Datasets/commuter.truth.jsonl")
/// let report = try Evaluator().evaluate(.files(["Datasets/commuter.jsonl"]), policies: factories, truth: truth)
/// report.policies[0].metrics[.counterfactualEngagement]
/// ```
public struct EvaluationTruth: Sendable {
    /// The lines read.
    public let truth: GroundTruth
    /// The file as given and its digest (`<bytes>:<crc32>`).
    public let file: PolicyInputFile
    /// The number of lines (entries) in the file.
    public var lines: Int { truth.count }

    /// Reads a ground-truth file.
    ///
    /// - Throws: ``GroundTruthError`` naming the file, line and field of the first bad line.
    /// - Complexity: O(n log n) in the file's lines.
    public init(path: String) throws(GroundTruthError) {
        let truth = try GroundTruth.load(path: path)
        self.init(truth: truth, file: PolicyInputFile(path: path, digest: truth.fileDigest ?? ""))
    }

    /// Wraps a ground truth already read; `file` identifies it in reports and partials.
    public init(truth: GroundTruth, file: PolicyInputFile) {
        self.truth = truth
        self.file = file
    }
}
