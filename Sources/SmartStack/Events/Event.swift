/// One thing that happened on the phone: a SmartStack JSONL v1 line.
///
/// ```swift
/// let e = Event(time: try EventTime(rfc3339: "2013-03-27T08:05:00-04:00"),
///               user: "u00", payload: .appLaunch(app: "com.example.calendar"))
/// e.type  // .appLaunch
/// ```
public struct Event: Sendable, Hashable {
    /// When it happened, with the phone's UTC offset at that moment.
    public var time: EventTime
    /// Whose phone; `"default"` when the source does not say.
    public var user: String
    /// Optional identifier, unique per user; re-ingesting an event with a known id is a no-op.
    public var id: String?
    /// What happened.
    public var payload: EventPayload

    /// The name used for users when an event does not give one.
    public static let defaultUser = "default"

    /// Creates an event.
    public init(time: EventTime, user: String = Event.defaultUser, id: String? = nil, payload: EventPayload) {
        self.time = time
        self.user = user
        self.id = id
        self.payload = payload
    }

    /// The event's type, as written in the `type` field.
    public var type: EventType { payload.type }
}

/// A widget of a stack as configured by the person: its id and, optionally, the app it opens.
public struct WidgetConfig: Sendable, Hashable, Codable {
    /// The widget's id, unique within the user's widgets.
    public var id: String
    /// The bundle id / package name of the app the widget belongs to, if known.
    public var app: String?

    /// Creates a widget configuration.
    public init(id: String, app: String? = nil) {
        self.id = id
        self.app = app
    }
}

/// The fields of each event type of SmartStack JSONL v1.
public enum EventPayload: Sendable, Hashable {
    /// The stack's widgets from now on, in the person's own order.
    case stackConfig(stack: String, widgets: [WidgetConfig])
    /// An app came to the foreground.
    case appLaunch(app: String)
    /// A widget was shown on top of a stack; `propensity` is the probability the showing
    /// policy chose it (0 < p <= 1), `policy` names that policy. Stored out of line (`indirect`):
    /// the widest case otherwise sets every event's size, and impressions are a minority.
    indirect case widgetImpression(stack: String, widget: String, propensity: Double?, policy: String?)
    /// The person tapped a widget.
    case widgetTap(widget: String, stack: String?)
    /// The person rotated a stack by hand from one widget to another.
    case widgetSwipe(stack: String, from: String, to: String)
    /// The person pinned a widget on top of a stack.
    case widgetPin(stack: String, widget: String)
    /// The person unpinned a widget.
    case widgetUnpin(stack: String, widget: String)
    /// The person looked at the home screen.
    case screenOn
    /// A location fix in degrees, with its accuracy radius in metres if known.
    case location(lat: Double, lon: Double, accuracy: Double?)
    /// A semantic place label (home, work, ...).
    case place(String)
    /// A context key/value such as `charging`/`true`.
    case context(key: String, value: String)
    /// A relevance hint donated by a widget: `score <= 0` means not eligible now; `duration`
    /// (seconds) bounds its validity, `nil` or 0 = until the widget's next hint.
    case relevance(widget: String, score: Double, duration: Double?)

    /// The type of this payload.
    public var type: EventType {
        switch self {
        case .stackConfig: .stackConfig
        case .appLaunch: .appLaunch
        case .widgetImpression: .widgetImpression
        case .widgetTap: .widgetTap
        case .widgetSwipe: .widgetSwipe
        case .widgetPin: .widgetPin
        case .widgetUnpin: .widgetUnpin
        case .screenOn: .screenOn
        case .location: .location
        case .place: .place
        case .context: .context
        case .relevance: .relevance
        }
    }
}

/// The `type` field of SmartStack JSONL v1. Raw values are the names written in files.
public enum EventType: String, Sendable, Hashable, CaseIterable, Codable {
    case stackConfig = "stack_config"
    case appLaunch = "app_launch"
    case widgetImpression = "widget_impression"
    case widgetTap = "widget_tap"
    case widgetSwipe = "widget_swipe"
    case widgetPin = "widget_pin"
    case widgetUnpin = "widget_unpin"
    case screenOn = "screen_on"
    case location = "location"
    case place = "place"
    case context = "context"
    case relevance = "relevance"

    /// A stable small integer for storage (never reordered; new types get new codes).
    public var code: Int {
        switch self {
        case .stackConfig: 1
        case .appLaunch: 2
        case .widgetImpression: 3
        case .widgetTap: 4
        case .widgetSwipe: 5
        case .widgetPin: 6
        case .widgetUnpin: 7
        case .screenOn: 8
        case .location: 9
        case .place: 10
        case .context: 11
        case .relevance: 12
        }
    }

    /// The type stored under `code`, if any.
    public init?(code: Int) {
        guard let match = EventType.allCases.first(where: { $0.code == code }) else { return nil }
        self = match
    }
}
