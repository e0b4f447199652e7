/// Everything SmartStack learns about one person from their events, updated incrementally in
/// O(1) amortised work per event and read in O(widgets) per ranking.
///
/// Signals (all counts of *engagements*: a launch of a widget's app or a tap on the widget;
/// a swipe to a widget counts as half an engagement):
/// - **usage**: per-widget counts decayed with the long half-life (default 14 days), a short-term
///   recency count (default half-life 1 hour), the last use and all-time totals;
/// - **time of day**: decayed counts in 96 local 15-minute bins, separately for weekdays and
///   weekends (read through `CircularTimeKernel`), plus a 32-day bitmap per bin for explanations;
///   per app, the same by hour (`AppHours`), so that a widget configured after its app was used
///   starts with the app's usage and time of day (and the apps it followed, below; its place,
///   higher-order sequence and context counts start from nothing);
/// - **place**: the current visit from `place` events and `location` fixes clustered by
///   `PlaceClusterer`, held until evidence of leaving with a confidence learned from the
///   person's stays (`PlaceTracker`); counts per (place, widget), weighted by that confidence;
/// - **sequence**: counts per (previous app, widget) and per (previous app, gap bucket, widget),
///   gap buckets < 5 min, < 30 min, < 2 h, < 12 h (older previous apps give no signal), the same
///   per app launched (`AppTransitions`, bounded) for widgets configured later, and per
///   context of the last two and three apps (`SequenceModel`, bounded); the same contexts again
///   over the apps of configured widgets only (`routines`), so a routine ("a, then b") is still
///   recognised when an unrelated app came between its steps;
/// - **context**: counts per (key=value, widget) for every key currently set, and for the UTC
///   offset of the moment (`utc_offset=+01:00`, an implicit key: the person is abroad);
/// - **hints**: each widget's current relevance hint and the running max / mean of its own
///   positive hints; **feedback**: swipes away (weight 1) and ignored impressions (weight 0.25) as
///   decayed time-of-day counts. An impression is ignored when, within 10 minutes of it, the
///   person engages another widget of the same stack before the one shown: they wanted something
///   else and saw this. An impression followed by no engagement of the stack at all (a glance at
///   the phone) is no evidence against the widget shown: counting those would penalise whatever
///   is shown most, i.e. the widgets most often right.
/// - **pins** per stack.
///
/// Late events (older than the newest seen) are accepted and never reorder anything: counts
/// get the decay weight of their own time (exact, as if on time), time-of-day bins and day
/// bitmaps use their own local time, but the place, context and previous app they are counted
/// under are the ones current when they arrive. A late hint, pin, context, place or stack
/// configuration older than the one in force is kept out of the current state (hint max/mean
/// still learn from it).
///
/// A reference type so rankings read it in place without copying its arrays; every stored
/// property opts out of dynamic exclusivity checks (`@exclusivity(unchecked)`): the state is
/// only touched from its owning `UserEngine`, one call at a time, never with overlapping access.
final class FeatureState: Codable {
    static let never = -Double.infinity
    static let impressionWindow = 600.0
    /// A fix wider than a place names a known place when it more likely than not comes from
    /// there (`PlaceClusterer.likeliestPlace`).
    static let coarseFixLevel = 0.5
    /// Distinct place labels kept; further labels count as an unknown place.
    static let maximumPlaceLabels = 1000
    static let gapBounds: [Double] = [300, 1800, 7200, 43_200]
    /// Apps with a time-of-day profile (`AppHours`), in order of first use: about 2.4 MB at most.
    /// A widget of a later app configured after its app was used starts from its totals only.
    static let maximumProfiledApps = 4096

    @exclusivity(unchecked) var longClock: DecayClock
    @exclusivity(unchecked) var recentClock: DecayClock
    @exclusivity(unchecked) var frecencyClock: DecayClock
    @exclusivity(unchecked) var kernel: CircularTimeKernel
    @exclusivity(unchecked) var newest = FeatureState.never

    @exclusivity(unchecked) var widgets = Interner()
    @exclusivity(unchecked) var apps = Interner()
    @exclusivity(unchecked) var stacks = Interner()
    @exclusivity(unchecked) var places = Interner()
    @exclusivity(unchecked) var contextKeys = Interner()
    @exclusivity(unchecked) var pairs = Interner()

    // Stacks.
    @exclusivity(unchecked) var stackWidgets: [[Int32]] = []
    @exclusivity(unchecked) var stackConfigs: [[WidgetConfig]] = []
    @exclusivity(unchecked) var stackConfigTime: [Double] = []
    @exclusivity(unchecked) var stackPins: [Int32] = []
    @exclusivity(unchecked) var stackPinTime: [Double] = []
    @exclusivity(unchecked) var stackShown: [Int32] = []        // widget of the latest impression not yet settled, -1 none
    @exclusivity(unchecked) var stackShownAt: [Double] = []
    @exclusivity(unchecked) var stackShownBin: [Int16] = []
    @exclusivity(unchecked) var stackShownPropensity: [Double] = []   // of the pending impression (1 when not logged)
    /// The display lift of each stack and the engagement rates when shown (`DisplayLift`), kept
    /// when `discountsDisplay`.
    @exclusivity(unchecked) var displayLift = DisplayLift()
    /// Whether an engagement of the widget shown is discounted by the stack's display lift, so
    /// that the counts learn intent rather than exposure: the policies that learn a model
    /// (`contextual`, `bandit`); the counting baselines count every engagement, as they always have.
    @exclusivity(unchecked) var discountsDisplay = false

    // Per widget: scalars in `WidgetSignals`, per-bin values laid out by `WidgetBins`.
    @exclusivity(unchecked) var signals: [WidgetSignals] = []
    @exclusivity(unchecked) var bins: [Double] = []
    @exclusivity(unchecked) var dayMasks: [UInt32] = []        // WidgetBins.dayMask(w, slot): bit i = used on day (maskDay - i)
    @exclusivity(unchecked) var maskDays: [Int32] = []

    // Per app (cold start of widgets configured after their app was used).
    @exclusivity(unchecked) var appWidgets: [[Int32]] = []
    @exclusivity(unchecked) var appUsage: [Double] = []
    @exclusivity(unchecked) var appRecent: [Double] = []
    @exclusivity(unchecked) var appLastUsed: [Double] = []
    @exclusivity(unchecked) var appTotal: [Double] = []
    /// Time-of-day profiles of the first `maximumProfiledApps` apps, laid out by `AppHours`.
    @exclusivity(unchecked) var appHours: [Double] = []
    /// Which app the first `maximumProfiledApps` apps followed (the widgets' `appTable` and
    /// `appGapTable`, kept per app).
    @exclusivity(unchecked) var appTransitions = AppTransitions()

    // Context tables.
    @exclusivity(unchecked) var placeTable = ContextTable()
    @exclusivity(unchecked) var appTable = ContextTable()
    @exclusivity(unchecked) var appGapTable = ContextTable()
    @exclusivity(unchecked) var pairTable = ContextTable()
    @exclusivity(unchecked) var sequence = SequenceModel()
    /// The contexts of `sequence` over the history of configured widgets' apps only: the
    /// back-off of a context that an unrelated app broke (`ContextualModel`).
    @exclusivity(unchecked) var routines = SequenceModel()
    /// Time since the person's day began, and engagement counts per band of it.
    @exclusivity(unchecked) var wakeClock = WakeClock()
    @exclusivity(unchecked) var awakeTable = ContextTable()

    // Current context.
    @exclusivity(unchecked) var lastApp: Int32 = -1
    @exclusivity(unchecked) var lastAppTime = FeatureState.never
    @exclusivity(unchecked) var visits = PlaceTracker()
    /// Pseudo-visits pulling a place's stay durations toward the person's (the model's `prior`).
    @exclusivity(unchecked) var visitPrior: Double
    @exclusivity(unchecked) var placeLabels = 0
    @exclusivity(unchecked) var placeIsCluster: [Bool] = []
    @exclusivity(unchecked) var clusterer = PlaceClusterer()
    @exclusivity(unchecked) var clusterPlaces: [Int32] = []
    @exclusivity(unchecked) var currentPairs: [Int32] = []     // by context key
    @exclusivity(unchecked) var pairTime: [Double] = []
    /// The implicit context of each UTC offset seen at an engagement (`utc_offset=+01:00`):
    /// its offset and its pair, in order of first use.
    @exclusivity(unchecked) var offsetPairOffsets: [Int32] = []
    @exclusivity(unchecked) var offsetPairs: [Int32] = []

    // Days with any engagement, for "k of the last n weekdays".
    @exclusivity(unchecked) var activeMask: UInt32 = 0
    @exclusivity(unchecked) var activeDay: Int32 = Int32.min

    init(halfLife: Double, recentHalfLife: Double, frecencyHalfLife: Double, bandwidth: Double, prior: Double) {
        visitPrior = prior
        longClock = DecayClock(halfLife: halfLife)
        recentClock = DecayClock(halfLife: recentHalfLife)
        frecencyClock = DecayClock(halfLife: frecencyHalfLife)
        kernel = CircularTimeKernel(bandwidth: bandwidth)
    }

    // MARK: Recording

    /// Learns from one event, read in place (see `UserEngine.record(at:)`).
    func record(at event: UnsafePointer<Event>) {
        let t = event.pointee.time
        let ts = t.secondsSinceEpoch
        if longClock.needsRescale(at: ts) { rescaleLong(to: ts) }
        if recentClock.needsRescale(at: ts) { rescaleRecent(to: ts) }
        if frecencyClock.needsRescale(at: ts) {
            let f = frecencyClock.factor(at: ts)
            for w in signals.indices { signals[w].rescale(.frecency, by: f) }
            frecencyClock.origin = ts
        }
        switch event.pointee.payload {
        case .stackConfig(let stack, let configs):
            configure(stack: stack, widgets: configs, at: ts)
        case .appLaunch(let app):
            wakeClock.activity(at: ts)
            let a = Int(internApp(app))
            let lw = longClock.weight(at: ts)
            appUsage[a] += lw
            appRecent[a] += recentClock.weight(at: ts)
            appLastUsed[a] = max(appLastUsed[a], ts)
            appTotal[a] += 1
            if a < Self.maximumProfiledApps {
                let hour = t.localHour
                appHours[AppHours.index(AppHours.launches, a, (t.isWeekend ? 24 : 0) + hour)] += lw
                appHours[AppHours.index(AppHours.hourCounts, a, hour)] += 1
                if let (p, bucket) = previousApp(at: ts) { appTransitions.add(lw, previous: p, bucket: bucket, app: a) }
            }
            for w in appWidgets[a] { engage(Int(w), at: t, weight: 1) }
            if ts >= lastAppTime { lastApp = Int32(a); lastAppTime = ts }
            sequence.launched(Int32(a), at: ts)
            if !appWidgets[a].isEmpty { routines.launched(Int32(a), at: ts) }
        case .widgetTap(let widget, _):
            wakeClock.activity(at: ts)
            engage(Int(internWidget(widget)), at: t, weight: 1)
        case .widgetSwipe(let stack, let from, let to):
            let s = Int(internStack(stack))
            let f = Int(internWidget(from))
            // The swipe away is the explicit rejection: the impression it answers is settled.
            if stackShown[s] == Int32(f) {
                if discountsDisplay { settleLift(stack: s, shownEngaged: false, anyEngaged: true) }
                stackShown[s] = -1
            }
            addRejection(f, atSecond: t.localSecondsOfDay, time: ts, weight: 1)
            engage(Int(internWidget(to)), at: t, weight: 0.5)
        case .widgetImpression(let stack, let widget, let propensity, _):
            let s = Int(internStack(stack))
            let w = internWidget(widget)
            if ts >= stackShownAt[s] {
                // An impression still pending when the next one comes was followed by nothing.
                if discountsDisplay && stackShown[s] >= 0 { settleLift(stack: s, shownEngaged: false, anyEngaged: false) }
                stackShown[s] = w; stackShownAt[s] = ts
                stackShownBin[s] = Int16(CircularTimeKernel.bin(ofSecond: t.localSecondsOfDay))
                stackShownPropensity[s] = propensity.flatMap { $0.isFinite && $0 > 0 && $0 <= 1 ? $0 : nil } ?? 1
            }
        case .widgetPin(let stack, let widget):
            let s = Int(internStack(stack))
            let w = internWidget(widget)
            if ts >= stackPinTime[s] { stackPins[s] = w; stackPinTime[s] = ts }
        case .widgetUnpin(let stack, let widget):
            let s = Int(internStack(stack))
            if let w = widgets.index(of: widget), stackPins[s] == w, ts >= stackPinTime[s] {
                stackPins[s] = -1; stackPinTime[s] = ts
            }
        case .screenOn:
            wakeClock.activity(at: ts)
        case .location(let lat, let lon, let accuracy):
            guard ts >= visits.newest else { break }
            // The clusterer as an inout argument: a method called on the stored property (or
            // through a pointer) would first copy it, five arrays retained and released per fix.
            recordFix(lat: lat, lon: lon, accuracy: accuracy, at: ts, clusterer: &clusterer)
        case .place(let label):
            guard ts >= visits.newest else { break }
            var p = places.index(of: label) ?? -1
            if p < 0 && placeLabels < Self.maximumPlaceLabels {
                p = internPlace(label, isCluster: false)
                placeLabels += 1
            }
            visits.label(p, at: ts, prior: visitPrior, decay: longClock.weight(at: ts))
        case .context(let key, let value):
            let k = Int(contextKeys.intern(key))
            if k >= currentPairs.count { currentPairs.append(-1); pairTime.append(Self.never) }
            if ts >= pairTime[k] { currentPairs[k] = pairs.intern(key + "=" + value); pairTime[k] = ts }
        case .relevance(let widget, let score, let duration):
            let w = Int(internWidget(widget))
            guard score.isFinite else { break }
            if score > 0 {
                signals[w].hintMax = max(signals[w].hintMax, score); signals[w].hintSum += score; signals[w].hintCount += 1
            }
            if ts >= signals[w].hintStart {
                signals[w].hintScore = score; signals[w].hintStart = ts; signals[w].hintOffset = t.utcOffsetSeconds
                if let d = duration, d > 0, d.isFinite { signals[w].hintEnd = ts + d } else { signals[w].hintEnd = .infinity }
            }
        }
        newest = max(newest, ts)
    }

    /// Counts one engagement of widget `w` under the current context (discounted by the display
    /// lift when `w` is the widget shown on a stack and `discountsDisplay`).
    func engage(_ w: Int, at t: EventTime, weight given: Double) {
        let ts = t.secondsSinceEpoch
        let weight = discountsDisplay ? given * displayDiscount(w, at: ts) : given
        let lw = longClock.weight(at: ts) * weight
        let second = t.localSecondsOfDay
        let slot = WidgetBins.slot(bin: CircularTimeKernel.bin(ofSecond: second), weekend: t.isWeekend)
        signals[w].usage += lw
        signals[w].recent += recentClock.weight(at: ts) * weight
        signals[w].frecency += frecencyClock.weight(at: ts) * weight
        if ts >= signals[w].lastUsed { signals[w].lastUsed = ts; signals[w].lastUsedOffset = t.utcOffsetSeconds }
        signals[w].totalUses += weight
        bins[WidgetBins.hourCounts.index(w, second / 3600)] += weight
        bins[WidgetBins.timeBins.index(w, slot)] += lw
        if let (p, confidence) = place(at: ts) { placeTable.add(lw * confidence, Int(p), w) }
        if let (a, bucket) = previousApp(at: ts) {
            appTable.add(lw, a, w)
            appGapTable.add(lw, a * 4 + bucket, w)
        }
        sequence.engage(w, at: ts, weight: lw)
        routines.engage(w, at: ts, weight: lw)
        let band = wakeClock.band(at: ts)
        if band >= 0 { awakeTable.add(lw, band, w) }
        for pair in currentPairs where pair >= 0 { pairTable.add(lw, Int(pair), w) }
        pairTable.add(lw, Int(internOffsetPair(t.utcOffsetSeconds)), w)
        markDay(Int32(t.localDayNumber), mask: WidgetBins.dayMask(w, slot))
        settleImpressions(engaged: w, at: ts)
    }

    /// Settles the pending impression of every stack holding widget `w`, engaged at `ts`: no
    /// evidence if `w` is the widget shown, a quarter rejection of the widget shown (at the time
    /// of day it was shown) if `w` is another widget of the stack engaged within
    /// `impressionWindow` of the impression. Impressions older than the window expire unsettled.
    private func settleImpressions(engaged w: Int, at ts: Double) {
        for s in 0..<stackShown.count where stackShown[s] >= 0 {
            let shownAt = stackShownAt[s]
            guard ts >= shownAt else { continue }
            let shown = Int(stackShown[s])
            if ts - shownAt > Self.impressionWindow || shown == w {
                if discountsDisplay { settleLift(stack: s, shownEngaged: shown == w && ts - shownAt <= Self.impressionWindow,
                                                 anyEngaged: ts - shownAt <= Self.impressionWindow) }
                stackShown[s] = -1
            } else if stackWidgets[s].contains(Int32(w)) {
                bins[WidgetBins.rejections.index(shown, Int(stackShownBin[s]))] += longClock.weight(at: shownAt) * 0.25
                signals[shown].rejectionTotal += 0.25
                if discountsDisplay { settleLift(stack: s, shownEngaged: false, anyEngaged: true) }
                stackShown[s] = -1
            }
        }
    }

    /// Settles stack `s`'s pending impression in the display lift's estimate (randomised
    /// impressions only: a deterministic one says nothing of the lift).
    private func settleLift(stack s: Int, shownEngaged: Bool, anyEngaged: Bool) {
        guard stackShownPropensity[s] < 1 else { return }
        displayLift.settle(stack: s, widget: Int(stackShown[s]), propensity: stackShownPropensity[s], size: stackWidgets[s].count,
                           shownEngaged: shownEngaged, anyEngaged: anyEngaged, weight: longClock.weight(at: stackShownAt[s]))
    }

    /// The weight an engagement of widget `w` at `ts` carries: the share of it the person's
    /// intent explains when `w` is the widget shown on a stack within the impression window
    /// (`DisplayLift.discount`), else 1.
    func displayDiscount(_ w: Int, at ts: Double) -> Double {
        for s in 0..<stackShown.count where stackShown[s] == Int32(w) {
            let since = ts - stackShownAt[s]
            if since >= 0 && since <= Self.impressionWindow { return displayLift.discount(widget: w, stack: s) }
        }
        return 1
    }

    private func markDay(_ day: Int32, mask i: Int) {
        Self.setBit(day: day, mask: &dayMasks[i], maskDay: &maskDays[i])
        Self.setBit(day: day, mask: &activeMask, maskDay: &activeDay)
    }

    static func setBit(day: Int32, mask: inout UInt32, maskDay: inout Int32) {
        if maskDay == Int32.min || day > maskDay {
            let shift = maskDay == Int32.min ? 32 : Int(day) - Int(maskDay)
            mask = shift >= 32 ? 0 : mask << UInt32(shift)
            maskDay = day
        }
        let back = Int(maskDay) - Int(day)
        if back < 32 { mask |= 1 << UInt32(back) }
    }

    /// Whether bit for `day` is set in a mask last shifted on `maskDay`.
    @inline(__always) static func bit(day: Int, mask: UInt32, maskDay: Int32) -> Bool {
        let back = Int(maskDay) - day
        return maskDay != Int32.min && back >= 0 && back < 32 && (mask >> UInt32(back)) & 1 == 1
    }

    private func addRejection(_ w: Int, atSecond second: Int, time ts: Double, weight: Double) {
        bins[WidgetBins.rejections.index(w, CircularTimeKernel.bin(ofSecond: second))] += longClock.weight(at: ts) * weight
        signals[w].rejectionTotal += weight
    }

    /// Learns from a location fix at `ts` (see `record(at:)`) with the person's clusterer `cl`.
    private func recordFix(lat: Double, lon: Double, accuracy: Double?, at ts: Double, clusterer cl: inout PlaceClusterer) {
        // Accuracy 0 is no real fix's: read as not given.
        let given = accuracy.flatMap { $0 > 0 ? $0 : nil }
        var c: Int32 = -1
        var named: Double? = nil
        if let a = given, a > cl.radius, case let held = visits.currentCluster,
           let (k, p) = cl.likeliestPlace(
               lat: lat, lon: lon, accuracy: a, current: Int(held),
               confidence: held >= 0 ? visits.confidence(at: ts, prior: visitPrior) : 0),
           p >= Self.coarseFixLevel {
            // Wider than a place, but more likely than not from this known one: evidence of
            // being there, as strong as that probability (it moves no centre).
            c = Int32(k)
            named = p
        } else if let a = given, !(a <= cl.maximumAccuracy) {
            // Too coarse to found or move a place; it may still name a known one, or say "left".
            guard a.isFinite else { return }
            c = cl.nearest(lat: lat, lon: lon, within: cl.radius + a).map { Int32($0) } ?? -1
        } else if let assigned = cl.assign(lat: lat, lon: lon, accuracy: given) {
            while clusterPlaces.count <= assigned {
                clusterPlaces.append(internPlace("#\(clusterPlaces.count + 1)", isCluster: true))
            }
            c = Int32(assigned)
        }
        visits.fix(cluster: c, place: c >= 0 ? clusterPlaces[Int(c)] : -1,
                   distanceFromVisit: cl.distance(fromPlace: Int(visits.cluster), lat: lat, lon: lon),
                   accuracy: given ?? 0, named: named, radius: cl.radius, at: ts, prior: visitPrior,
                   decay: longClock.weight(at: ts))
    }

    // MARK: Current context

    /// The place of the visit in force at `ts` and the confidence that the person is still
    /// there, if any.
    @inline(__always) func place(at ts: Double) -> (Int32, Double)? {
        visits.current(at: ts, prior: visitPrior)
    }

    /// The previous app and its gap bucket at `ts`, if it was used less than 12 hours before.
    @inline(__always) func previousApp(at ts: Double) -> (Int, Int)? {
        guard lastApp >= 0 else { return nil }
        let gap = ts - lastAppTime
        guard gap >= 0 else { return nil }
        for (i, bound) in Self.gapBounds.enumerated() where gap < bound { return (Int(lastApp), i) }
        return nil
    }

    /// The widget's active relevance hint at `ts`, if any.
    @inline(__always) func hint(_ w: Int, at ts: Double) -> Double? {
        signals[w].hintStart <= ts && ts < signals[w].hintEnd ? signals[w].hintScore : nil
    }

    /// Whether the widget may be on top at `ts` (no active hint `<= 0`).
    @inline(__always) func isEligible(_ w: Int, at ts: Double) -> Bool {
        guard let h = hint(w, at: ts) else { return true }
        return h > 0
    }

    /// The pair of the implicit context `utc_offset=±HH:MM` for `offset`, -1 if none was seen or
    /// if it is the only offset the person has had (then it tells nothing apart).
    /// - Complexity: O(distinct offsets), a handful.
    @inline(__always) func offsetPair(_ offset: Int32) -> Int32 {
        guard offsetPairOffsets.count > 1 else { return -1 }
        return knownOffsetPair(offset)
    }

    @inline(__always) private func knownOffsetPair(_ offset: Int32) -> Int32 {
        for i in offsetPairOffsets.indices where offsetPairOffsets[i] == offset { return offsetPairs[i] }
        return -1
    }

    // MARK: Interning

    /// The pair of the implicit context of `offset`, created on first use (an offset is a
    /// context of its own: a person abroad needs other widgets than at home).
    private func internOffsetPair(_ offset: Int32) -> Int32 {
        let known = knownOffsetPair(offset)
        if known >= 0 { return known }
        let minutes = abs(Int(offset)) / 60
        let text = "utc_offset=" + (offset < 0 ? "-" : "+") + (minutes / 60 < 10 ? "0" : "") + String(minutes / 60)
            + ":" + (minutes % 60 < 10 ? "0" : "") + String(minutes % 60)
        let pair = pairs.intern(text)
        offsetPairOffsets.append(offset)
        offsetPairs.append(pair)
        return pair
    }

    func internWidget(_ name: String) -> Int32 {
        let before = widgets.count
        let i = widgets.intern(name)
        if widgets.count > before {
            signals.append(WidgetSignals())
            bins.append(contentsOf: repeatElement(0, count: WidgetBins.stride))
            dayMasks.append(contentsOf: repeatElement(0, count: WidgetBins.timeBins.count))
            maskDays.append(contentsOf: repeatElement(Int32.min, count: WidgetBins.timeBins.count))
        }
        return i
    }

    func internApp(_ name: String) -> Int32 {
        let before = apps.count
        let i = apps.intern(name)
        if apps.count > before {
            appWidgets.append([]); appUsage.append(0); appRecent.append(0)
            appLastUsed.append(Self.never); appTotal.append(0)
            if Int(i) < Self.maximumProfiledApps { appHours.append(contentsOf: repeatElement(0, count: AppHours.stride)) }
        }
        return i
    }

    func internStack(_ name: String) -> Int32 {
        let before = stacks.count
        let i = stacks.intern(name)
        if stacks.count > before {
            stackWidgets.append([]); stackConfigs.append([]); stackConfigTime.append(Self.never)
            stackPins.append(-1); stackPinTime.append(Self.never)
            stackShown.append(-1); stackShownAt.append(Self.never); stackShownBin.append(0); stackShownPropensity.append(1)
        }
        return i
    }

    private func internPlace(_ name: String, isCluster: Bool) -> Int32 {
        let before = places.count
        let i = places.intern(name)
        if places.count > before { placeIsCluster.append(isCluster); visits.ensure(places: places.count) }
        return i
    }

    private func configure(stack: String, widgets configs: [WidgetConfig], at ts: Double) {
        let s = Int(internStack(stack))
        guard ts >= stackConfigTime[s] else { return }
        stackConfigTime[s] = ts
        var seen = Set<String>()
        let unique = configs.filter { seen.insert($0.id).inserted }
        stackConfigs[s] = unique
        stackWidgets[s] = unique.map { internWidget($0.id) }
        for (config, w32) in zip(unique, stackWidgets[s]) {
            let w = Int(w32)
            guard let app = config.app else { continue }
            let a = internApp(app)
            guard signals[w].app != a else { continue }
            if signals[w].app >= 0 { appWidgets[Int(signals[w].app)].removeAll { $0 == w32 } }
            signals[w].app = a
            appWidgets[Int(a)].append(w32)
            // Cold start: a widget whose app was used before it was configured starts with the
            // app's usage and, for a profiled app, its time of day and the apps it followed.
            if signals[w].totalUses == 0 {
                signals[w].usage = appUsage[Int(a)]; signals[w].recent = appRecent[Int(a)]
                signals[w].lastUsed = appLastUsed[Int(a)]; signals[w].totalUses = appTotal[Int(a)]
                if Int(a) < Self.maximumProfiledApps {
                    startTimeOfDay(widget: w, app: Int(a))
                    for (p, bucket, weight) in appTransitions.followed(app: Int(a)) {
                        appTable.add(weight, p, w)
                        appGapTable.add(weight, p * 4 + bucket, w)
                    }
                }
            }
        }
    }

    /// Seeds the time-of-day bins of widget `w`, never engaged, from app `a`'s profile: each
    /// hour's decayed launches spread evenly over its 15-minute bins, its counts as they are.
    private func startTimeOfDay(widget w: Int, app a: Int) {
        let perHour = WidgetBins.binsPerDay / 24
        for weekend in [false, true] {
            for hour in 0..<24 {
                let share = appHours[AppHours.index(AppHours.launches, a, (weekend ? 24 : 0) + hour)] / Double(perHour)
                for k in 0..<perHour {
                    bins[WidgetBins.timeBins.index(w, WidgetBins.slot(bin: hour * perHour + k, weekend: weekend))] = share
                }
            }
        }
        for hour in 0..<24 {
            bins[WidgetBins.hourCounts.index(w, hour)] = appHours[AppHours.index(AppHours.hourCounts, a, hour)]
        }
    }

    /// Whether the per-widget, per-app and per-stack arrays agree with the interned names
    /// (checked when restoring a snapshot, so corrupt bytes fail cleanly instead of trapping).
    var isConsistent: Bool {
        let w = widgets.count, a = apps.count, st = stacks.count
        let perApp: [Int] = [appWidgets.count, appUsage.count, appRecent.count, appLastUsed.count, appTotal.count]
        let perStack: [Int] = [stackWidgets.count, stackConfigs.count, stackConfigTime.count, stackPins.count, stackPinTime.count,
                               stackShown.count, stackShownAt.count, stackShownBin.count, stackShownPropensity.count]
        guard signals.count == w, bins.count == w * WidgetBins.stride, dayMasks.count == w * WidgetBins.timeBins.count,
              maskDays.count == dayMasks.count, placeIsCluster.count == places.count else { return false }
        guard perApp.allSatisfy({ $0 == a }), perStack.allSatisfy({ $0 == st }) else { return false }
        guard appHours.count == min(a, Self.maximumProfiledApps) * AppHours.stride, appHours.allSatisfy(\.isFinite),
              appTransitions.isConsistent(apps: a) else { return false }
        guard currentPairs.count == contextKeys.count, pairTime.count == contextKeys.count else { return false }
        guard signals.allSatisfy({ $0.app >= -1 && $0.app < a }), stackPins.allSatisfy({ $0 >= -1 && $0 < w }),
              stackShown.allSatisfy({ $0 >= -1 && $0 < w }),
              stackShownBin.allSatisfy({ $0 >= 0 && Int($0) < WidgetBins.rejections.count }) else { return false }
        guard stackWidgets.allSatisfy({ $0.allSatisfy { $0 >= 0 && $0 < w } }) else { return false }
        guard appWidgets.allSatisfy({ $0.allSatisfy { $0 >= 0 && $0 < w } }) else { return false }
        guard currentPairs.allSatisfy({ $0 >= -1 && $0 < pairs.count }) else { return false }
        guard offsetPairs.count == offsetPairOffsets.count, offsetPairs.allSatisfy({ $0 >= 0 && $0 < pairs.count }) else { return false }
        guard clusterPlaces.allSatisfy({ $0 >= 0 && $0 < places.count }) else { return false }
        guard visits.isConsistent(places: places.count, clusters: clusterPlaces.count) else { return false }
        guard lastApp >= -1, lastApp < a, sequence.isConsistent(apps: a), routines.isConsistent(apps: a) else { return false }
        guard displayLift.isConsistent(stacks: st, widgets: w) else { return false }
        return true
    }

    // MARK: Rescaling (amortised O(1): once every 200 e-folding times)

    private func rescaleLong(to ts: Double) {
        let f = longClock.factor(at: ts)
        for w in signals.indices { signals[w].rescale(.long, by: f) }
        scale(WidgetBins.timeBins, by: f)
        scale(WidgetBins.rejections, by: f)
        for i in appUsage.indices { appUsage[i] *= f }
        for a in 0..<appHours.count / AppHours.stride {
            for k in 0..<AppHours.launches.count { appHours[AppHours.index(AppHours.launches, a, k)] *= f }
        }
        appTransitions.scale(by: f)
        placeTable.scale(by: f); appTable.scale(by: f); appGapTable.scale(by: f); pairTable.scale(by: f)
        visits.scale(by: f)
        sequence.scale(by: f)
        routines.scale(by: f)
        awakeTable.scale(by: f)
        displayLift.scale(by: f)
        longClock.origin = ts
    }

    private func rescaleRecent(to ts: Double) {
        let f = recentClock.factor(at: ts)
        for w in signals.indices { signals[w].rescale(.recent, by: f) }
        for i in appRecent.indices { appRecent[i] *= f }
        recentClock.origin = ts
    }

    /// Multiplies every widget's `block` of `bins` by `factor`.
    private func scale(_ block: WidgetBins.Block, by factor: Double) {
        for w in signals.indices {
            for k in 0..<block.count { bins[block.index(w, k)] *= factor }
        }
    }
}
