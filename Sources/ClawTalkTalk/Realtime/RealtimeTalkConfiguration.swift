public import ClawTalkProtocol

/// Settings of one realtime Talk run (talk.md §9.2); the contract's timings by default.
public struct RealtimeTalkConfiguration: Sendable {
    /// The chat session the conversation belongs to.
    public var sessionKey: String
    /// Two-letter (or BCP-47) language for the provider; nil: not sent.
    public var language: String?
    /// The gateway's `talk.realtime` (provider, voice, server-VAD values).
    public var realtime: TalkRealtimeConfig?
    /// `talk.session.create` answer limit (20 s).
    public var createTimeout: Duration = .seconds(20)
    /// `ready` limit after create (12 s).
    public var readyTimeout: Duration = .seconds(12)
    /// Each `appendAudio` answer (8 s).
    public var appendTimeout: Duration = .seconds(8)
    /// Appends in flight at most (4).
    public var maxInFlight = 4
    /// Largest reply chunk accepted, decoded bytes (the whole playback queue: 32 × 20 ms).
    public var maximumChunkBytes: Int?
    /// Talk's barge-in settings for the onset detector.
    public var onset = TalkModeConfiguration()
    /// Leave Talk after this long with no speech from the user and no reply playing (the
    /// effective `talk.idleTimeoutS`, as in native Talk; nil: never).
    public var idleTimeout: Double?
    /// Barge-in's timings (talk.md §9.2 "Barge-in", ``RealtimeBargeIn``): cancel at an onset with
    /// strong evidence of a voice, else pause and confirm with the speech over the silenced reply.
    public var bargeIn = RealtimeBargeIn.Settings()

    /// A configuration for `sessionKey`.
    public init(sessionKey: String, language: String? = nil, realtime: TalkRealtimeConfig? = nil) {
        self.sessionKey = sessionKey
        self.language = language
        self.realtime = realtime
    }

    /// The chunk limit for output `format`.
    func chunkLimit(_ format: RealtimeAudioFormat) -> Int {
        maximumChunkBytes ?? format.samplesPer20ms * 2 * RealtimeTalkMachine.queueLimit
    }
}

/// How a realtime run ended.
public enum RealtimeTalkOutcome: Sendable, Hashable {
    /// Talk ended (the run was cancelled); the session was closed.
    case ended
    /// The relay failed past the reconnects (or could not start): native Talk takes over.
    case fellBack(reason: String)
    /// The idle timeout passed (``RealtimeTalkConfiguration/idleTimeout``): Talk ends; the
    /// session was closed.
    case idle
}
