/// A byte shown in a message: `'x'` for printable ASCII, else `byte 0xNN`.
func describeByte(_ c: UInt8) -> String {
    if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
    if c == 0x20 { return "a space" }
    let hex = String(c, radix: 16, uppercase: true)
    return "byte 0x\(c < 16 ? "0" : "")\(hex)"
}

/// Where `bytes` stop being UTF-8, `nil` when they are valid: `"byte 0xED at offset 2"`, the
/// words every door uses for a name that is not UTF-8 (the C API, the command line's arguments).
package func invalidUTF8(_ bytes: some Sequence<UInt8>) -> String? {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let scalar): offset += scalar.count
        case .emptyInput: return nil
        case .error:
            let byte = bytes.dropFirst(offset).first { _ in true }!
            let hex = String(byte, radix: 16, uppercase: true)
            return "byte 0x\(byte < 16 ? "0" : "")\(hex) at offset \(offset)"
        }
    }
}
