/// Every setting clawtalk reads, one struct per subsystem. The defaults are the property
/// initial values; ``SettingDescriptor/all`` describes each leaf (key, type, range, doc) and
/// drives loading, validation, the default config file and `clawtalk doctor`.
public struct Settings: Sendable, Equatable {
    /// Gateway connection (`gateway.*`).
    public var gateway = GatewaySettings()
    /// Capture device (`mic.*`).
    public var mic = MicSettings()
    /// Playback device (`speaker.*`).
    public var speaker = SpeakerSettings()
    /// Echo cancellation, noise suppression, gain (`processing.*`).
    public var processing = ProcessingSettings()
    /// Voice wake (`wake.*`).
    public var wake = WakeSettings()
    /// Speech-to-text (`stt.*`).
    public var stt = STTSettings()
    /// Talk mode (`talk.*`).
    public var talk = TalkSettings()
    /// Push-to-talk (`ptt.*`).
    public var ptt = PTTSettings()
    /// Speech output (`tts.*`).
    public var tts = TTSSettings()
    /// Logging (`log.*`).
    public var log = LogSettings()
    /// Desktop notifications (`notify.*`).
    public var notify = NotifySettings()
    /// Gateway discovery (`discovery.*`).
    public var discovery = DiscoverySettings()

    /// All defaults.
    public init() {}

    /// The built-in defaults (what an empty config file yields).
    public static let defaults = Settings()

    /// Whether speech may interrupt playback (talk.md §5.5 of the Talk contract): `talk.interruptOnSpeech`
    /// and echo under control (in-process AEC, or an acoustically isolated output).
    public var bargeInEnabled: Bool {
        talk.interruptOnSpeech && (processing.needsEchoCancellation || speaker.acousticallyIsolated)
    }
}
