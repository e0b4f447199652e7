import SmartStack


/// Generates a plausible stream of phone events: every type, several users in their own time
/// zones, realistic bundle ids and widget names, times moving forward.
struct EventGenerator {
    private var rng: SeededGenerator  // SplitMix64: every run sees the same events
    private var clock: Int64   // nanoseconds since 1970, UTC
    private var counters: [Int]
    private let users: [String]
    private let offsets: [Int32]

    private static let apps = [
        "com.apple.mobilecal", "com.apple.weather", "com.apple.mobilemail", "com.apple.MobileSMS",
        "com.apple.Music", "com.apple.Maps", "com.apple.reminders", "com.apple.Health",
        "com.spotify.client", "com.google.Gmail", "com.facebook.Facebook", "com.burbn.instagram",
        "net.whatsapp.WhatsApp", "com.atebits.Tweetie2", "com.ubercab.UberClient", "com.netflix.Netflix",
        "com.nytimes.NYTimes", "com.duolingo.DuolingoMobile", "com.strava.stravaride", "com.slack.Slack",
    ]
    private static let widgets = [
        "weather.small", "calendar.upnext", "music.nowplaying", "maps.commute", "reminders.today",
        "health.activity", "news.topstories", "photos.memories", "batteries.medium", "notes.pinned",
        "podcasts.upnext", "stocks.watchlist",
    ]
    private static let stacks = ["home.1", "home.2", "today.view"]
    private static let places = ["home", "work", "gym", "commute", "school", "cafe"]
    private static let contexts = [
        ("charging", ["true", "false"]), ("headphones", ["connected", "disconnected"]),
        ("motion", ["stationary", "walking", "driving", "cycling"]), ("focus", ["work", "sleep", "personal", "off"]),
    ]
    private static let policies = ["smartstack/0.1", "apple-smart-rotate/17.4", "round-robin/1"]

    /// A generator for `userCount` users starting at 2013-03-01T00:00:00Z.
    init(seed: UInt64, userCount: Int = 40) {
        rng = SeededGenerator(seed: seed)
        clock = 1_362_096_000 * 1_000_000_000
        users = (0..<userCount).map { "u\($0 < 10 ? "00" : "0")\($0)" }
        let zones: [Int32] = [-14_400, -18_000, -25_200, 0, 3600, 7200, 19_800, 32_400, 36_000, -10_800]
        offsets = (0..<userCount).map { zones[$0 % zones.count] }
        counters = Array(repeating: 0, count: userCount)
    }

    private mutating func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
    private mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
    private mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(rng.next() >> 11) / Double(1 << 53)
    }

    /// The next event, a little later than the previous one.
    mutating func next() -> Event {
        clock += Int64(rng.next() % 30_000) * 1_000_000 + 1_000_000   // 1 ms ... 30 s later
        var nanoseconds = clock
        if chance(70) { nanoseconds -= nanoseconds % 1_000_000_000 }    // most times in whole seconds
        let u = Int(rng.next() % UInt64(users.count))
        counters[u] += 1
        let time = EventTime(nanosecondsSinceEpoch: nanoseconds, utcOffsetSeconds: offsets[u])
        let id: String? = chance(80) ? "\(users[u])-\(counters[u])" : nil
        let roll = rng.next() % 100
        let payload: EventPayload
        switch roll {
        case 0..<30:
            let propensity = chance(60) ? (uniform(0.02, 1) * 1000).rounded() / 1000 : nil
            payload = .widgetImpression(stack: pick(Self.stacks), widget: pick(Self.widgets),
                                        propensity: propensity, policy: chance(60) ? pick(Self.policies) : nil)
        case 30..<50: payload = .appLaunch(app: pick(Self.apps))
        case 50..<62: payload = .screenOn
        case 62..<72:
            payload = .relevance(widget: pick(Self.widgets), score: (uniform(-1, 1) * 100).rounded() / 100,
                                 duration: chance(50) ? Double(rng.next() % 7200) : nil)
        case 72..<78:
            let (key, values) = pick(Self.contexts)
            payload = .context(key: key, value: pick(values))
        case 78..<84:
            payload = .location(lat: uniform(-60, 70), lon: uniform(-180, 180),
                                accuracy: chance(70) ? Double(5 + rng.next() % 200) : nil)
        case 84..<89: payload = .widgetTap(widget: pick(Self.widgets), stack: chance(80) ? pick(Self.stacks) : nil)
        case 89..<92: payload = .place(pick(Self.places))
        case 92..<95: payload = .widgetSwipe(stack: pick(Self.stacks), from: pick(Self.widgets), to: pick(Self.widgets))
        case 95..<96: payload = .widgetPin(stack: pick(Self.stacks), widget: pick(Self.widgets))
        case 96..<97: payload = .widgetUnpin(stack: pick(Self.stacks), widget: pick(Self.widgets))
        default:
            var chosen: [WidgetConfig] = []
            for widget in Self.widgets where chance(40) {
                chosen.append(WidgetConfig(id: widget, app: chance(70) ? pick(Self.apps) : nil))
            }
            payload = .stackConfig(stack: pick(Self.stacks), widgets: chosen)
        }
        return Event(time: time, user: users[u], id: id, payload: payload)
    }
}
