public import ClawTalkSupport

extension SpeechOutput {
    /// Formats and fallback policy of speech output (`tts.*`, talk.md §7).
    public struct Configuration: Sendable, Equatable {
        /// `outputFormat` asked of `talk.speak`; nil omits it (`auto`). Default `pcm_24000`.
        public var outputFormat: String?
        /// When espeak-ng may follow a gateway failure. Default `eligible`.
        public var fallback: TTSFallback
        /// espeak-ng voice when the directive names no language. Default `en-us`.
        public var espeakVoice: String
        /// espeak-ng rate when the directive sets none, words per minute. Default 175.
        public var espeakRateWPM: Int
        /// Longest text of one synthesis request, characters. Default 4000.
        public var maxRequestCharacters: Int
        /// Audio queued ahead of playback before the next request is made. Default 3 s.
        public var prefetchLead: Duration
        /// Audio queued ahead of playback before the next clip joins the output stream; until
        /// then a rewritten reply can still withdraw it (talk.md §4.3). Default 0.5 s.
        public var handoffLead: Duration

        /// A configuration with the given values.
        public init(
            outputFormat: String? = "pcm_24000", fallback: TTSFallback = .eligible, espeakVoice: String = "en-us",
            espeakRateWPM: Int = 175, maxRequestCharacters: Int = 4000, prefetchLead: Duration = .seconds(3),
            handoffLead: Duration = .milliseconds(500)
        ) {
            self.outputFormat = outputFormat
            self.fallback = fallback
            self.espeakVoice = espeakVoice
            self.espeakRateWPM = espeakRateWPM
            self.maxRequestCharacters = maxRequestCharacters
            self.prefetchLead = prefetchLead
            self.handoffLead = handoffLead
        }

        /// The configuration of `tts.*` settings.
        public init(settings: TTSSettings) {
            self.init(
                outputFormat: settings.requestedOutputFormat, fallback: settings.fallback,
                espeakVoice: settings.espeakVoice, espeakRateWPM: settings.espeakRateWPM)
        }
    }
}
