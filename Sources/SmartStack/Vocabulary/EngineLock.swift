#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a POSIX mutex: the engine's locks (and the C API's, hence `package`).
///
/// Why not `Mutex` (Synchronization): on Linux it locks with raw futex system calls that
/// ThreadSanitizer does not intercept, so every access it guards is reported as a race (checked
/// with a two-line program on this toolchain), and CI runs the engine's concurrency tests under
/// ThreadSanitizer. `pthread_mutex_lock` is intercepted, so real races stay visible.
///
/// `@unchecked Sendable` is the unavoidable consequence: the compiler cannot see that `value` is
/// only touched while `mutex` is held. That invariant is local to this type: `value` is private
/// and read or written only inside ``withLock(_:)``, between lock and unlock. A value that is not
/// `Sendable` (a `UserEngine`) must be handed in at `init` and never escape `withLock` (the
/// engine only returns `Sendable` results from it).
package final class EngineLock<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: consuming sending Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
