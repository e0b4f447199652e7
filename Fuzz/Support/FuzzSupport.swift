// Shared by every fuzz target (compiled into each target's executable by .ci/fuzz.sh).
import SmartStack
import SmartStackDatasets
#if canImport(Glibc)
import Glibc
#endif

/// What a fuzz target checks about events it got from untrusted input: each one is written as
/// canonical JSONL and read back as the same event, so anything a parser or importer accepts
/// can be stored, exported and ingested again. A difference is a bug: trap, so libFuzzer saves
/// the input.
func checkRoundTrip(_ event: Event, source: String) {
    let line = JSONLWriter.line(for: event)
    var reader = JSONLReader(bytes: Array(line.utf8), name: "round-trip")
    let back: Event?
    do {
        back = try reader.next()
    } catch {
        fatalError("\(source) produced an event its own JSONL cannot express: \(line): \(error)")
    }
    guard let back, back == event else {
        fatalError("\(source) event changed in a JSONL round trip: \(event) became \(String(describing: back))")
    }
}

/// Writes the input to this process's scratch file (importers read files) and returns its path.
func writeScratchFile(_ data: UnsafePointer<UInt8>, _ size: Int, suffix: String) -> String {
    let path = "/tmp/smartstack-fuzz-\(getpid())\(suffix)"
    guard let file = fopen(path, "wb") else { fatalError("cannot write the scratch file \(path)") }
    if size > 0 { _ = fwrite(data, 1, size, file) }
    fclose(file)
    return path
}

/// The body of every importer target: the input as a scratch file named with `suffix`, imported
/// with `format` strictly or skipping invalid rows (alternately, by size), then every event's
/// JSONL round trip checked. An input must end in events or in an error with a message.
func fuzzImport(_ format: ImportFormat, _ data: UnsafePointer<UInt8>, _ size: Int, suffix: String, source: String,
                configure: (inout ImportOptions) -> Void = { _ in }) -> CInt {
    let path = writeScratchFile(data, size, suffix: suffix)
    var options = ImportOptions()
    options.skipInvalidRows = size % 2 == 1   // both the strict and the skipping path
    configure(&options)
    do {
        let result = try format.importFiles([path], options: options)
        for event in result.events { checkRoundTrip(event, source: source) }
    } catch {
        if error.description.isEmpty { fatalError("an import error without a message") }
    }
    return 0
}
