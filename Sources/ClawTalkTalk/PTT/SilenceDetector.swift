import ClawTalkSupport

/// The `once` end-of-utterance rule (talk-contract §2.6): silence counts only after speech was
/// heard, and the utterance ends when `time − lastSpeech ≥ window`. Judged per frame on the
/// capture's own frame times, so it is exact to the frame and independent of scheduling.
public struct SilenceDetector: Sendable, Hashable {
    /// The silence window in seconds.
    public let window: Double
    /// Capture time of the latest speech frame, nil before any.
    public private(set) var lastSpeech: Double?

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
}
