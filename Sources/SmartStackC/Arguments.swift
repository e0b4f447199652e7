import CSmartStack
import SmartStack

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading the arguments of a C call, each failure a ``CallFailure`` that names the argument.
enum Arguments {
    /// A required NUL-terminated UTF-8 string.
    static func string(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(CallFailure) -> String {
        guard let pointer else { throw CallFailure(SMARTSTACK_ERROR_NULL_ARGUMENT, "\(name) is NULL") }
        return try decode(pointer, name)
    }

    /// An optional NUL-terminated UTF-8 string (NULL: `nil`).
    static func optionalString(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(CallFailure) -> String? {
        guard let pointer else { return nil }
        return try decode(pointer, name)
    }

    /// A required output pointer.
    static func output<T>(_ pointer: UnsafeMutablePointer<T>?, _ name: String) throws(CallFailure) -> UnsafeMutablePointer<T> {
        guard let pointer else { throw CallFailure(SMARTSTACK_ERROR_NULL_ARGUMENT, "\(name) is NULL") }
        return pointer
    }

    /// A `size_t` count: Swift sees one above `Int.max` as negative, which only a caller's
    /// arithmetic gone wrong produces (no array is that large).
    static func size(_ value: Int, _ name: String) throws(CallFailure) -> Int {
        guard value >= 0 else {
            throw CallFailure(SMARTSTACK_ERROR_INVALID_ARGUMENT, "\(name) \(UInt(bitPattern: value)) is larger than any array can be")
        }
        return value
    }

    /// An instant as the header defines it: nanoseconds since the epoch and a UTC offset in
    /// seconds, both within what the JSONL v1 format can write (the engine's one range,
    /// `EventTime+Range.swift`), named by the header's argument names.
    static func time(_ unixNanoseconds: Int64, _ utcOffsetSeconds: Int32) throws(CallFailure) -> EventTime {
        let time = EventTime(nanosecondsSinceEpoch: unixNanoseconds, utcOffsetSeconds: utcOffsetSeconds)
        guard time.hasSupportedOffset else {
            throw CallFailure(SMARTSTACK_ERROR_INVALID_ARGUMENT, "utc_offset_seconds \(utcOffsetSeconds) \(EventTime.offsetRule)")
        }
        guard time.isInSupportedYears else {
            throw CallFailure(SMARTSTACK_ERROR_INVALID_ARGUMENT,
                              "at_unix_ns \(unixNanoseconds) with utc_offset_seconds \(utcOffsetSeconds) \(EventTime.yearRule)")
        }
        return time
    }

    private static func decode(_ pointer: UnsafePointer<CChar>, _ name: String) throws(CallFailure) -> String {
        if let text = String(validatingCString: pointer) { return text }
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
        throw CallFailure(SMARTSTACK_ERROR_INVALID_UTF8, "\(name) is not valid UTF-8: \(invalidUTF8(bytes) ?? "an invalid byte")")
    }
}
