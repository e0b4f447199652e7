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

// Opening, closing and the library's own state; declarations and documentation in
// include/smartstack.h, which `@c @implementation` checks each signature against.

@c @implementation
public func smartstack_version() -> UnsafePointer<CChar>? {
    ("0.1.0" as StaticString).cString
}

@c @implementation
public func smartstack_last_error(_ engine: OpaquePointer?) -> UnsafePointer<CChar>? {
    LastError.message(handle: EngineHandles.number(of: engine))
}

@c @implementation
public func smartstack_open(_ path: UnsafePointer<CChar>?, _ policy: UnsafePointer<CChar>?,
                            _ rotation: UnsafePointer<CChar>?, _ seed: UInt64,
                            _ outEngine: UnsafeMutablePointer<OpaquePointer?>?) -> smartstack_status {
    open(path, policy, rotation, seed, prior: nil, outEngine)
}

@c @implementation
public func smartstack_open_with_prior(_ path: UnsafePointer<CChar>?, _ policy: UnsafePointer<CChar>?,
                                       _ rotation: UnsafePointer<CChar>?, _ seed: UInt64, _ priorPath: UnsafePointer<CChar>?,
                                       _ outEngine: UnsafeMutablePointer<OpaquePointer?>?) -> smartstack_status {
    open(path, policy, rotation, seed, prior: priorPath, outEngine)
}

/// Both open calls: the arguments checked in order, the prior read before the log is opened.
private func open(_ path: UnsafePointer<CChar>?, _ policy: UnsafePointer<CChar>?, _ rotation: UnsafePointer<CChar>?, _ seed: UInt64,
                  prior: UnsafePointer<CChar>?, _ outEngine: UnsafeMutablePointer<OpaquePointer?>?) -> smartstack_status {
    outEngine?.pointee = nil
    do {
        let out = try Arguments.output(outEngine, "out_engine")
        let path = try Arguments.string(path, "path")
        let policy = try Arguments.optionalString(policy, "policy").map { try PolicySpec(parsing: $0) }
        let rotation = try Arguments.optionalString(rotation, "rotation").map { try RotationParameters(parsing: $0) }
        let prior = try Arguments.optionalString(prior, "prior_path").map { try PopulationPrior(contentsOfFile: $0) }
        let engine = try Engine(path: path, policy: policy ?? PolicySpec(name: PolicyRegistry.defaultPolicy),
                                rotation: rotation ?? RotationParameters(), seed: seed, prior: prior)
        out.pointee = EngineHandles.open(engine)
        return SMARTSTACK_OK
    } catch {
        return failed(error, handle: LastError.noHandle)
    }
}

@c @implementation
public func smartstack_close(_ engine: OpaquePointer?) -> smartstack_status {
    do {
        // Out of the table first: no new call starts on it; calls under way finish or fail as closed.
        try EngineHandles.remove(engine).close()
        return SMARTSTACK_OK
    } catch {
        return failed(error, handle: EngineHandles.number(of: engine))
    }
}

@c @implementation
public func smartstack_flush(_ engine: OpaquePointer?) -> smartstack_status {
    call(engine) { try $0.flush() }
}

@c @implementation
public func smartstack_free(_ buffer: UnsafeMutablePointer<CChar>?) {
    free(buffer)
}
