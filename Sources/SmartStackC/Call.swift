import CSmartStack
import SmartStack

/// Runs one call of the C interface on an open engine. Whatever `body` throws becomes the
/// returned status and the calling thread's last error; nothing escapes to the C caller.
func call(_ handle: OpaquePointer?, _ body: (Engine) throws -> Void) -> smartstack_status {
    do {
        try body(try EngineHandles.engine(handle))
        return SMARTSTACK_OK
    } catch {
        return failed(error, handle: EngineHandles.number(of: handle))
    }
}

/// Keeps the message of `error` as the calling thread's last error on `handle` (and under no
/// handle too when `handle` is not open, where a caller also looks) and returns its status.
func failed(_ error: any Error, handle: UInt) -> smartstack_status {
    let failure = CallFailure(error)
    if handle == LastError.noHandle || !EngineHandles.isOpen(handle) {
        LastError.set(failure.message, handle: LastError.noHandle)
    }
    if handle != LastError.noHandle { LastError.set(failure.message, handle: handle) }
    return failure.status
}
