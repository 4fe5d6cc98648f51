/// Speech-to-text (`stt.*`).
public struct STTSettings: Sendable, Equatable {
    /// Engine. Default `wyoming`.
    public var engine = STTEngine.wyoming
    /// Host of the Wyoming STT server. Default `127.0.0.1`.
    public var wyomingHost = "127.0.0.1"
    /// TCP port of the Wyoming STT server. Default 10300.
    public var wyomingPort = 10300
    /// Who runs the Wyoming server. Default `auto`: `clawtalk run` starts the installed one when
    /// nothing answers at the address.
    public var server = SpeechServerMode.auto
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

/// Who runs a Wyoming server that `clawtalk run` uses: the speech-to-text server (`stt.server`)
/// or the wake-word scorer (`wake.scorer`).
public enum SpeechServerMode: String, Sendable, CaseIterable {
    /// Use a server that answers at the configured address; when none does and the address is
    /// on this machine, `clawtalk run` starts and supervises the installed one.
    case auto
    /// Only ever use a server run by someone else (a `clawtalk-stt` unit, another machine).
    case external
    /// Never start one (nor watch for one).
    case off
}
