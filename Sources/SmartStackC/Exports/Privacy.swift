import CSmartStack
import SmartStack

// Erasing a person or an app; declarations and documentation in include/smartstack.h.

@c @implementation
public func smartstack_erase_user(_ engine: OpaquePointer?, _ user: UnsafePointer<CChar>?,
                                  _ outDeleted: UnsafeMutablePointer<UInt64>?) -> smartstack_status {
    outDeleted?.pointee = 0
    return call(engine) { engine in
        let deleted = try engine.erase(user: try Arguments.string(user, "user"))
        outDeleted?.pointee = UInt64(deleted)
    }
}

@c @implementation
public func smartstack_erase_app(_ engine: OpaquePointer?, _ app: UnsafePointer<CChar>?,
                                 _ outDeleted: UnsafeMutablePointer<UInt64>?) -> smartstack_status {
    outDeleted?.pointee = 0
    return call(engine) { engine in
        let erasure = try engine.erase(app: try Arguments.string(app, "app"))
        outDeleted?.pointee = UInt64(erasure.deletedEvents)
    }
}
