public import ClawTalkProtocol
import ClawTalkSupport

/// Wake routing (talk.md §6.2): a voice-wake command goes to the session its trigger is
/// routed to. The routing follows `voicewake.routing.get` and `voicewake.routing.changed` from
/// both connections, live; until the gateway says otherwise every command goes to the current
/// session.
extension TranscriptDelivery {
    /// The routing in use.
    public var currentWakeRouting: VoiceWakeRouting { wakeRouting }

    /// Uses `routing` for the next wake commands.
    public func applyWakeRouting(_ routing: VoiceWakeRouting) {
        guard routing != wakeRouting else { return }
        wakeRouting = routing
        logger.info("delivery.wake_routing", ["routes": .int(routing.routes.count)])
    }

    /// Applies every routing `stream` yields until it ends or the task is cancelled.
    func followWakeRouting(_ stream: AsyncStream<VoiceWakeRouting>) -> Task<Void, Never> {
        // Unstructured on purpose: the caller keeps the handle and cancels it with the session.
        Task { [weak self] in
            for await routing in stream {
                await self?.applyWakeRouting(routing)
            }
        }
    }

    /// The session `source`'s transcript goes to: a wake command's routed session, else
    /// ``sessionKey``. An `{agentId}` target is not delivered (UNVERIFIED upstream): the default
    /// target is used and a warning logged.
    func sessionKey(for source: TranscriptSource, trigger: String?) -> String {
        guard source == .voiceWake, let trigger else { return sessionKey }
        switch wakeRouting.target(for: trigger) {
        case .current:
            return sessionKey
        case .session(let key):
            return key
        case .agent(let agentId):
            logger.warning(
                "delivery.wake_route.agent_unsupported",
                ["trigger": .string(trigger), "agentId": .string(agentId)])
            if case .session(let key) = wakeRouting.defaultTarget { return key }
            return sessionKey
        }
    }
}
