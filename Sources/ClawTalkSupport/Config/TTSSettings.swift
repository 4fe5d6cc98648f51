/// Speech output (`tts.*`).
public struct TTSSettings: Sendable, Equatable {
    /// `outputFormat` asked of `talk.speak` (`pcm_<rate>`, `mp3_…`, …; `auto` omits it).
    /// Default `pcm_24000`.
    public var outputFormat = "pcm_24000"
    /// When to fall back to local espeak-ng after a gateway synthesis failure. Default `eligible`.
    public var fallback = TTSFallback.eligible
    /// espeak-ng voice. Default `en-us`.
    public var espeakVoice = "en-us"
    /// espeak-ng speaking rate, in words per minute. Default 175.
    public var espeakRateWPM = 175

    /// Creates the defaults.
    public init() {}

    /// The `outputFormat` param to send, nil for `auto`.
    public var requestedOutputFormat: String? { outputFormat == "auto" ? nil : outputFormat }
}

/// Local speech fallback policy (`tts.fallback`, talk.md §7.5).
public enum TTSFallback: String, Sendable, CaseIterable {
    /// Only when the gateway marks the failure fallback-eligible (or it is a transport failure).
    case eligible
    /// After any gateway failure.
    case always
    /// Never: failures stay silent apart from the error earcon.
    case never
}
