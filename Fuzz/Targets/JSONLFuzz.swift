// libFuzzer target: the JSONL reader (line splitting, the streaming parser, RFC 3339 times).
// Every input must end in events or clean JSONLErrors — never a crash — and every accepted
// event must survive a JSONL round trip.
import SmartStack

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = JSONLReader(bytes: Array(UnsafeBufferPointer(start: data, count: size)), name: "fuzz")
    var lastFailedLine = -1
    while true {
        do {
            guard let event = try reader.next() else { break }
            checkRoundTrip(event, source: "JSONLReader")
        } catch {
            if error.line <= 0 || error.line == lastFailedLine { break }   // no progress: stop
            if error.description.isEmpty { fatalError("an error without a message") }
            lastFailedLine = error.line
        }
    }
    return 0
}
