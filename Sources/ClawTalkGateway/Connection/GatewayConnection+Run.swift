import ClawTalkProtocol
import ClawTalkSupport

extension GatewayConnection {
    /// Why a wait ended.
    enum WakeReason: Sendable {
        case timer
        case resumed
        case stopped
    }

    /// A parked run loop.
    struct Waiter {
        let token: Int
        let continuation: CheckedContinuation<WakeReason, Never>
    }

    /// Connects and stays connected until ``stop()`` (or cancellation of the calling task).
    /// Returns when stopped; never throws: failures become backoff, pause or status.
    public func run() async {
        guard !started else { return }
        started = true
        await withTaskCancellationHandler {
            await loop()
        } onCancel: {
            // Unstructured on purpose: a cancellation handler is synchronous and cannot await
            // the actor; the task only hops onto it.
            Task { await self.stop() }
        }
        ended = true
        stateChanges.finish()
        connectionEvents.finish()
        eventFrames.finish()
    }

    private func loop() async {
        perform(machine.handle(.start))
        while true {
            switch nextStep {
            case .finish:
                return
            case .connect:
                let end = await runSocket()
                perform(machine.handle(end.event))
            case .wait(let delay):
                if await park(for: delay) == .timer, nextStep == .wait(delay) { nextStep = .connect }
            case .paused(let reprobe):
                if await park(for: reprobe) == .timer, case .paused = nextStep {
                    logger.info("gateway.pairing.reprobe")
                    perform(machine.handle(.reprobeDue))
                }
            }
        }
    }

    /// Performs the machine's actions: flow actions set the next step, effects run now.
    func perform(_ actions: [ConnectionStateMachine.Action]) {
        let key = gatewayKey
        for action in actions {
            switch action {
            case .connect:
                nextStep = .connect
            case .reconnect(let delay):
                nextStep = .wait(delay)
                logger.info(
                    "gateway.reconnect.scheduled",
                    ["delayMs": .int(Backoff.milliseconds(delay)), "cause": .string(machine.state.description)])
            case .pause(let info, let reprobe):
                nextStep = .paused(reprobeAfter: reprobe)
                logger.warning(
                    "gateway.paused",
                    ["code": .string(info.code), "message": .string(info.message), "next": .string(info.nextStep)])
            case .closeSocket(let code, let reason):
                closeGracefully(code: code, reason: reason)
            case .finish:
                nextStep = .finish
            case .persistDeviceTokens(let auth, let additional):
                attempt("persist device token") {
                    try store.persist(auth, deviceId: identity.deviceId, for: key, includeAdditionalRoles: additional)
                }
            case .clearDeviceToken(let role):
                logger.notice("gateway.device_token.cleared", ["role": .string(role.rawValue)])
                attempt("clear device token") {
                    try store.removeDeviceToken(for: key, role: role, deviceId: identity.deviceId)
                }
            case .clearBootstrapToken:
                attempt("clear bootstrap token") { try store.clearPendingBootstrapToken(for: key) }
            case .useSignatureVersion(let version):
                logger.notice("gateway.signature.fallback", ["version": .string(version.rawValue)])
            case .rememberSignatureVersion(let remembered):
                attempt("remember signature version") { try store.setRememberedSignature(remembered, for: key) }
            case .forgetSignatureVersion:
                attempt("forget signature version") { try store.setRememberedSignature(nil, for: key) }
            case .retryWithDeviceToken:
                logger.notice("gateway.auth.retry_device_token")
            case .useOperatorClientPair(let pair):
                logger.notice(
                    "gateway.operator.client_pair",
                    ["id": .string(pair.id.rawValue), "mode": .string(pair.mode.rawValue)])
            case .rememberOperatorClientPair(let pair):
                attempt("remember operator client pair") { try store.setOperatorClientPair(pair, for: key) }
            case .reportPairingRequired(let pairing):
                pairingRequest = pairing
                logger.warning(
                    "gateway.pairing.required",
                    [
                        "deviceId": .string(pairing.deviceId), "requestId": .string(pairing.requestId ?? "-"),
                        "reason": .string(pairing.reason ?? "-"), "approve": .string(pairing.approvalCommand),
                    ])
            }
        }
        publishState()
    }

    /// Starts the closing handshake of the current socket. Its reader ends when the peer
    /// answers, so the close frame is on the wire before the socket is dropped; the socket's
    /// tasks are cancelled after ``closeGracePeriod`` if the peer does not answer.
    private func closeGracefully(code: Int, reason: String) {
        guard let socket = currentSocket, let task = socketTask else {
            socketTask?.cancel()
            return
        }
        socket.close(code: code, reason: reason)
        let clock = clock
        children.spawn {
            try? await clock.sleep(for: Self.closeGracePeriod)
            task.cancel()
        }
    }

    /// How long a closing socket waits for the peer's close before it is dropped (the stop
    /// close and the watchdog's 4000 close; protocol.md §4.3.2 allows at most 1 s).
    static let closeGracePeriod: Duration = .seconds(1)

    /// Runs a store operation, logging (not propagating) its failure.
    private func attempt(_ what: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch {
            logger.error("gateway.store.failed", ["operation": .string(what), "error": .string("\(error)")])
        }
    }

    /// Parks the loop until the delay elapses (nil: forever), ``resume()`` or ``stop()``.
    private func park(for delay: Duration?) async -> WakeReason {
        if nextStep == .finish { return .stopped }
        waiterToken += 1
        let token = waiterToken
        return await withCheckedContinuation { continuation in
            waiter = Waiter(token: token, continuation: continuation)
            if let delay {
                let clock = clock
                waiterTimer = Task { [weak self] in
                    do {
                        try await clock.sleep(for: delay)
                    } catch {
                        return
                    }
                    await self?.wake(.timer, token: token)
                }
            }
        }
    }

    /// Ends the current wait (for `.timer` only the wait with `token`).
    func wake(_ reason: WakeReason, token: Int? = nil) {
        guard let waiter, token == nil || token == waiter.token else { return }
        self.waiter = nil
        waiterTimer?.cancel()
        waiterTimer = nil
        waiter.continuation.resume(returning: reason)
    }
}
