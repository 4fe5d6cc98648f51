/// The newest value of something that changes (a trigger list, a routing config), handed to
/// any number of subscribers as it changes. Each subscriber keeps only the newest value it has
/// not read yet; a subscriber can start with the current value. Safe from any thread.
public final class LatestValueBroadcast<Value: Sendable>: Sendable {
    /// One unread value per subscriber; the latest value kept.
    private let broadcast = EventBroadcast<Value>(bufferingNewest: 1, keeping: { _, new in new })

    /// A broadcast with no value yet.
    public init() {}

    /// The last value published, if any.
    public var latest: Value? { broadcast.kept }

    /// Values published from now on; with `replayingLatest`, the current value first.
    public func subscribe(replayingLatest: Bool) -> AsyncStream<Value> {
        broadcast.subscribe(replayingKept: replayingLatest)
    }

    /// Makes `value` the latest and hands it to every subscriber.
    public func publish(_ value: Value) {
        broadcast.publish(value)
    }
}
