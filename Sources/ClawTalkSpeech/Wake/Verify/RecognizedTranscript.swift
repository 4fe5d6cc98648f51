/// A speech recognizer's result as the trigger gate sees it: words in order, with word timings
/// when the recognizer gives them.
public struct RecognizedTranscript: Sendable, Hashable {
    /// One recognized word as written by the recognizer (case and punctuation kept).
    public struct Word: Sendable, Hashable {
        /// The word as recognized, e.g. `Computer,`.
        public var text: String
        /// Start of the word in seconds from the start of the transcribed audio, if known.
        public var start: Double?
        /// End of the word in seconds from the start of the transcribed audio, if known.
        public var end: Double?

        /// A word, with timings when the recognizer reports them.
        public init(_ text: String, start: Double? = nil, end: Double? = nil) {
            self.text = text
            self.start = start
            self.end = end
        }
    }

    /// The words, in order.
    public var words: [Word]
    /// True for a recognizer's final result (or a partial that has not changed for the silence
    /// fallback of ``TriggerMatcher/Configuration/silenceFallback``).
    public var isFinal: Bool
    /// Seconds of audio the recognizer had heard when it produced this result, if known; used to
    /// measure the pause after a trigger that nothing follows.
    public var audioDuration: Double?

    /// A transcript from words.
    public init(words: [Word], isFinal: Bool, audioDuration: Double? = nil) {
        self.words = words
        self.isFinal = isFinal
        self.audioDuration = audioDuration
    }

    /// A transcript from plain text (split at whitespace, no timings).
    public init(text: String, isFinal: Bool, audioDuration: Double? = nil) {
        self.init(
            words: text.split(whereSeparator: \.isWhitespace).map { Word(String($0)) }, isFinal: isFinal,
            audioDuration: audioDuration)
    }

    /// The words joined with single spaces.
    public var text: String { words.map(\.text).joined(separator: " ") }

    /// True when every word has a start and an end time.
    public var hasWordTimings: Bool {
        !words.isEmpty && words.allSatisfy { $0.start != nil && $0.end != nil }
    }
}
