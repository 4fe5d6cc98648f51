import Dispatch

/// A serial `DispatchQueue` for blocking or CPU-heavy work (espeak-ng synthesis, clip
/// decoding), bridged to async callers so the cooperative pool never blocks. One lane per
/// resource that must not be used concurrently.
final class BlockingLane: Sendable {
    private let queue: DispatchQueue

    /// A lane named `label`.
    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Runs `body` on the lane and returns its result. Cancelling the caller does not interrupt
    /// `body`.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
