// libFuzzer target: the StudentLife importer (CSV reading, gzip detection and inflation, time
// parsing, stack building). Every input must end in events or a clean ImportError — never a
// crash — and every imported event must survive a JSONL round trip.
import SmartStack
import SmartStackEvaluation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = writeScratchFile(data, size, suffix: ".csv")
    var options = ImportOptions()
    options.skipInvalidRows = size % 2 == 1   // both the strict and the skipping path
    do {
        let result = try ImportFormat.studentlife.importFiles([path], options: options)
        for event in result.events { checkRoundTrip(event, source: "StudentLife importer") }
    } catch {
        if error.description.isEmpty { fatalError("an import error without a message") }
    }
    return 0
}
