/// A scorer supplied from outside the engine (e.g. the evaluator's oracle). Higher is better.
///
/// Plug one in with `UserEngine(user:scorer:name:rotation:)`; the engine still applies
/// relevance-hint eligibility, pins and the rotation policy on top of its scores.
public protocol WidgetScorer: AnyObject {
    /// Sees every event of its user in time order.
    func observe(_ event: Event)
    /// Scores each widget of `stack` at `time`.
    func scores(stack: String, widgets: [WidgetConfig], at time: EventTime) -> [Double]
}
