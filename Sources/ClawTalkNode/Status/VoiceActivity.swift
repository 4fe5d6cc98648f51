/// What the voice side of the running node is doing, for `clawtalk status --watch`: the phase,
/// the microphone level and the last transcript. Written into `status.json` by
/// ``GatewayService`` through its `setPhase`/`setInputLevel`/`setLastTranscript` setters.
package struct VoiceActivity: Sendable, Equatable, Codable {
    /// The phase of the voice pipeline.
    package enum Phase: String, Sendable, Equatable, Codable, CaseIterable {
        /// Waiting for a wake word or push-to-talk.
        case idle
        /// Capturing an utterance.
        case listening
        /// Transcribing, or waiting for the agent's reply.
        case thinking
        /// Playing a reply.
        case speaking
    }

    /// The phase.
    package var phase: Phase
    /// When the phase began (ISO 8601).
    package var phaseSince: String
    /// The microphone level in dBFS (RMS of the last frames), when someone measures it.
    package var levelDBFS: Double?
    /// The last transcript delivered (the status file is private to the user, mode 0600).
    package var lastTranscript: String?
    /// When ``lastTranscript`` was heard (ISO 8601).
    package var lastTranscriptAt: String?
    /// The last reply's transcript from realtime Talk's provider (talk.md §9.2).
    package var lastReply: String?
    /// When ``lastReply`` was heard (ISO 8601).
    package var lastReplyAt: String?
    /// True while realtime Talk runs over the relay: the microphone audio of Talk goes to the
    /// gateway's provider (talk.md §9.2 "Privacy").
    package var realtimeRelay: Bool?

    /// Idle since `time`.
    static func idle(at time: String) -> VoiceActivity {
        VoiceActivity(phase: .idle, phaseSince: time)
    }

    /// A text level meter: 20 cells from -60 to 0 dBFS, then the value.
    package static func meter(_ dbfs: Double?) -> String {
        guard let dbfs, dbfs.isFinite else { return "[" + String(repeating: ".", count: 20) + "]  no signal" }
        let clamped = min(0, max(-60, dbfs))
        let filled = Int(((clamped + 60) / 60 * 20).rounded())
        let value = (dbfs * 10).rounded() / 10
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled)
            + "]  \(value) dBFS"
    }
}
