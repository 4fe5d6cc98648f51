import Synchronization

/// Holds a checked continuation and resumes it at most once; later resumes are ignored and
/// report `false`. Use it where a reply, a timeout and a cancellation race to finish one wait.
public final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, any Error>?>

    /// Wraps `continuation`.
    public init(_ continuation: CheckedContinuation<Value, any Error>) {
        self.continuation = Mutex(continuation)
    }

    /// Resumes with `value` if nothing resumed yet; returns whether this call did.
    @discardableResult
    public func resume(returning value: sending Value) -> Bool {
        guard let c = take() else { return false }
        c.resume(returning: value)
        return true
    }

    /// Resumes with `error` if nothing resumed yet; returns whether this call did.
    @discardableResult
    public func resume(throwing error: any Error) -> Bool {
        guard let c = take() else { return false }
        c.resume(throwing: error)
        return true
    }

    /// Whether the continuation was resumed.
    public var isResumed: Bool { continuation.locked { $0 == nil } }

    private func take() -> CheckedContinuation<Value, any Error>? {
        continuation.locked { stored in
            let c = stored
            stored = nil
            return c
        }
    }
}
