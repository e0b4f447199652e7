/// The instants the engine accepts, the same in every door (Swift, the C API and its bindings,
/// the command line): a UTC offset that is a whole number of minutes within ±23:59, and a local
/// date in the years 1678...2261, the range RFC 3339 times in JSONL v1 events may have
/// (`docs/contract.md`, "Time").
extension EventTime {
    /// ±23:59, the largest offset RFC 3339 times in events may carry.
    package static let maximumOffsetSeconds: Int32 = 23 * 3600 + 59 * 60

    /// Local nanoseconds since 1970 from the first instant of ``supportedYears`` to the last.
    package static let supportedLocalNanoseconds: ClosedRange<Int64> = {
        let day: Int64 = 86_400_000_000_000
        return daysFromCivil(year: supportedYears.lowerBound, month: 1, day: 1) * day
            ... daysFromCivil(year: supportedYears.upperBound + 1, month: 1, day: 1) * day - 1
    }()

    /// Whether the offset is one events may carry (whole minutes within ±23:59).
    package var hasSupportedOffset: Bool {
        utcOffsetSeconds % 60 == 0 && abs(utcOffsetSeconds) <= Self.maximumOffsetSeconds
    }

    /// Whether the local date lies in ``supportedYears`` (the offset is not checked).
    package var isInSupportedYears: Bool {
        let (local, overflow) = nanosecondsSinceEpoch.addingReportingOverflow(Int64(utcOffsetSeconds) * 1_000_000_000)
        return !overflow && Self.supportedLocalNanoseconds.contains(local)
    }

    /// Why the engine refuses this instant (`nil` when it accepts it), naming it `name`: the
    /// sentence every door's message contains.
    ///
    /// ```swift
    /// EventTime(nanosecondsSinceEpoch: .max, utcOffsetSeconds: 0).unsupportedReason(name: "at")
    /// // "at (nanoseconds since 1970 9223372036854775807, UTC offset 0 s) is a local time outside the years 1678...2261 of the event format"
    /// ```
    package func unsupportedReason(name: String) -> String? {
        if !hasSupportedOffset {
            return "\(name): the UTC offset of \(utcOffsetSeconds) s \(Self.offsetRule)"
        }
        if !isInSupportedYears {
            return "\(name) (nanoseconds since 1970 \(nanosecondsSinceEpoch), UTC offset \(utcOffsetSeconds) s) \(Self.yearRule)"
        }
        return nil
    }

    /// The end of every door's message for an offset out of range.
    package static let offsetRule = "is not a whole number of minutes within -23:59...+23:59 (-\(maximumOffsetSeconds)...\(maximumOffsetSeconds) s)"

    /// The end of every door's message for an instant out of range.
    package static let yearRule = "is a local time outside the years \(supportedYears.lowerBound)...\(supportedYears.upperBound) of the event format"

    /// `self`, when the engine accepts it.
    /// - Throws: ``EngineError`` of kind ``EngineError/Kind/invalidArgument`` naming `name`.
    package func supported(_ name: String) throws(EngineError) -> EventTime {
        if let reason = unsupportedReason(name: name) { throw EngineError(.invalidArgument, reason) }
        return self
    }

    /// A time from Unix seconds (fractions allowed, rounded to the nearest nanosecond).
    ///
    /// ```swift
    /// let t = try EventTime(secondsSinceEpoch: 1_772_456_400, utcOffsetSeconds: -18_000)   // 2026-03-02T08:00:00-05:00
    /// ```
    /// - Throws: ``EngineError`` of kind ``EngineError/Kind/invalidArgument`` for a number that is
    ///   not finite or whose instant is outside the years 1678...2261, or an offset that is not
    ///   a whole number of minutes within ±23:59: never a wrapped or rounded-away instant.
    public init(secondsSinceEpoch: Double, utcOffsetSeconds: Int32) throws(EngineError) {
        guard secondsSinceEpoch.isFinite else {
            throw EngineError(.invalidArgument, "secondsSinceEpoch \(secondsSinceEpoch) is not a finite number")
        }
        let nanoseconds = (secondsSinceEpoch * 1_000_000_000).rounded()
        // 2^63 is exactly representable; anything at or beyond it cannot be an Int64.
        guard nanoseconds >= -9_223_372_036_854_775_808.0, nanoseconds < 9_223_372_036_854_775_808.0 else {
            throw EngineError(.invalidArgument, "secondsSinceEpoch \(secondsSinceEpoch) \(Self.yearRule)")
        }
        self = try EventTime(nanosecondsSinceEpoch: Int64(nanoseconds), utcOffsetSeconds: utcOffsetSeconds)
            .supported("secondsSinceEpoch \(secondsSinceEpoch)")
    }
}
