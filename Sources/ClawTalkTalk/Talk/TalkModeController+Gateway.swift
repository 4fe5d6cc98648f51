public import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport

extension TalkModeController {
    /// Follows `session` (nil: node-only, nothing reported): applies its `talk.mode` events and
    /// reports phase changes on it; each `hello-ok` allows reporting again.
    public func attach(operator session: OperatorSession?) async {
        gatewayListener?.cancel()
        gatewayListener = nil
        operatorSession = session
        guard let session else { return }
        let stream = await session.subscribe(events: [GatewayEventName.talkMode.rawValue])
        gatewayListener = Task { [weak self] in
            for await event in stream {
                switch event {
                case .connected:
                    await self?.apply(.operatorConnected)
                case .event(_, let frame):
                    guard let mode = try? TalkModeEvent(json: frame.payload) else { continue }
                    await self?.received(mode)
                case .disconnected:
                    break
                }
            }
        }
    }

    private func received(_ mode: TalkModeEvent) {
        logger.info("talk.mode.received", ["enabled": .bool(mode.enabled), "phase": .string(mode.phase ?? "-")])
        apply(.gatewayMode(enabled: mode.enabled, phase: mode.phase))
    }

    /// Sends `talk.mode` in order on the report lane; a refusal is fed back to the machine.
    func report(_ params: TalkModeParams) {
        let session = operatorSession
        let logger = logger
        reportLane.enqueue {
            guard let session else {
                await self.apply(.reportFailed(params, forbidden: false))
                return
            }
            do {
                _ = try await session.call(OperatorMethod.talkMode.rawValue, params: try WireJSON(encoding: params))
                logger.debug(
                    "talk.mode.sent", ["enabled": .bool(params.enabled), "phase": .string(params.phase ?? "-")])
            } catch {
                let forbidden = Self.isForbidden(error)
                logger.warning(
                    forbidden ? "talk.mode.forbidden" : "talk.mode.failed", ["error": .string("\(error)")])
                await self.apply(.reportFailed(params, forbidden: forbidden))
            }
        }
    }

    /// `FORBIDDEN`/`MISSING_SCOPE`, now or earlier on this socket.
    static func isForbidden(_ error: any Error) -> Bool {
        switch error as? GatewayError {
        case .methodForbidden: true
        case .response(_, let shape): shape.gatewayCode == .forbidden || shape.isMissingScope
        default: false
        }
    }
}
