// The `smartstack` executable: runs the command line against the real standard streams.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SmartStackCLI

/// Writes to a file descriptor through a buffer, so `export` issues few large writes.
/// Unbuffered (flushed on every write) when the descriptor is a terminal.
final class DescriptorWriter {
    private let descriptor: Int32
    private let isInteractive: Bool
    private var buffer: [UInt8] = []
    private let capacity = 1 << 16
    /// The `errno` of the first failed write (disk full, closed pipe...); later output is dropped.
    private(set) var failure: Int32?

    init(descriptor: Int32, buffered: Bool) {
        self.descriptor = descriptor
        self.isInteractive = !buffered || isatty(descriptor) == 1
        buffer.reserveCapacity(capacity)
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        if buffer.count + bytes.count > capacity { flush() }
        if bytes.count >= capacity {
            writeFully(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
        if isInteractive { flush() }
    }

    func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { writeFully($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeFully(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, var next = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(descriptor, next, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                failure = errno
                return
            }
            remaining -= written
            next += written
        }
    }
}

let standardOutput = DescriptorWriter(descriptor: STDOUT_FILENO, buffered: true)
let standardError = DescriptorWriter(descriptor: STDERR_FILENO, buffered: false)
let output = CommandOutput(
    standardOutput: { standardOutput.append($0) },
    standardError: { text in
        // Keep the order of stdout and stderr as written when both go to one place.
        standardOutput.flush()
        standardError.append(text)
    },
    standardErrorIsTerminal: isatty(STDERR_FILENO) == 1)
output.standardOutputBytes = { standardOutput.append($0) }

// The arguments as bytes: `CommandLine.arguments` would have replaced bytes that are not UTF-8.
let argumentBytes = (1..<Int(CommandLine.argc)).map { i -> [UInt8] in
    Array(UnsafeBufferPointer(start: UnsafeRawPointer(CommandLine.unsafeArgv[i]!).assumingMemoryBound(to: UInt8.self),
                              count: strlen(CommandLine.unsafeArgv[i]!)))
}
var status = CommandLineTool.run(argumentBytes: argumentBytes, output: output)
standardOutput.flush()
if let failure = standardOutput.failure {
    // Output that did not reach its destination is a failure, never a silent success.
    standardError.append("Error: cannot write to standard output: \(String(cString: strerror(failure)))\n")
    if status == 0 { status = 1 }
}
exit(status)
