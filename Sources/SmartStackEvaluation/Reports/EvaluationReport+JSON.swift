import Foundation

extension EvaluationReport {
    /// `report.json`: pretty-printed, keys sorted, so equal reports are byte-identical.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    /// Reads a report written by `jsonData()`.
    public init(jsonData data: Data) throws {
        self = try JSONDecoder().decode(EvaluationReport.self, from: data)
    }
}
