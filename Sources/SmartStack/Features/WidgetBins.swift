/// Where each widget's per-bin values live. `FeatureState.bins` is flat: widget `w` owns the
/// row of `stride` doubles from `w * stride`, holding the blocks below at fixed offsets, so a
/// kernel reads a widget's block through one pointer. `FeatureState.dayMasks` and `maskDays`
/// hold one day bitmap per value of `timeBins` (`timeBins.count` per widget, same slots).
///
/// A new block is one `static var` placed after the last one, with `stride` moved to its end;
/// `FeatureState.internWidget` appends a zero row of `stride` values. Offsets and `stride` are
/// constants once inlined: reading through them costs what a literal index did.
///
/// ```swift
/// fs.bins[WidgetBins.hourCounts.index(w, time.localHour)] += 1
/// ```
enum WidgetBins {
    /// A run of `count` values at `offset` in every widget's row.
    struct Block {
        let offset: Int
        let count: Int

        @inline(__always) init(offset: Int, count: Int) { self.offset = offset; self.count = count }
        /// The block right after `previous`.
        @inline(__always) init(after previous: Block, count: Int) { self.init(offset: previous.end, count: count) }

        @inline(__always) var end: Int { offset + count }

        /// The index in the flat array of value `k` (`0 ..< count`) of widget `w`'s block.
        @inline(__always) func index(_ w: Int, _ k: Int) -> Int { w * WidgetBins.stride + offset + k }
    }

    /// Bins of a day (local 15-minute bins, `CircularTimeKernel`).
    @inline(__always) static var binsPerDay: Int { CircularTimeKernel.bins }
    /// Engagements per local bin, weekdays then weekend days (see `slot(bin:weekend:)`), long decay.
    @inline(__always) static var timeBins: Block { Block(offset: 0, count: 2 * binsPerDay) }
    /// Rejections per local bin (all days), long decay.
    @inline(__always) static var rejections: Block { Block(after: timeBins, count: binsPerDay) }
    /// Engagements per local hour (all days), not decayed: the `time-of-day` baseline.
    @inline(__always) static var hourCounts: Block { Block(after: rejections, count: 24) }
    /// Doubles per widget: the end of the last block.
    @inline(__always) static var stride: Int { hourCounts.end }

    /// The slot of `bin` on a weekday or weekend day, in `timeBins` and in the day bitmaps.
    @inline(__always) static func slot(bin: Int, weekend: Bool) -> Int { (weekend ? binsPerDay : 0) + bin }

    /// The index in `FeatureState.dayMasks` and `maskDays` of widget `w`'s bitmap of `slot`.
    @inline(__always) static func dayMask(_ w: Int, _ slot: Int) -> Int { w * timeBins.count + slot }
}

/// Where each app's time-of-day profile lives in `FeatureState.appHours`: app `a` owns the row
/// of `stride` doubles from `a * stride`. A widget configured after its app was used starts from
/// this row (`FeatureState.configure`), so it knows its app's time of day from its first ranking.
/// Hours, not `WidgetBins`' 15-minute bins: about 0.6 KB per app instead of 1.7 KB, and only the
/// first `FeatureState.maximumProfiledApps` apps a person uses have a row.
enum AppHours {
    /// Launches per local hour, weekdays then weekend days, long decay (`WidgetBins.timeBins` by hour).
    @inline(__always) static var launches: WidgetBins.Block { WidgetBins.Block(offset: 0, count: 48) }
    /// Launches per local hour (all days), not decayed (`WidgetBins.hourCounts`).
    @inline(__always) static var hourCounts: WidgetBins.Block { WidgetBins.Block(after: launches, count: 24) }
    /// Doubles per app.
    @inline(__always) static var stride: Int { hourCounts.end }

    /// The index in `FeatureState.appHours` of value `k` of app `a`'s `block`.
    @inline(__always) static func index(_ block: WidgetBins.Block, _ a: Int, _ k: Int) -> Int { a * stride + block.offset + k }
}
