/// Speech-to-text (`stt.*`).
public struct STTSettings: Sendable, Equatable {
    /// Engine. Default `wyoming`.
    public var engine = STTEngine.wyoming
    /// Host of a Wyoming STT server the user runs (with ``wyomingPort``, default 10300). Default
    /// nil: the node's own server on its private socket (``address(paths:)``).
    public var wyomingHost: String? = nil
    /// TCP port of a Wyoming STT server the user runs (with ``wyomingHost``, default
    /// `127.0.0.1`). Default nil.
    public var wyomingPort: Int? = nil
    /// Unix socket of a Wyoming STT server the user runs; wins over host and port. Default nil.
    public var wyomingSocket: String? = nil
    /// Who runs the Wyoming server. Default `auto`: `clawtalk run` starts the installed one on a
    /// private Unix socket, or uses the address the user configured.
    public var server = SpeechServerMode.auto
    /// Language (BCP-47, e.g. `en-US`). Default nil: the Talk/system locale.
    public var language: String? = nil
    /// The Whisper model of the node's own server. Default `tiny.en`.
    public var model = STTModel.tinyEn

    /// Creates the defaults.
    public init() {}

    /// Where `stt.server: external` looks when no address is configured: the `clawtalk-stt`
    /// unit's `127.0.0.1:10300`.
    public static let defaultExternalAddress = WyomingAddress.tcp(host: "127.0.0.1", port: 10300)

    /// The address the user configured (`stt.wyomingSocket`, else `stt.wyomingHost` and/or
    /// `stt.wyomingPort`), nil when none is.
    public var configuredAddress: WyomingAddress? {
        if let wyomingSocket { return .unix(path: wyomingSocket) }
        guard wyomingHost != nil || wyomingPort != nil else { return nil }
        return .tcp(host: wyomingHost ?? "127.0.0.1", port: wyomingPort ?? 10300)
    }

    /// Whether the server is the node's own on its private socket: `auto` with no address
    /// configured. Such a server is started, never looked for: nothing else is ever used there.
    public var usesOwnServer: Bool { server == .auto && configuredAddress == nil }

    /// Where speech-to-text goes: the configured address, else the node's own socket
    /// (`$XDG_RUNTIME_DIR/clawtalk/speech.sock`; ``defaultExternalAddress`` for `external`).
    public func address(paths: XDGPaths) -> WyomingAddress {
        if let configuredAddress { return configuredAddress }
        return server == .external ? Self.defaultExternalAddress : .unix(path: paths.speechSocket)
    }
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

/// The Whisper model `clawtalk run`'s own speech server transcribes with (`stt.model`).
public enum STTModel: String, Sendable, CaseIterable {
    /// Whisper tiny.en for English, the model the wake scorer already holds, so one Whisper
    /// serves both; Whisper base is loaded for another language only when one is asked for.
    /// About 130 MB less memory and 40 % faster per request than base; on the turn bench's
    /// corpus as accurate (docs/benchmarks.md), on harder speech somewhat less.
    case tinyEn = "tiny.en"
    /// Whisper base for every language: more accurate on hard speech, about 130 MB more memory.
    case base
}

/// Who runs a Wyoming server that `clawtalk run` uses: the speech-to-text server (`stt.server`)
/// or the wake-word scorer (`wake.scorer`).
public enum SpeechServerMode: String, Sendable, CaseIterable {
    /// With no address configured, `clawtalk run` starts and supervises the installed server on a
    /// Unix socket in its private runtime directory and uses nothing else. With an address
    /// configured, it uses a server that answers there; when none does and the address is on
    /// this machine, it starts the installed one there.
    case auto
    /// Only ever use a server run by someone else (a `clawtalk-stt` unit, another machine) at the
    /// configured address (default `127.0.0.1:10300` for speech-to-text).
    case external
    /// Never start one (nor watch for one).
    case off
}
