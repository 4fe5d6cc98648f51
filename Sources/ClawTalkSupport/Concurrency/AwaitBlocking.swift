import Foundation
import Synchronization

/// Runs blocking `work` (a C library's model load, a `waitpid`) on a thread of its own and
/// returns its result, without holding a thread of the cooperative pool.
///
/// A cancelled caller stops waiting at once and gets `CancellationError`; the work cannot be
/// interrupted, so it runs to its end on its own thread and its result is dropped. That is what
/// a shutdown wants: nothing on the way out awaits a load that may take seconds. `label` names
/// the thread (seen in `top -H` and debuggers).
public func awaitBlocking<T: Sendable>(
    _ label: String, _ work: @escaping @Sendable () throws -> T
) async throws -> T {
    try await awaitDetached { finish in
        let thread = Thread { finish(Result { try work() }) }
        thread.name = label
        thread.start()
    }
}

/// Waits for work that `start` hands elsewhere (a thread, a serial queue) and that reports
/// through the callback it is given, exactly once. As with ``awaitBlocking(_:_:)``, a cancelled
/// caller stops waiting at once with `CancellationError` while the work goes on; `start` is
/// called even for a caller that was cancelled already (only the waiting is skipped).
public func awaitDetached<T: Sendable>(
    _ start: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void
) async throws -> T {
    let slot = DetachedSlot<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            if !slot.install(ResumeOnce(continuation)) { continuation.resume(throwing: CancellationError()) }
            start { slot.finish($0) }
        }
    } onCancel: {
        slot.cancel()
    }
}

/// Where the work's result and the caller's cancellation meet; the first one resumes the caller.
private final class DetachedSlot<T: Sendable>: Sendable {
    private let state = Mutex<(once: ResumeOnce<T>?, cancelled: Bool)>((nil, false))

    /// Keeps `once`; false when the caller was cancelled before it got here.
    func install(_ once: ResumeOnce<T>) -> Bool {
        state.locked { state in
            guard !state.cancelled else { return false }
            state.once = once
            return true
        }
    }

    func finish(_ result: Result<T, any Error>) {
        guard let once = state.locked({ $0.once }) else { return }
        switch result {
        case .success(let value): once.resume(returning: value)
        case .failure(let error): once.resume(throwing: error)
        }
    }

    func cancel() {
        let once = state.locked { state -> ResumeOnce<T>? in
            state.cancelled = true
            return state.once
        }
        once?.resume(throwing: CancellationError())
    }
}
