import Synchronization

/// Rate limit for chatty log paths: at most one line per key per interval.
///
/// Shared by a logger and all its children (see ``Logger/throttled(key:every:)``). Time comes
/// from an injected monotonic source so tests can move it by hand.
public final class LogThrottle: Sendable {
    /// What the throttle decided for one line.
    public enum Decision: Sendable, Equatable {
        /// Write the line; `suppressed` lines were dropped for this key since the last one.
        case emit(suppressed: Int)
        /// Drop the line.
        case suppress
    }

    private struct Entry {
        var lastEmit: Duration
        var suppressed: Int
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let now: @Sendable () -> Duration

    /// Creates a throttle; `now` returns monotonic time since any fixed origin.
    public init(now: @escaping @Sendable () -> Duration) {
        self.now = now
    }

    /// Creates a throttle on the process's `ContinuousClock`.
    public convenience init() {
        let clock = ContinuousClock()
        let origin = clock.now
        self.init(now: { origin.duration(to: clock.now) })
    }

    /// Decides whether a line for `key` may be written now, given at most one per `interval`.
    public func admit(key: String, every interval: Duration) -> Decision {
        let time = now()
        return entries.locked { entries in
            if var entry = entries[key], time - entry.lastEmit < interval {
                entry.suppressed += 1
                entries[key] = entry
                return .suppress
            }
            let suppressed = entries[key]?.suppressed ?? 0
            entries[key] = Entry(lastEmit: time, suppressed: 0)
            return .emit(suppressed: suppressed)
        }
    }
}
