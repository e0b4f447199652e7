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

// Rankings and decisions; declarations and documentation in include/smartstack.h.

@c @implementation
public func smartstack_decide(_ engine: OpaquePointer?, _ stack: UnsafePointer<CChar>?, _ user: UnsafePointer<CChar>?,
                              _ atUnixNanoseconds: Int64, _ utcOffsetSeconds: Int32, _ explain: Int32,
                              _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                              _ outLength: UnsafeMutablePointer<Int>?) -> smartstack_status {
    answer(engine, stack, user, atUnixNanoseconds, utcOffsetSeconds, outJSON, outLength) { engine, stack, user, time in
        let decision = try engine.decide(stack: stack, user: user, at: time, explained: explain != 0)
        return RankingJSON.cString(decision, explained: explain != 0)
    }
}

@c @implementation
public func smartstack_decide_packed(_ engine: OpaquePointer?, _ stack: UnsafePointer<CChar>?, _ user: UnsafePointer<CChar>?,
                                     _ atUnixNanoseconds: Int64, _ utcOffsetSeconds: Int32, _ explain: Int32,
                                     _ outDecision: UnsafeMutablePointer<UnsafeMutablePointer<smartstack_decision>?>?)
    -> smartstack_status {
    outDecision?.pointee = nil
    return call(engine) { engine in
        let out = try Arguments.output(outDecision, "out_decision")
        let (stack, user) = (try Arguments.string(stack, "stack"), try Arguments.string(user, "user"))
        let time = try Arguments.time(atUnixNanoseconds, utcOffsetSeconds)
        let decision = try engine.decide(stack: stack, user: user, at: time, explained: explain != 0)
        out.pointee = PackedDecision.make(decision, explained: explain != 0)
    }
}

@c @implementation
public func smartstack_free_decision(_ decision: UnsafeMutablePointer<smartstack_decision>?) {
    free(decision)
}

@c @implementation
public func smartstack_rank(_ engine: OpaquePointer?, _ stack: UnsafePointer<CChar>?, _ user: UnsafePointer<CChar>?,
                            _ atUnixNanoseconds: Int64, _ utcOffsetSeconds: Int32,
                            _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                            _ outLength: UnsafeMutablePointer<Int>?) -> smartstack_status {
    smartstack_rank_explained(engine, stack, user, atUnixNanoseconds, utcOffsetSeconds, 1, outJSON, outLength)
}

@c @implementation
public func smartstack_rank_explained(_ engine: OpaquePointer?, _ stack: UnsafePointer<CChar>?, _ user: UnsafePointer<CChar>?,
                                      _ atUnixNanoseconds: Int64, _ utcOffsetSeconds: Int32, _ explain: Int32,
                                      _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                      _ outLength: UnsafeMutablePointer<Int>?) -> smartstack_status {
    answer(engine, stack, user, atUnixNanoseconds, utcOffsetSeconds, outJSON, outLength) { engine, stack, user, time in
        RankingJSON.cString(try engine.ranking(stack: stack, user: user, at: time, explained: explain != 0), explained: explain != 0)
    }
}

/// The common part of decide and rank: arguments in, JSON out.
private func answer(_ engine: OpaquePointer?, _ stack: UnsafePointer<CChar>?, _ user: UnsafePointer<CChar>?,
                    _ atUnixNanoseconds: Int64, _ utcOffsetSeconds: Int32,
                    _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
                    _ body: (Engine, String, String, EventTime) throws -> (text: UnsafeMutablePointer<CChar>, length: Int))
    -> smartstack_status {
    outJSON?.pointee = nil
    outLength?.pointee = 0
    return call(engine) { engine in
        let out = try Arguments.output(outJSON, "out_json")
        let (text, length) = try body(engine, try Arguments.string(stack, "stack"), try Arguments.string(user, "user"),
                                      try Arguments.time(atUnixNanoseconds, utcOffsetSeconds))
        out.pointee = text
        outLength?.pointee = length
    }
}
