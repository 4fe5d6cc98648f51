import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import Synchronization

/// How a `clawtalk pair` connect ended.
enum PairingOutcome: Sendable, Equatable {
    /// `hello-ok`: the device token is stored.
    case paired(HelloSummary)
    /// Approval pending and the caller asked not to wait.
    case pending(PairingRequest)
    /// The certificate does not match the pin (the message names both fingerprints).
    case pinMismatch(String)
    /// `wss://` without a pin and the certificate is not trusted by the system.
    case tlsUntrusted(String)
    /// The gateway could not be reached (or never answered the handshake).
    case unreachable(String)
    /// The gateway refused the device and the connection paused (e.g. a used setup code).
    case refused(PauseInfo)
    /// Not approved before the timeout; the last pending request, if any.
    case timedOut(PairingRequest?)
}

/// Runs one node ``GatewayConnection`` for `clawtalk pair` and decides when pairing is done:
/// connected, refused, unreachable, or — on `PAIRING_REQUIRED` — waiting for the approval and
/// re-probing with the normal backoff (1 s doubling to 30 s, protocol.md §15) until the
/// gateway admits the device or the timeout passes. Deliberate single retries of the connection
/// (signature fallback, device-token retry, gateway starting or restarting) are let through.
struct PairingProbe: Sendable {
    /// The node connection (not running yet).
    var connection: GatewayConnection
    /// Give up after this long.
    var timeout: Duration
    /// Wait for the approval (false: return ``PairingOutcome/pending(_:)`` at once).
    var waitForApproval: Bool
    /// Re-probe delays while waiting.
    var backoff = Backoff.Configuration()
    /// Transport failures tolerated before the gateway answered once.
    var transientFailureLimit = 2
    /// Called when a pairing request is first seen (and when its id changes).
    var onPending: @Sendable (PairingRequest) -> Void = { _ in }
    /// Progress while waiting (one line, no newline).
    var onProgress: @Sendable (String) -> Void = { _ in }

    /// Connects, waits as configured, stops the connection and returns the outcome.
    func run() async -> PairingOutcome {
        let connection = self.connection
        let runner = Task { await connection.run() }
        let lastPending = PendingBox()
        let timeout = self.timeout
        let outcome = await withTaskGroup(of: PairingOutcome?.self) { group in
            group.addTask { await self.observe(lastPending) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : .timedOut(lastPending.value.locked { $0 })
            }
            var first: PairingOutcome?
            while first == nil, let next = await group.next() { first = next }
            group.cancelAll()
            return first ?? .unreachable("connection ended")
        }
        await connection.stop()
        await runner.value
        return outcome
    }

    private func observe(_ lastPending: PendingBox) async -> PairingOutcome? {
        var backoff = Backoff(configuration: backoff)
        var answered = false
        var transientFailures = 0
        var reprobe: Task<Void, Never>?
        defer { reprobe?.cancel() }
        let started = ContinuousClock.now
        for await state in await connection.states() {
            let reported = await connection.pairingRequest
            let pending: PairingRequest? =
                switch state {
                case .paused(let info): info.pairing
                case .connected: nil
                default: reported
                }
            if let request = pending {
                answered = true
                if lastPending.value.locked({ $0 }) != request {
                    lastPending.value.locked { $0 = request }
                    onPending(request)
                }
                guard waitForApproval else { return .pending(request) }
                if case .paused = state {
                    let delay = backoff.next()
                    let elapsed = Int((ContinuousClock.now - started).components.seconds)
                    onProgress(
                        "waiting for approval of request \(request.requestId ?? "?") (\(elapsed) s of "
                            + "\(timeout.components.seconds) s); checking again in \(Self.seconds(delay)) s")
                    let connection = self.connection
                    reprobe?.cancel()
                    reprobe = Task {
                        guard (try? await Task.sleep(for: delay)) != nil else { return }
                        await connection.resume()
                    }
                }
                continue
            }
            switch state {
            case .connected(let summary):
                return .paired(summary)
            case .paused(let info):
                return .refused(info)
            case .stopped:
                return .unreachable("connection stopped")
            case .waiting(_, let cause):
                switch Self.classify(cause, secure: connection.configuration.endpoint.isSecure) {
                case .pinMismatch:
                    return .pinMismatch(cause)
                case .untrusted:
                    return .tlsUntrusted(cause)
                case .deliberateRetry:
                    answered = true
                case .transient:
                    transientFailures += 1
                    if !answered, transientFailures > transientFailureLimit { return .unreachable(cause) }
                case .unreachable:
                    if !answered { return .unreachable(cause) }
                }
            case .disconnected, .connecting:
                continue
            }
        }
        return nil
    }

    /// What a `waiting` cause means for pairing.
    enum WaitCause: Equatable {
        case pinMismatch
        case untrusted
        case unreachable
        case deliberateRetry
        case transient
    }

    /// Classifies the cause texts of ``ConnectionStateMachine`` and the dialer.
    static func classify(_ cause: String, secure: Bool) -> WaitCause {
        let lowered = cause.lowercased()
        if lowered.hasPrefix("tls pin mismatch") || lowered.contains("pin mismatch:") { return .pinMismatch }
        if lowered.hasPrefix("dial failed") {
            return secure && lowered.contains("not trusted") ? .untrusted : .unreachable
        }
        let deliberate = [
            "retrying with", "gateway starting", "gateway restart", "client invalidated", "rate limited",
            "pairing required",
        ]
        if deliberate.contains(where: { lowered.contains($0) }) { return .deliberateRetry }
        return .transient
    }

    /// Whole seconds, rounded up.
    static func seconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds + (attoseconds > 0 ? 1 : 0)
    }
}

/// The last pending request, shared by the observer and the timeout.
private final class PendingBox: Sendable {
    let value = Mutex<PairingRequest?>(nil)
}
