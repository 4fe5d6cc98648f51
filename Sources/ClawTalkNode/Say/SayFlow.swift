package import ClawTalkGateway
package import ClawTalkProtocol
package import ClawTalkSupport
package import ClawTalkTalk

/// `clawtalk say` on the reply path (talk.md §7.5): the gateway's Talk voice over a
/// short-lived operator connection to the current gateway, espeak-ng on this machine when the
/// gateway cannot be used (not configured, no operator access, unreachable) — with a notice.
public enum SayFlow {
    /// The gateway to try and how to connect to it.
    package struct GatewayAccess: Sendable {
        /// Builds the operator connection.
        package var factory: GatewayConnectionFactory
        /// The current gateway.
        package var target: GatewayTarget

        /// Connects through `factory` to `target`.
        package init(factory: GatewayConnectionFactory, target: GatewayTarget) {
            self.factory = factory
            self.target = target
        }
    }

    /// Speaks `text` and returns how it went. `notice` receives one line when the gateway is
    /// not used (`withoutGateway` says why when `gateway` is nil).
    package static func speak(
        _ text: String, directive: TalkDirective?, settings: Settings, gateway: GatewayAccess?,
        withoutGateway: String = "no gateway is configured",
        audio: any AudioOutput, local: (any LocalSynthesizer)?, connectTimeout: Duration = .seconds(5),
        logger: Logger, errorEarcon: @escaping @Sendable () async -> Void = {}, notice: (String) -> Void
    ) async -> SpeechResult {
        let speech = SpeechOutput(
            audio: audio, local: local, configuration: SpeechOutput.Configuration(settings: settings.tts),
            logger: logger, errorEarcon: errorEarcon)
        var opened: OpenOperator?
        if let gateway {
            switch await openOperator(gateway, timeout: connectTimeout, logger: logger) {
            case .success(let open):
                opened = open
                await speech.attach(operator: open.session)
                if let config = await talkConfig(open.session) { await speech.updateTalkConfig(config) }
            case .failure(let problem):
                notice("Note: \(problem.reason); speaking with espeak-ng on this machine.")
            }
        } else {
            notice("Note: \(withoutGateway); speaking with espeak-ng on this machine.")
        }
        let result = await speech.speak(text, directive: directive, purpose: .reply)
        await opened?.close()
        return result
    }

    /// A running operator connection and its session.
    package struct OpenOperator: Sendable {
        let connection: GatewayConnection
        package let session: OperatorSession
        let tasks: [Task<Void, Never>]

        package func close() async {
            await connection.stop()
            for task in tasks { task.cancel() }
        }
    }

    /// Why the gateway is not used.
    package struct Unusable: Error {
        package var reason: String
    }

    /// Connects the operator role and waits for `hello-ok` (at most `timeout`); refuses early
    /// when the device has no operator credentials (no pairing request is raised) or the
    /// connection pauses or waits for approval.
    package static func openOperator(_ access: GatewayAccess, timeout: Duration, logger: Logger) async
        -> Result<OpenOperator, Unusable>
    {
        let factory = access.factory
        let target = access.target
        let stored = try? factory.store.deviceToken(
            for: target.key, deviceId: factory.identity.deviceId, role: .operator)
        guard stored != nil || target.sharedToken != nil || target.password != nil else {
            return .failure(
                Unusable(reason: "this device has no operator access to \(target.endpoint.urlString) yet"))
        }
        let connection = factory.operatorConnection(for: target)
        let session = OperatorSession(connection: connection, logger: logger)
        let open = OpenOperator(
            connection: connection, session: session,
            tasks: [Task { await session.run() }, Task { await connection.run() }])
        let states = await connection.states()
        let problem: String? = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                for await state in states {
                    if state.isConnected { return nil }
                    if let pause = state.pause { return "the gateway connection is paused (\(pause))" }
                    if await connection.pairingRequest != nil {
                        return "the operator connection waits for approval on the gateway"
                    }
                    if case .stopped = state { return "the gateway connection stopped" }
                }
                return "the gateway connection stopped"
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return "the gateway at \(target.endpoint.urlString) did not answer within \(timeout)"
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let problem {
            await open.close()
            return .failure(Unusable(reason: problem))
        }
        // The session handles the same hello-ok on its own subscription: its `connected` says
        // it is ready (at once when it already is; at most a second).
        let lifecycle = await session.subscribe(events: [])
        _ = try? await withTimeout(.seconds(1)) {
            for await event in lifecycle {
                if case .connected = event { return }
            }
        }
        return .success(open)
    }

    /// `talk.config` for voice aliases (short timeout; nil when unavailable).
    private static func talkConfig(_ session: OperatorSession) async -> TalkConfig? {
        guard await session.isAvailable(OperatorMethod.talkConfig.rawValue) else { return nil }
        let payload = try? await session.call(OperatorMethod.talkConfig.rawValue, timeout: .seconds(3))
        return payload.flatMap { try? TalkConfig(json: $0) }
    }
}
