import Dispatch
import Synchronization
import SmartStack

/// A bounded first-in first-out hand-off of users' events from the reader to the workers, so at
/// most `capacity` users wait in memory besides the ones being replayed.
final class WorkQueue: Sendable {
    typealias Item = (index: Int, user: String, events: ArraySlice<Event>, generation: Int)
    private let items = Mutex<(queue: [Item], head: Int, closed: Bool)>(([], 0, false))
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)

    init(capacity: Int) { free = DispatchSemaphore(value: max(1, capacity)) }

    /// Adds an item, waiting while the queue is full.
    func push(_ item: Item) {
        free.wait()
        items.withLock { state in state.queue.append(item) }
        ready.signal()
    }

    /// No more items; wakes `consumers` waiting workers.
    func close(consumers: Int) {
        items.withLock { $0.closed = true }
        for _ in 0..<consumers { ready.signal() }
    }

    /// The next item, or `nil` once closed and drained.
    func pop() -> Item? {
        ready.wait()
        let item: Item? = items.withLock { state in
            guard state.head < state.queue.count else { return nil }
            let item = state.queue[state.head]
            state.queue[state.head].events = []
            state.head += 1
            if state.head > 1024, state.head * 2 > state.queue.count {
                state.queue.removeFirst(state.head)
                state.head = 0
            }
            return item
        }
        if item != nil { free.signal() } else { ready.signal() }
        return item
    }
}
