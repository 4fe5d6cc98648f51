internal import CWebSockets
import ClawTalkSupport
import Foundation
import Synchronization

/// Receives the C client's events on its service thread and turns them into Swift: the connect
/// outcome for ``WebSocketClient/connect(timeout:)`` and ``WebSocketEvent``s for the stream.
///
/// `handle(_:)` runs on the libwebsockets service thread: it copies the bytes, takes the lock
/// only for a few assignments and yields into an unbounded `AsyncStream`; it never blocks.
final class WebSocketClientSink: Sendable {
    private struct State {
        var connected = false
        var outcome: Result<Void, any Error>?
        var waiter: CheckedContinuation<Void, any Error>?
        var fingerprint: String?
        var termination: TransportError?
        var statistics = WebSocketStatistics()
        var finished = false
    }

    private let state = Mutex(State())
    private let continuation: AsyncStream<WebSocketEvent>.Continuation
    private let expectedPin: String?

    init(continuation: AsyncStream<WebSocketEvent>.Continuation, expectedPin: String?) {
        self.continuation = continuation
        self.expectedPin = expectedPin
    }

    var fingerprint: String? { state.locked { $0.fingerprint } }
    var termination: TransportError? { state.locked { $0.termination } }
    var statistics: WebSocketStatistics { state.locked { $0.statistics } }
    var isConnected: Bool { state.locked { $0.connected && !$0.finished } }

    // MARK: - Service thread

    /// One C event; called on the service thread.
    func handle(_ event: cws_event) {
        switch event.kind {
        case CWS_EVENT_CONNECTED:
            let fingerprint = event.cert_sha256.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            let waiter = state.locked { state -> CheckedContinuation<Void, any Error>? in
                state.fingerprint = fingerprint
                guard state.outcome == nil else { return nil }  // timed out or cancelled already
                state.connected = true
                state.outcome = .success(())
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        case CWS_EVENT_MESSAGE:
            let data = event.data.map { Data(bytes: $0, count: event.len) } ?? Data()
            state.locked {
                $0.statistics.messagesReceived += 1
                $0.statistics.bytesReceived += event.len
            }
            continuation.yield(.message(data, isBinary: event.is_binary != 0))
        case CWS_EVENT_PONG:
            state.locked { $0.statistics.pongsReceived += 1 }
        case CWS_EVENT_ERROR:
            let message = event.text.map { String(cString: $0) } ?? "connection failed"
            let observed = event.cert_sha256.map { String(cString: $0) } ?? ""
            if !observed.isEmpty { state.locked { $0.fingerprint = observed } }
            let error: TransportError =
                switch event.error_kind {
                case CWS_ERROR_PIN_MISMATCH: .tlsPinMismatch(expected: expectedPin ?? "", actual: observed)
                default: .connectFailed(message)
                }
            terminate(with: error, event: .error(message))
        case CWS_EVENT_CLOSED:
            let code = event.close_code == 0 ? nil : Int(event.close_code)
            let reason = event.text.map { String(cString: $0) } ?? ""
            let error: TransportError =
                code == 1009 && event.closed_by_peer == 0
                ? .messageTooLarge : .closed(code: code, reason: reason)
            terminate(with: error, event: .closed(code: code, reason: reason))
        default:
            break
        }
    }

    private func terminate(with error: TransportError, event: WebSocketEvent) {
        let waiter = state.locked { state -> CheckedContinuation<Void, any Error>? in
            if state.termination == nil { state.termination = error }
            state.finished = true
            if state.outcome == nil { state.outcome = .failure(error) }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)  // only before CONNECTED: the attempt failed
        continuation.yield(event)
        continuation.finish()
    }

    // MARK: - Owner side

    /// Suspends until the connection opens or fails (resumes at once if already decided).
    func waitUntilConnected() async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            let outcome = state.locked { state -> Result<Void, any Error>? in
                if state.outcome == nil { state.waiter = waiter }
                return state.outcome
            }
            if let outcome { waiter.resume(with: outcome) }
        }
    }

    /// Fails a pending connect (timeout, cancellation); false when it was already decided.
    @discardableResult
    func failConnect(_ error: any Error) -> Bool {
        let (pending, waiter) = state.locked { state -> (Bool, CheckedContinuation<Void, any Error>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = .failure(error)
            if state.termination == nil, let error = error as? TransportError { state.termination = error }
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(throwing: error)
        return pending
    }

    /// Ends the stream after the C client is destroyed (no event can follow).
    func finish(reason: String) {
        let error = TransportError.closed(code: nil, reason: reason)
        failConnect(error)
        state.locked { state in
            if state.termination == nil { state.termination = error }
            state.finished = true
        }
        continuation.finish()
    }
}
