extension StaticString {
    /// The literal as a C string: static storage, NUL-terminated, never freed.
    var cString: UnsafePointer<CChar> {
        UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
