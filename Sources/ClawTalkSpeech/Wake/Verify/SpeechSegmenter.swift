import ClawTalkAudio

/// Cuts a 16 kHz stream into the speech segments the Whisper keyword scorer hears, so that
/// nothing is scored in silence (issue 13: "VAD-gated").
///
/// Each 20 ms frame is judged by an ``EnergyGate`` (talk.md §5.4: adaptive noise floor, so
/// a steady fan or hiss stops counting after a few hundred milliseconds) with a lower ratio,
/// ``Options/speechRatio`` (2.5, 8 dB, instead of 6): at 10 dB SNR a word is only about 3 × the
/// noise's RMS, and talk.md §5.4's ratio heard its vowels only, in pieces. A segment
/// - **opens** at the first speech frame, starting ``Options/preRoll`` earlier (the quiet onset
///   of a word is below the gate);
/// - is **confirmed** once it holds ``Options/minimumSpeechFrames`` speech frames: only then is it
///   worth sending (a click or a door opens a segment and is dropped);
/// - **closes** after ``Options/hangover`` without a speech frame: the pause after a trigger.
///
/// A pure state machine over frame decisions: the owner keeps the audio.
public struct SpeechSegmenter: Sendable, Equatable {
    /// Timings.
    public struct Options: Sendable, Hashable {
        /// Audio before the first speech frame that a segment starts with, seconds (0.4).
        public var preRoll: Double
        /// Non-speech that ends a segment, seconds (0.25: shorter than the 0.45 s pause the
        /// trigger gate asks for, longer than the stops inside a word).
        public var hangover: Double
        /// Speech frames before a segment is sent (4, i.e. 80 ms).
        public var minimumSpeechFrames: Int
        /// A frame is speech at this multiple of the noise floor's RMS (2.5).
        public var speechRatio: Double

        /// The defaults above.
        public init(
            preRoll: Double = 0.4, hangover: Double = 0.25, minimumSpeechFrames: Int = 4, speechRatio: Double = 2.5
        ) {
            self.preRoll = preRoll
            self.hangover = hangover
            self.minimumSpeechFrames = minimumSpeechFrames
            self.speechRatio = speechRatio
        }
    }

    /// What a frame did to the segment.
    public enum Step: Sendable, Equatable {
        /// Nothing is open.
        case silence
        /// A segment opened at this frame (not confirmed yet).
        case opened
        /// An unconfirmed segment went on.
        case pending
        /// The segment is now worth sending: send it from its start.
        case confirmed
        /// A confirmed segment went on: send the frame.
        case speaking
        /// The segment ended after this frame (`confirmed` tells whether it was ever sent).
        case closed(confirmed: Bool)
    }

    /// Samples per frame (20 ms).
    public static let frameSize = AudioFormat.speech.sampleCount(milliseconds: 20)

    /// The timings.
    public let options: Options
    private var gate: EnergyGate
    private var open = false
    private var confirmed = false
    private var speechFrames = 0
    private var quietFrames = 0

    /// A segmenter.
    public init(options: Options = Options()) {
        self.options = options
        gate = EnergyGate(ratio: options.speechRatio)
    }

    /// Whether a segment is open.
    public var isOpen: Bool { open }
    /// Whether the open segment was confirmed.
    public var isConfirmed: Bool { open && confirmed }

    /// Judges one frame and moves the segment on.
    public mutating func process(_ frame: UnsafeBufferPointer<Int16>) -> Step {
        step(isSpeech: gate.process(frame).isSpeech)
    }

    /// Moves the segment on with a frame's decision.
    public mutating func step(isSpeech: Bool) -> Step {
        if !open {
            guard isSpeech else { return .silence }
            open = true
            confirmed = false
            speechFrames = 1
            quietFrames = 0
            if options.minimumSpeechFrames <= 1 {
                confirmed = true
                return .confirmed
            }
            return .opened
        }
        if isSpeech {
            speechFrames += 1
            quietFrames = 0
        } else {
            quietFrames += 1
        }
        if quietFrames >= Self.frames(options.hangover) {
            let wasConfirmed = confirmed
            open = false
            confirmed = false
            return .closed(confirmed: wasConfirmed)
        }
        if !confirmed, speechFrames >= options.minimumSpeechFrames {
            confirmed = true
            return .confirmed
        }
        return confirmed ? .speaking : .pending
    }

    /// Forgets the segment and the learned noise floor.
    public mutating func reset() {
        gate.reset()
        open = false
        confirmed = false
        speechFrames = 0
        quietFrames = 0
    }

    /// Whole frames in `seconds` (at least one).
    static func frames(_ seconds: Double) -> Int {
        max(1, Int((seconds * Double(AudioFormat.speech.sampleRate) / Double(frameSize)).rounded()))
    }
}
