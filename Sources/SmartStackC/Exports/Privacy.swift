import CSmartStack
import SmartStack

// Erasing a person or an app; declarations and documentation in include/smartstack.h.

@c @implementation
public func smartstack_erase_user(_ engine: OpaquePointer?, _ user: UnsafePointer<CChar>?,
                                  _ outDeleted: UnsafeMutablePointer<UInt64>?) -> smartstack_status {
    erase(engine, user, "user", outDeleted) { try $0.erase(user: $1) }
}

@c @implementation
public func smartstack_erase_app(_ engine: OpaquePointer?, _ app: UnsafePointer<CChar>?,
                                 _ outDeleted: UnsafeMutablePointer<UInt64>?) -> smartstack_status {
    erase(engine, app, "app", outDeleted) { try $0.erase(app: $1).deletedEvents }
}

/// The common part of both erasures: the name in, the count of deleted events out.
private func erase(_ engine: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ argument: String,
                   _ outDeleted: UnsafeMutablePointer<UInt64>?, _ body: (Engine, String) throws -> Int) -> smartstack_status {
    outDeleted?.pointee = 0
    return call(engine) { engine in
        let deleted = try body(engine, try Arguments.string(name, argument))   // even when outDeleted is NULL
        outDeleted?.pointee = UInt64(deleted)
    }
}
