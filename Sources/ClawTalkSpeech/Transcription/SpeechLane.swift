import ClawTalkSupport
import Dispatch

/// A serial `DispatchQueue` for blocking work (sockets, decoders), bridged to async callers so the
/// cooperative pool never blocks. One lane per resource that must not be used concurrently.
final class SpeechLane: Sendable {
    private let queue: DispatchQueue

    /// A lane named `label` (shown in debuggers and crash logs).
    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Runs `body` on the lane and returns its result. Cancelling the caller does not interrupt
    /// `body`, but the caller stops waiting at once (`CancellationError`) and `body`'s result is
    /// dropped: a decode in progress never holds up a shutdown. Blocking bodies may also watch
    /// their own cancellation flag (see ``SocketCancellation``).
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await awaitDetached { [queue] finish in
            queue.async { finish(Result { try body() }) }
        }
    }
}
