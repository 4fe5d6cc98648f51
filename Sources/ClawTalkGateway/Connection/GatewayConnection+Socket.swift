import ClawTalkProtocol
import ClawTalkSupport
import Foundation

extension GatewayConnection {
    /// Dials one socket and runs it until it ends; returns how it ended.
    func runSocket() async -> SocketEnd {
        epoch += 1
        let socketEpoch = epoch
        let endpoint = configuration.endpoint
        if !endpoint.isTransportAllowed {
            guard configuration.allowInsecureRemote else {
                return .localFailure(
                    PauseInfo(
                        code: "INSECURE_TRANSPORT", message: "ws:// to \(endpoint.host) is not on the local network",
                        nextStep: "use a wss:// URL (or set gateway.allowInsecureRemote), then reconnect"))
            }
            logger.warning("gateway.insecure_transport", ["url": .string(endpoint.urlString)])
        }
        let pin = endpoint.isSecure ? currentPin() : nil
        logger.info("gateway.connecting", ["url": .string(endpoint.urlString), "epoch": .int(socketEpoch)])
        let request = GatewayDialRequest(
            url: endpoint.urlString, tlsPinSHA256: pin?.hex,
            maxMessageBytes: max(GatewayLimits.receiveLimitBeforeHello, lastMaxPayload),
            timeout: configuration.timeouts.connect)
        let socket: any GatewaySocket
        do {
            socket = try await dialer.dial(request)
        } catch {
            let message = "\(error)"
            // A leaf mismatch (protocol.md §17.1.2) gets the same backoff but a clearer status. The libwebsockets
            // dialer throws it typed; other dialers may only say "pin mismatch".
            if case TransportError.tlsPinMismatch = error { return .pinMismatch(message) }
            if message.lowercased().contains("pin mismatch") { return .pinMismatch(message) }
            return .failed("dial failed: \(message)")
        }
        if nextStep == .finish {
            socket.close(code: 1000, reason: "client stopping")
            return .closed(code: 1000, reason: "client stopping")
        }
        currentSocket = socket
        pinUsed = pin
        let opened = now()
        handshake = .awaitingChallenge(since: opened)
        lastInbound = opened
        // The socket's task group runs in a task of its own so stop() can cancel it even if the
        // socket never reports its close.
        let supervisor = Task { await self.supervise(socket, epoch: socketEpoch) }
        socketTask = supervisor
        let end = await supervisor.value
        socketTask = nil
        teardown(socket, end: end, epoch: socketEpoch)
        return end
    }

    /// One task group per socket: reader and watchdog live and die together.
    ///
    /// When the tick watchdog fires, the reader is kept for the closing handshake (protocol.md §4.3.2): the
    /// 4000 close goes out through the socket's write queue like any frame, and the group waits
    /// for the reader to see the peer's close or the socket end, at most ``closeGracePeriod``,
    /// before it is torn down. A peer that went quiet may still read, so it gets the code.
    private func supervise(_ socket: any GatewaySocket, epoch: Int) async -> SocketEnd {
        await withTaskGroup(of: SocketEnd.self) { group in
            group.addTask { await self.readLoop(socket, epoch: epoch) }
            group.addTask { await self.watchdog() }
            let first = await group.next() ?? .cancelled
            if case .watchdog = first {
                startWatchdogClose(socket, epoch: epoch)
                let clock = clock
                group.addTask {
                    try? await clock.sleep(for: Self.closeGracePeriod)
                    return .cancelled
                }
                // The reader's end (the peer answered or the socket ended) or the bound, first.
                _ = await group.next()
            }
            group.cancelAll()
            return first
        }
    }

    /// The close code and reason the tick watchdog sends (protocol.md §4.3.2, §5).
    static let watchdogClose = (code: 4000, reason: "tick timeout")

    /// The tick watchdog fired: frames that still arrive are no longer acted on, and the 4000
    /// close is queued behind whatever the socket is still sending.
    private func startWatchdogClose(_ socket: any GatewaySocket, epoch: Int) {
        let silence = now() - lastInbound
        logger.warning(
            "gateway.watchdog.expired",
            ["epoch": .int(epoch), "silentMs": .int(Backoff.milliseconds(silence))])
        handshake = .idle
        socket.close(code: Self.watchdogClose.code, reason: Self.watchdogClose.reason)
    }

    /// The pin for this dial: CLI/config first, else the stored one.
    private func currentPin() -> TLSFingerprint? {
        if let pin = configuration.configuredPin { return pin }
        return (try? store.pin(for: gatewayKey))?.fingerprint
    }

    /// Reads frames until the socket ends or the handshake fails.
    private func readLoop(_ socket: any GatewaySocket, epoch: Int) async -> SocketEnd {
        for await event in socket.inbound {
            switch event {
            case .message(let data):
                lastInbound = now()
                if let end = receive(data, socket: socket, epoch: epoch) { return end }
            case .closed(let code, let reason):
                return .closed(code: code, reason: reason)
            case .failed(let reason):
                return .failed(reason)
            }
        }
        return .cancelled
    }

    /// Challenge and connect deadlines before `hello-ok`, the tick watchdog after (protocol.md §4.3).
    private func watchdog() async -> SocketEnd {
        while !Task.isCancelled {
            let (deadline, end) = watchdogDeadline()
            let remaining = deadline - now()
            if remaining <= .zero { return end }
            // Before hello-ok the deadline moves with the handshake, and the tick window that
            // follows may be shorter than the challenge timeout: look again every 250 ms until live.
            var slice = remaining
            if case .live = handshake {} else { slice = min(remaining, .milliseconds(250)) }
            do {
                try await clock.sleep(for: slice)
            } catch {
                return .cancelled
            }
        }
        return .cancelled
    }

    private func watchdogDeadline() -> (Duration, SocketEnd) {
        let timeouts = configuration.timeouts
        switch handshake {
        case .awaitingChallenge(let since):
            if timeouts.challenge <= timeouts.connect {
                return (
                    since + timeouts.challenge, .handshakeTimeout("no connect.challenge within \(timeouts.challenge)")
                )
            }
            return (since + timeouts.connect, .handshakeTimeout("no hello-ok within \(timeouts.connect)"))
        case .awaitingHello(_, let since):
            return (since + timeouts.connect, .handshakeTimeout("no hello-ok within \(timeouts.connect)"))
        case .live:
            let window = Duration.milliseconds(
                link?.hello.policy.watchdogMs ?? 2 * GatewayLimits.tickIntervalMsBeforeHello)
            return (lastInbound + window, .watchdog)
        case .idle:
            return (now() + .seconds(3600), .cancelled)
        }
    }

    /// Closes what is left of the socket and drops it, fails its pending requests, tells
    /// subscribers.
    private func teardown(_ socket: any GatewaySocket, end: SocketEnd, epoch: Int) {
        switch end {
        case .watchdog:
            break  // its close went out in supervise(_:epoch:), before the wait for the peer
        case .closed, .failed, .pinMismatch:
            break
        default:
            socket.close(code: 1000, reason: "client closing")
        }
        socket.drop()
        let wasLive = link != nil
        currentSocket = nil
        link = nil
        handshake = .idle
        let failure = GatewayError.closed(reason: end.reason)
        let waiting = pending
        pending = [:]
        for promise in waiting.values { promise.resolve(.failure(failure)) }
        logger.info(
            "gateway.disconnected",
            ["epoch": .int(epoch), "reason": .string(end.reason), "failedRequests": .int(waiting.count)])
        if wasLive { broadcast(.disconnected(epoch: epoch, reason: end.reason)) }
    }
}
