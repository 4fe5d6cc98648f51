/// Thrown by ``withTimeout(_:clock:operation:)`` when the deadline passes first.
public struct TimeoutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The limit that was exceeded, as text (e.g. `1.5 seconds`).
    public var limit: String

    /// Creates the error.
    public init(limit: String) {
        self.limit = limit
    }

    /// `timed out after <limit>`.
    public var description: String { "timed out after \(limit)" }
}

/// Runs `operation`, cancelling it and throwing ``TimeoutError`` if it has not finished within
/// `duration` on `clock`. Whichever finishes first wins; the other child is cancelled and
/// awaited, so an operation that ignores cancellation delays the return until it ends.
public func withTimeout<C: Clock, T: Sendable>(
    _ duration: C.Duration,
    clock: C,
    operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await clock.sleep(for: duration)
            throw TimeoutError(limit: "\(duration)")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}

/// ``withTimeout(_:clock:operation:)`` on the `ContinuousClock`.
public func withTimeout<T: Sendable>(
    _ duration: Duration,
    operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withTimeout(duration, clock: ContinuousClock(), operation: operation)
}
