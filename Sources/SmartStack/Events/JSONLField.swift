/// The keys SmartStack JSONL v1 gives a meaning to, and the one place their names are spelled:
/// the reader recognises keys with ``names``, the writer writes ``spelling``, and error messages
/// say ``name``. `id` and `app` are also the keys of a `widgets` element.
enum JSONLField: Int, CaseIterable {
    case time, type, user, id, app, stack, widgets, widget, propensity, policy
    case from, to, lat, lon, accuracy, place, key, value, score, duration

    /// The key as written in a line.
    var spelling: StaticString {
        switch self {
        case .time: "time"
        case .type: "type"
        case .user: "user"
        case .id: "id"
        case .app: "app"
        case .stack: "stack"
        case .widgets: "widgets"
        case .widget: "widget"
        case .propensity: "propensity"
        case .policy: "policy"
        case .from: "from"
        case .to: "to"
        case .lat: "lat"
        case .lon: "lon"
        case .accuracy: "accuracy"
        case .place: "place"
        case .key: "key"
        case .value: "value"
        case .score: "score"
        case .duration: "duration"
        }
    }

    /// The key as text, for messages.
    var name: String { spelling.description }

    /// Finds the field a key's bytes name.
    static let names = JSONNameTable(allCases.map { ($0.name, $0) })
}
