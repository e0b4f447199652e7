// libFuzzer target: the StudentLife importer (CSV reading, gzip detection and inflation, time
// parsing, stack building). Every input must end in events or a clean ImportError — never a
// crash — and every imported event must survive a JSONL round trip.
import SmartStack
import SmartStackDatasets

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzImport(.studentlife, data, size, suffix: ".csv", source: "StudentLife importer")
}
