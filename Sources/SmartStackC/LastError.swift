#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(Darwin)
import Darwin
#endif

/// Each thread's last error message per handle: what `smartstack_last_error` returns.
///
/// Per thread, so two threads failing at once on one engine each read their own message; the
/// text lives until the thread's next failure on the same handle (or the thread's exit), which
/// keeps the "valid until your next call" promise of the header.
enum LastError {
    /// Handle number under which calls without a valid handle keep their message.
    static let noHandle: UInt = 0

    /// The message of the calling thread's last failure on `handle` ("" when none).
    static func message(handle: UInt) -> UnsafePointer<CChar> {
        if let messages = current(creating: false), let text = messages.texts[handle] { return UnsafePointer(text) }
        return emptyText
    }

    /// Keeps `message` as the calling thread's last error on `handle`.
    static func set(_ message: String, handle: UInt) {
        let messages = current(creating: true)!
        if let old = messages.texts.updateValue(strdup(message)!, forKey: handle) { free(old) }
        // Forget closed handles' messages (not this one's: the caller is about to read it).
        for number in messages.texts.keys where number != handle && number != noHandle && !EngineHandles.isOpen(number) {
            free(messages.texts.removeValue(forKey: number))
        }
    }

    private static var emptyText: UnsafePointer<CChar> { ("" as StaticString).cString }

    /// One thread's messages, owned by its thread-specific slot and freed when the thread exits.
    private final class ThreadMessages {
        var texts: [UInt: UnsafeMutablePointer<CChar>] = [:]
        deinit { for text in texts.values { free(text) } }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { slot in
            let slot: UnsafeMutableRawPointer? = slot   // optional on Glibc, not on Darwin
            if let slot { Unmanaged<ThreadMessages>.fromOpaque(slot).release() }
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    private static func current(creating: Bool) -> ThreadMessages? {
        if let slot = pthread_getspecific(key) { return Unmanaged<ThreadMessages>.fromOpaque(slot).takeUnretainedValue() }
        guard creating else { return nil }
        let messages = ThreadMessages()
        pthread_setspecific(key, Unmanaged.passRetained(messages).toOpaque())
        return messages
    }
}
