import ClawTalkSupport

/// The `once` end-of-utterance rule (talk.md §2.6): silence counts only after speech was
/// heard, and the utterance ends when `time − lastSpeech ≥ window`. Judged per frame on the
/// capture's own frame times, so it is exact to the frame and independent of scheduling. The
/// same rule finds the pauses that end a capture whose controller is gone (talk.md §2.7).
public struct SilenceDetector: Sendable, Hashable {
    /// The silence window in seconds.
    public let window: Double
    /// Capture time of the latest speech frame, nil before any.
    public private(set) var lastSpeech: Double?

    /// Whether speech is going on: from a speech frame until silence lasts the window.
    public private(set) var speaking = false

    /// What a frame changed for ``change(with:)``.
    public enum Change: Sendable, Hashable {
        /// Speech began (the first, or the first after a pause).
        case speechStarted
        /// Silence after speech lasted the window: a pause.
        case paused
    }

    /// A detector for `window` (e.g. 700 ms).
    public init(window: Duration) {
        self.window = window.inSeconds
    }

    /// Takes one frame; true when the utterance has ended with it.
    public mutating func ends(with frame: UtteranceFrame) -> Bool {
        if frame.isSpeech { lastSpeech = frame.time }
        guard let lastSpeech else { return false }
        return frame.time - lastSpeech >= window - 1e-9
    }

    /// Takes one frame; the edge it makes (speech began, or a pause reached the window), if any.
    public mutating func change(with frame: UtteranceFrame) -> Change? {
        let ended = ends(with: frame)
        if frame.isSpeech, !speaking {
            speaking = true
            return .speechStarted
        }
        guard ended, speaking else { return nil }
        speaking = false
        return .paused
    }
}
