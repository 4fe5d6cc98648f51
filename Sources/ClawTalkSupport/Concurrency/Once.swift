import Synchronization

/// A flag that can be claimed exactly once, from any thread: the guard that makes a stored
/// continuation resume exactly once (timeouts, cancellation and the real answer may race).
public final class Once: Sendable {
    private let claimed = Mutex(false)

    /// Creates an unclaimed flag.
    public init() {}

    /// True for the first caller only.
    public func claim() -> Bool {
        claimed.locked { claimed in
            if claimed { return false }
            claimed = true
            return true
        }
    }

    /// Whether the flag was claimed.
    public var isClaimed: Bool { claimed.locked { $0 } }

    /// Runs `body` if this is the first claim; returns whether it ran.
    @discardableResult
    public func run(_ body: () throws -> Void) rethrows -> Bool {
        guard claim() else { return false }
        try body()
        return true
    }
}
