public import ClawTalkSupport

extension TranscriptDelivery {
    /// Routes, session and outbox limits of transcript delivery (talk.md §3).
    public struct Configuration: Sendable, Equatable {
        /// `talk.sessionKey`; nil: `talk.config` `session.mainKey`, else `main`.
        public var sessionKey: String?
        /// Route of wake commands in full mode (`wake.route`).
        public var wakeRoute: WakeRoute
        /// On the `agent` route, start the prompt with the voice hint line (`wake.promptHint`).
        public var wakePromptHint: Bool
        /// This host's name, for the `agent` hint.
        public var hostName: String
        /// Most transcripts kept offline per gateway; the oldest is dropped beyond. Default 50.
        public var outboxCapacity: Int
        /// Queued transcripts older than this are dropped. Default 48 h.
        public var outboxMaxAge: Duration
        /// First delay between flush attempts; doubles per failure. Default 1 s.
        public var retryInitial: Duration
        /// Longest delay between flush attempts. Default 30 s.
        public var retryMaximum: Duration
        /// Client timeout of `chat.send` / `agent`. Default 30 s.
        public var requestTimeout: Duration
        /// The reply to a flushed transcript is spoken only if it waited at most this long
        /// (the reply-tracking deadline). Default 120 s.
        public var speakRepliesQueuedWithin: Duration

        /// A configuration with the given values.
        public init(
            sessionKey: String? = nil, wakeRoute: WakeRoute = .voiceTranscript, wakePromptHint: Bool = true,
            hostName: String = "linux", outboxCapacity: Int = 50, outboxMaxAge: Duration = .seconds(48 * 3600),
            retryInitial: Duration = .seconds(1), retryMaximum: Duration = .seconds(30),
            speakRepliesQueuedWithin: Duration = .seconds(120), requestTimeout: Duration = .seconds(30)
        ) {
            self.sessionKey = sessionKey
            self.wakeRoute = wakeRoute
            self.wakePromptHint = wakePromptHint
            self.hostName = hostName
            self.outboxCapacity = outboxCapacity
            self.outboxMaxAge = outboxMaxAge
            self.retryInitial = retryInitial
            self.retryMaximum = retryMaximum
            self.speakRepliesQueuedWithin = speakRepliesQueuedWithin
            self.requestTimeout = requestTimeout
        }

        /// The configuration of `settings` (`talk.sessionKey`, `wake.route`, `wake.promptHint`).
        public init(settings: Settings, hostName: String) {
            self.init(
                sessionKey: settings.talk.sessionKey, wakeRoute: settings.wake.route,
                wakePromptHint: settings.wake.promptHint, hostName: hostName)
        }
    }
}

extension Duration {
    /// Whole milliseconds.
    var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
