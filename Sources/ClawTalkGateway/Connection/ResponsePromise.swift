internal import ClawTalkProtocol
import ClawTalkSupport
import Synchronization

/// The one answer to a pending request: resolved exactly once by the reader (response), the
/// teardown (socket closed) or cancellation, whichever comes first.
final class ResponsePromise: Sendable {
    private enum State {
        case waiting(CheckedContinuation<WireJSON, any Error>?)
        case done(Result<WireJSON, any Error>)
    }

    /// The request's method (for errors).
    let method: String
    private let state = Mutex(State.waiting(nil))

    init(method: String) {
        self.method = method
    }

    /// Waits for the answer; cancellation resolves it with `CancellationError`.
    func value() async throws -> WireJSON {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WireJSON, any Error>) in
                let ready: Result<WireJSON, any Error>? = state.locked { state in
                    switch state {
                    case .waiting:
                        state = .waiting(continuation)
                        return nil
                    case .done(let result):
                        return result
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            resolve(.failure(CancellationError()))
        }
    }

    /// Resolves the promise; later calls are ignored.
    func resolve(_ result: Result<WireJSON, any Error>) {
        let continuation: CheckedContinuation<WireJSON, any Error>?? = state.locked { state in
            guard case .waiting(let continuation) = state else { return .none }
            state = .done(result)
            return .some(continuation)
        }
        if case .some(.some(let continuation)) = continuation { continuation.resume(with: result) }
    }
}
