import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTalk

/// Interim transcript route of `clawtalk run` until the full delivery (operator `chat.send`,
/// persistent outbox, talk.md §3) is wired in: `node.event voice.transcript
/// {text, sessionKey, eventId}` on the live node session (the node-only route of talk.md §3.1). With no
/// connected session nothing is kept: the receipt is `failed`, which PTT reports as `offline`.
package actor NodeTranscriptDelivery: TranscriptDelivering {
    /// `talk.sessionKey`, else `main`.
    let sessionKey: String
    private let logger: Logger
    private var session: NodeSession?

    /// A route to `sessionKey`.
    init(sessionKey: String, logger: Logger) {
        self.sessionKey = sessionKey
        self.logger = logger.child(category: "delivery")
    }

    /// Uses `session` from now on (each gateway session brings its own).
    func attach(_ session: NodeSession) {
        self.session = session
    }

    /// Sends `voice.transcript` when the node is connected.
    func deliver(_ transcript: String, source: TranscriptSource) async -> DeliveryReceipt {
        let event = VoiceTranscriptEvent(text: transcript, sessionKey: sessionKey)
        guard let session, await session.isConnected else {
            logger.warning("delivery.offline", ["source": .string(source.rawValue)])
            return DeliveryReceipt(outcome: .failed("gateway not connected; nothing was sent"), id: event.eventId)
        }
        do {
            try await session.sendEvent(.voiceTranscript(event), timeout: .seconds(10))
            logger.info(
                "delivery.sent",
                ["route": "voice.transcript", "eventId": .string(event.eventId), "source": .string(source.rawValue)])
            return DeliveryReceipt(outcome: .sent(route: .voiceTranscript), id: event.eventId)
        } catch {
            logger.warning("delivery.failed", ["eventId": .string(event.eventId), "error": .string("\(error)")])
            return DeliveryReceipt(outcome: .failed("\(error)"), id: event.eventId)
        }
    }
}
