import CZlib
import Foundation

/// Reads a whole input file, transparently decompressing gzip (detected by its magic bytes,
/// not by the file name), so `gps.csv` and `gps.csv.gz` are read the same way.
///
/// ```swift
/// let bytes = try GzipReader.contents(ofFile: "running_apps.csv.gz")
/// ```
public enum GzipReader {
    /// The file's bytes, decompressed if the file is gzip (several concatenated gzip members
    /// are read one after another, as `gzip -d` does).
    ///
    /// - Throws: ``ImportError`` naming the file when it is missing, unreadable, truncated
    ///   (the compressed stream ends early) or corrupt.
    /// - Complexity: O(n) in the decompressed size.
    public static func contents(ofFile path: String) throws(ImportError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportError(file: path, message: "no such file")
        }
        guard !isDirectory.boolValue else { throw ImportError(file: path, message: "is a directory, not a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportError(file: path, message: "cannot read the file (permission denied?)")
        }
        let raw = [UInt8](data)
        guard isGzip(raw) else { return raw }
        return try inflate(raw, name: path)
    }

    /// Whether `bytes` start with the gzip magic number `1f 8b`.
    public static func isGzip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
    }

    /// Decompresses gzip (or zlib) `bytes`; `name` is used in error messages.
    ///
    /// - Throws: ``ImportError`` when the stream is truncated or corrupt.
    /// - Complexity: O(n) in the decompressed size.
    public static func inflate(_ bytes: [UInt8], name: String) throws(ImportError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 4)
        let result: ImportError? = bytes.withUnsafeBufferPointer { input -> ImportError? in
            var stream = z_stream()
            guard smartstack_inflate_init2(&stream, 15 + 32) == Z_OK else {
                return ImportError(file: name, message: "cannot initialise zlib")
            }
            defer { inflateEnd(&stream) }
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_OK:
                    continue
                case Z_STREAM_END:
                    // Another gzip member may follow (concatenated files); trailing zero
                    // padding is tolerated like gzip does.
                    let rest = Int(stream.avail_in)
                    if rest == 0 { return nil }
                    let offset = input.count - rest
                    if input[offset...].allSatisfy({ $0 == 0 }) { return nil }
                    guard inflateReset(&stream) == Z_OK else {
                        return ImportError(file: name, message: "cannot read the next gzip member")
                    }
                case Z_BUF_ERROR where stream.avail_in == 0:
                    return ImportError(
                        file: name,
                        message: "truncated gzip file: the compressed data ends before the end of the stream "
                            + "(\(input.count) bytes read, \(output.count) bytes decompressed); "
                            + "the file is incomplete, download or copy it again")
                case Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR, Z_MEM_ERROR, Z_BUF_ERROR:
                    let detail = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                    return ImportError(
                        file: name,
                        message: "corrupt gzip data after \(input.count - Int(stream.avail_in)) compressed bytes: \(detail)")
                default:
                    return ImportError(file: name, message: "zlib error \(status)")
                }
            }
        }
        if let result { throw result }
        return output
    }
}
