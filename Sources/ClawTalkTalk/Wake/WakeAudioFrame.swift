/// One block of captured audio for voice wake (16 kHz mono, normally 20 ms), as the audio front
/// end delivers it: the stage-1 input, the speech-to-text input and the speech decision.
public struct WakeAudioFrame: Sendable, Hashable {
    /// Samples for the wake-word engine (the echo-cancelled signal, without noise suppression).
    public var wake: [Int16]
    /// Samples for speech-to-text (the clean signal); same length as ``wake``.
    public var speech: [Int16]
    /// Voice activity for this frame (endpointing of the command).
    public var isSpeech: Bool
    /// The node's own playback may be in this frame and no echo canceller removed it (talk
    /// contract talk.md §6.5): the frame is replaced by silence before speech-to-text (the audio front
    /// end already silences such frames; this guards other sources).
    public var muted: Bool
    /// The node's own playback may be in this frame, echo-cancelled or not: wake holds weak
    /// keyword-scorer hits against it (``TwoStageWakeDetector/Options/echoScoreFactor``).
    public var echoActive: Bool

    /// A frame; `speech` defaults to `wake`.
    public init(wake: [Int16], speech: [Int16]? = nil, isSpeech: Bool, muted: Bool = false, echoActive: Bool = false) {
        self.wake = wake
        self.speech = speech ?? wake
        self.isSpeech = isSpeech
        self.muted = muted
        self.echoActive = echoActive || muted
    }

    /// Length in seconds.
    public var seconds: Double { Double(wake.count) / 16000 }
}
