// libFuzzer target: the CSVLog importer (CSV reading, gzip detection and inflation, time
// parsing, stack building). Every input must end in events or a clean ImportError — never a
// crash — and every imported event must survive a JSONL round trip.
import SmartStack
import SmartStackDatasets

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzImport(.csv, data, size, suffix: ".csv", source: "CSVLog importer") { $0.columns = FuzzCSVMapping.columns(variant: size) }
}

/// The column mapping the seeds use, with the time format varying by input so every time
/// parser is fuzzed.
enum FuzzCSVMapping {
    static func columns(variant: Int) -> CSVColumnMapping {
        var columns = CSVColumnMapping()
        columns.time = "time"
        columns.user = "user"
        columns.app = "app"
        columns.latitude = "lat"
        columns.longitude = "lon"
        columns.accuracy = "accuracy"
        columns.timeFormat = [.unix, .unixMilliseconds, .rfc3339][variant % 3]
        return columns
    }
}
