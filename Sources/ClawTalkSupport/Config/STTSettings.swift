/// Speech-to-text (`stt.*`).
public struct STTSettings: Sendable, Equatable {
    /// Engine. Default `wyoming`.
    public var engine = STTEngine.wyoming
    /// Host of the Wyoming STT server. Default `127.0.0.1`.
    public var wyomingHost = "127.0.0.1"
    /// TCP port of the Wyoming STT server. Default 10300.
    public var wyomingPort = 10300
    /// Language (BCP-47, e.g. `en-US`). Default nil: the Talk/system locale.
    public var language: String? = nil

    /// Creates the defaults.
    public init() {}
}

/// Speech-to-text engine (`stt.engine`).
public enum STTEngine: String, Sendable, CaseIterable {
    /// A Wyoming server (e.g. wyoming-faster-whisper).
    case wyoming
    /// Local PocketSphinx.
    case pocketsphinx
    /// The gateway's transcription relay.
    case gateway
}
