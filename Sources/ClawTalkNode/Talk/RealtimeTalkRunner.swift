import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTalk
import Synchronization

/// Realtime Talk inside `clawtalk run` (talk.md §9.2): each time Talk mode is entered (by the CLI,
/// a wake word, the gateway's toggle), decides with ``RealtimeEligibility`` whether the relay is
/// used; if so, holds native Talk's capture (Talk stays on and reported) and runs a
/// ``RealtimeTalkSession`` until Talk ends (the session is closed) or the relay fails past its
/// reconnects (one notice; native Talk listens again until Talk is entered anew). Every decision
/// is logged with its reason.
final class RealtimeTalkRunner: Sendable {
    private struct State {
        var session: OperatorSession?
        var config: TalkConfig?
    }

    private let optedIn: Bool
    private let sessionKey: String?
    private let locale: String?
    private let onset: TalkModeConfiguration
    private let controller: TalkModeController
    private let microphone: any RealtimeMicrophone
    private let speaker: any RealtimeSpeaker
    private let logger: Logger
    private let status: VoiceStatusTap?
    private let state = Mutex(State())

    init(
        settings: Settings, locale: String?, onset: TalkModeConfiguration, controller: TalkModeController,
        microphone: any RealtimeMicrophone, speaker: any RealtimeSpeaker, status: VoiceStatusTap? = nil,
        logger: Logger
    ) {
        self.status = status
        optedIn = settings.talk.realtimeRelay
        sessionKey = settings.talk.sessionKey
        self.locale = locale
        self.onset = onset
        self.controller = controller
        self.microphone = microphone
        self.speaker = speaker
        self.logger = logger.child(category: "talk.realtime")
    }

    /// The operator session to use (nil: none).
    func attach(operator session: OperatorSession?) {
        state.locked { $0.session = session }
    }

    /// The gateway's latest `talk.config`.
    func update(_ config: TalkConfig) {
        state.locked { $0.config = config }
    }

    /// Follows Talk's phases until cancelled.
    func run() async {
        guard optedIn else { return }
        await withTaskGroup(of: Void.self) { group in
            var wasOff = true
            for await phase in await controller.phases() {
                let off = phase == .idle
                if wasOff, !off { group.addTask { await self.talkEntered() } }
                wasOff = off
            }
            group.cancelAll()
        }
    }

    /// One Talk session: the relay while eligible, else (or after its fallback) native Talk.
    private func talkEntered() async {
        var (session, config) = state.locked { ($0.session, $0.config) }
        var catalog: TalkCatalog?
        var scopes: [String]?
        var offered = false
        var connected = false
        if let session, await session.isConnected {
            connected = true
            // Talk may be entered before the node's own read of `talk.config` has answered (right
            // after connecting, or entering Talk triggers that read): decide on a fresh one.
            if let fresh = try? TalkConfig(json: try await session.call(OperatorMethod.talkConfig.rawValue)) {
                config = fresh
                state.locked { $0.config = fresh }
            }
            scopes = await session.grantedScopes
            offered = true
            for method in RealtimeEligibility.requiredMethods where !(await session.isAvailable(method.rawValue)) {
                offered = false
            }
            if TalkRealtimeConfig(json: config?.realtime)?.wantsGatewayRelay == true,
                await session.isAvailable(OperatorMethod.talkCatalog.rawValue)
            {
                catalog = TalkCatalog(json: try? await session.call(OperatorMethod.talkCatalog.rawValue, params: [:]))
            }
        }
        let realtime = TalkRealtimeConfig(json: config?.realtime)
        let decision = RealtimeEligibility.decide(
            optedIn: optedIn, operatorConnected: connected, realtime: realtime,
            catalog: catalog, grantedScopes: scopes, methodsOffered: offered)
        guard case .relay = decision, let session else {
            if case .native(let reason) = decision {
                logger.info("realtime.not_used", ["reason": .string(reason.rawValue)])
            }
            return
        }
        logger.notice("realtime.started", ["privacy": "Talk microphone audio goes to the gateway's provider"])
        await controller.holdForRealtime()
        var configuration = RealtimeTalkConfiguration(
            sessionKey: sessionKey ?? config?.sessionMainKey ?? TalkConfig.defaultSessionKey,
            language: config?.speechLocale ?? locale, realtime: realtime)
        configuration.onset = onset
        configuration.idleTimeout = onset.applying(config, localIdleTimeout: onset.idleTimeout).idleTimeout
        // Final transcripts to `clawtalk status` (the log has them too, redacted by default).
        let status = status
        let realtimeSession = RealtimeTalkSession(
            session: session, microphone: microphone, speaker: speaker, configuration: configuration, logger: logger
        ) { role, text, final in
            guard final, !text.isEmpty else { return }
            switch role {
            case .user: status?.note(transcript: text)
            case .assistant: status?.note(reply: text)
            }
        }
        status?.note(realtimeRelay: true)
        defer { status?.note(realtimeRelay: false) }
        let controller = controller
        let outcome = await withTaskGroup(of: RealtimeTalkOutcome?.self) { group in
            group.addTask { await realtimeSession.run() }
            group.addTask {
                // Push-to-talk preempts the relay as it preempts native Talk (ends when cancelled).
                for await active in await controller.pushToTalkChanges() {
                    await realtimeSession.setPushToTalk(active)
                }
                return nil
            }
            group.addTask {
                // Talk ended: nil ends the relay (its run then closes the session).
                for await phase in await controller.phases() where phase == .idle { return nil }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            var result = RealtimeTalkOutcome.ended
            while let next = await group.next() { if let next { result = next } }
            return result
        }
        switch outcome {
        case .fellBack(let reason):
            logger.notice("realtime.fallback_to_native", ["reason": .string(reason)])
            await controller.releaseRealtimeHold(resume: true)
        case .ended:
            await controller.releaseRealtimeHold(resume: false)
        case .idle:
            // As native Talk's idle timeout: Talk ends, wake listening takes over.
            logger.info("realtime.idle_exit", [:])
            await controller.releaseRealtimeHold(resume: false)
            await controller.exit()
        }
    }
}
