import CSmartStack
import SmartStack

// Recording; declarations and documentation in include/smartstack.h.

@c @implementation
public func smartstack_configure(_ engine: OpaquePointer?, _ user: UnsafePointer<CChar>?, _ stack: UnsafePointer<CChar>?,
                                 _ widgetIDs: UnsafePointer<UnsafePointer<CChar>?>?,
                                 _ widgetApps: UnsafePointer<UnsafePointer<CChar>?>?, _ widgetCount: Int,
                                 _ atUnixNanoseconds: Int64, _ utcOffsetSeconds: Int32) -> smartstack_status {
    call(engine) { engine in
        let user = try Arguments.string(user, "user")
        let stack = try Arguments.string(stack, "stack")
        var widgets: [WidgetConfig] = []
        let widgetCount = try Arguments.size(widgetCount, "widget_count")
        if widgetCount > 0 {
            let ids = try Arguments.output(UnsafeMutablePointer(mutating: widgetIDs), "widget_ids")
            for i in 0..<widgetCount {
                widgets.append(WidgetConfig(id: try Arguments.string(ids[i], "widget_ids[\(i)]"),
                                            app: try Arguments.optionalString(widgetApps?[i], "widget_apps[\(i)]")))
            }
        }
        let time = try Arguments.time(atUnixNanoseconds, utcOffsetSeconds)
        try engine.configure(stack: stack, widgets: widgets, user: user, at: time)
    }
}

@c @implementation
public func smartstack_record(_ engine: OpaquePointer?, _ jsonl: UnsafePointer<CChar>?, _ length: Int,
                              _ outInserted: UnsafeMutablePointer<UInt64>?,
                              _ outDuplicates: UnsafeMutablePointer<UInt64>?) -> smartstack_status {
    outInserted?.pointee = 0
    outDuplicates?.pointee = 0
    return call(engine) { engine in
        guard let jsonl else { throw CallFailure(SMARTSTACK_ERROR_NULL_ARGUMENT, "jsonl is NULL") }
        let result = try EventBatch.record(UnsafeRawBufferPointer(start: jsonl, count: try Arguments.size(length, "length")), with: engine)
        outInserted?.pointee = UInt64(result.inserted)
        outDuplicates?.pointee = UInt64(result.duplicates)
    }
}
