import Dispatch

/// A serial `DispatchQueue` for blocking or CPU-heavy work (sockets, decoders, espeak-ng
/// synthesis), bridged to async callers so the cooperative pool never blocks. One lane per
/// resource that must not be used concurrently.
public final class SerialLane: Sendable {
    private let queue: DispatchQueue

    /// A lane named `label` (shown in debuggers and crash logs).
    public init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Runs `body` on the lane and returns its result. Cancelling the caller does not interrupt
    /// `body`, but the caller stops waiting at once (`CancellationError`) and `body`'s result is
    /// dropped: work in progress never holds up a shutdown or a barge-in. Work queued after it
    /// still waits its turn. Blocking bodies may watch their own cancellation flag.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await awaitDetached { [queue] finish in
            queue.async { finish(Result { try body() }) }
        }
    }
}
