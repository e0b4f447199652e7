import CZlib

/// Compresses bytes into one gzip member (what `gzip -c` writes, without a name or time), for
/// tools and tests that make compressed logs.
///
/// ```swift
/// let compressed = try GzipWriter.compress(Array("{\"user\":\"a\"}\n".utf8))
/// ```
public enum GzipWriter {
    /// `bytes` as a gzip stream.
    ///
    /// - Throws: ``ImportError`` if zlib fails (out of memory).
    /// - Complexity: O(n).
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) throws(ImportError) -> [UInt8] {
        var stream = z_stream()
        guard smartstack_deflate_init2(&stream, level, 15 + 16) == Z_OK else {
            throw ImportError(file: "gzip", message: "cannot initialise zlib")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 32)
        let status = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw ImportError(file: "gzip", message: "zlib error \(status)") }
        output.removeLast(Int(stream.avail_out))
        return output
    }
}
