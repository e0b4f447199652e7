/// A byte shown in a message: `'x'` for printable ASCII, else `byte 0xNN`.
func describeByte(_ c: UInt8) -> String {
    if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
    if c == 0x20 { return "a space" }
    let hex = String(c, radix: 16, uppercase: true)
    return "byte 0x\(c < 16 ? "0" : "")\(hex)"
}
