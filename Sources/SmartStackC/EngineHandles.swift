import CSmartStack
import SmartStack
import Synchronization

/// The engines open through the C interface, by handle.
///
/// A `smartstack_engine *` is a token, never dereferenced: the number of the open engine,
/// counting from 1 and never reused. A closed handle, a double close or a pointer the library
/// never returned therefore finds nothing here and becomes `SMARTSTACK_ERROR_CLOSED` instead of a
/// use after free. Looking a handle up holds the lock for one dictionary access.
enum EngineHandles {
    private struct Table {
        var engines: [UInt: Engine] = [:]
        var lastIssued: UInt = 0
    }

    private static let table = Mutex(Table())

    /// Registers `engine` and returns its handle.
    static func open(_ engine: Engine) -> OpaquePointer {
        table.withLock { t in
            t.lastIssued += 1
            t.engines[t.lastIssued] = engine
            return OpaquePointer(bitPattern: t.lastIssued)!
        }
    }

    /// The engine of an open handle.
    /// - Throws: ``CallFailure`` `SMARTSTACK_ERROR_NULL_ARGUMENT` or `SMARTSTACK_ERROR_CLOSED`.
    static func engine(_ handle: OpaquePointer?) throws(CallFailure) -> Engine {
        let number = number(of: handle)
        if let engine = table.withLock({ $0.engines[number] }) { return engine }
        throw notOpen(number)
    }

    /// Removes an open handle and returns its engine: later calls with it fail as closed.
    /// - Throws: ``CallFailure`` as ``engine(_:)``.
    static func remove(_ handle: OpaquePointer?) throws(CallFailure) -> Engine {
        let number = number(of: handle)
        if let engine = table.withLock({ $0.engines.removeValue(forKey: number) }) { return engine }
        throw notOpen(number)
    }

    /// Whether `number` is an open handle's.
    static func isOpen(_ number: UInt) -> Bool {
        table.withLock { $0.engines[number] != nil }
    }

    /// The handle's number (0 for NULL).
    static func number(of handle: OpaquePointer?) -> UInt {
        UInt(bitPattern: handle.map { Int(bitPattern: UnsafeRawPointer($0)) } ?? 0)
    }

    private static func notOpen(_ number: UInt) -> CallFailure {
        if number == 0 { return CallFailure(SMARTSTACK_ERROR_NULL_ARGUMENT, "engine is NULL") }
        let issued = table.withLock { $0.lastIssued }
        if number <= issued {
            return CallFailure(SMARTSTACK_ERROR_CLOSED, "engine handle \(number) is closed (smartstack_close was called on it)")
        }
        return CallFailure(SMARTSTACK_ERROR_CLOSED, "0x\(String(number, radix: 16)) is not an engine handle (smartstack_open never returned it)")
    }
}
