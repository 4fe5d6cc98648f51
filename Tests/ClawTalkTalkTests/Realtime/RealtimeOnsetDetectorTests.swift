import ClawTalkAudio
import Testing

@testable import ClawTalkTalk

/// The realtime path's onset detector is Talk's own (talk.md §5.5): a voice over the output is an
/// onset, a short sound is held back, nothing counts before output starts or during the hold-off.
struct RealtimeOnsetDetectorTests {
    /// Feeds `seconds` of 20 ms frames; returns the index of the first onset frame, if any.
    static func feed(
        _ detector: inout RealtimeOnsetDetector, seconds: Double, speech: Bool, rms: Double
    ) -> Int? {
        for index in 0..<Int((seconds / 0.02).rounded()) {
            if detector.frame(isSpeech: speech, seconds: 0.02, rms: rms, echo: true, reference: nil).onset {
                return index
            }
        }
        return nil
    }

    @Test func aVoiceOverTheOutputIsAnOnset() {
        var detector = RealtimeOnsetDetector()
        detector.outputStarted()
        #expect(Self.feed(&detector, seconds: 1.0, speech: false, rms: 0.01) == nil)
        let onset = Self.feed(&detector, seconds: 0.4, speech: true, rms: 0.2)
        #expect(onset != nil)
        #expect((onset ?? 99) <= 15)
        // One onset per output (or resume): the speech going on reports none again.
        #expect(Self.feed(&detector, seconds: 0.4, speech: true, rms: 0.2) == nil)
    }

    @Test(arguments: [0.02, 0.04])
    func aShortSoundIsNoOnset(seconds: Double) {
        var detector = RealtimeOnsetDetector()
        detector.outputStarted()
        #expect(Self.feed(&detector, seconds: 1.0, speech: false, rms: 0.01) == nil)
        #expect(Self.feed(&detector, seconds: seconds, speech: true, rms: 0.2) == nil)
        #expect(Self.feed(&detector, seconds: 1.0, speech: false, rms: 0.01) == nil)
        #expect(detector.isArmed)
    }

    @Test func nothingCountsDuringTheHoldOffOrWithoutOutput() {
        var idle = RealtimeOnsetDetector()
        #expect(Self.feed(&idle, seconds: 1.0, speech: true, rms: 0.3) == nil)
        var early = RealtimeOnsetDetector()
        early.outputStarted()
        // The canceller converges during the output's first 0.5 s: speech there starts no onset.
        #expect(Self.feed(&early, seconds: 0.4, speech: true, rms: 0.3) == nil)
        early.outputEnded()
        #expect(Self.feed(&early, seconds: 1.0, speech: true, rms: 0.3) == nil)
    }

    /// After a rejected onset the output resumes: an onset may come again after
    /// ``RealtimeOnsetDetector/resumeHoldOff`` (0.2 s), not a fresh start's 0.5 s.
    @Test func aResumedOutputIsWatchedAgainAfterAShortHoldOff() {
        var detector = RealtimeOnsetDetector()
        detector.outputStarted()
        #expect(Self.feed(&detector, seconds: 1.0, speech: false, rms: 0.01) == nil)
        #expect(Self.feed(&detector, seconds: 0.4, speech: true, rms: 0.2) != nil)
        detector.outputResumed()
        // Speech within the hold-off starts no onset, and its run does not carry past it.
        #expect(Self.feed(&detector, seconds: 0.2, speech: true, rms: 0.2) == nil)
        #expect(Self.feed(&detector, seconds: 0.04, speech: false, rms: 0.01) == nil)
        let onset = Self.feed(&detector, seconds: 0.3, speech: true, rms: 0.2)
        #expect(onset != nil)
        #expect((onset ?? 99) <= 10)
        // A fresh start, by contrast, holds off for 0.5 s.
        var fresh = detector
        fresh.outputStarted()
        #expect(Self.feed(&fresh, seconds: 0.3, speech: true, rms: 0.2) == nil)
    }

    /// A reference frame: raw input `input`, far end `farEnd`; every band of the input at
    /// `bandInput` (nil: as the level) over far-end bands at the far end's level.
    static func reference(
        input: Double, farEnd: Double, bandInput: Double? = nil, sinceWrite: Double? = 0.01
    ) -> EchoReference {
        EchoReference(
            input: input, farEnd: farEnd, inputBands: BandLevels(SIMD8(repeating: bandInput ?? input)),
            farEndBands: BandLevels(SIMD8(repeating: farEnd)), sinceFarEndWrite: sinceWrite)
    }

    /// Output started and `frames` of echo alone at gain 0.5 (input 0.05 over far end 0.1).
    static func learned(frames: Int = RealtimeOnsetDetector.strongAfterFrames) -> RealtimeOnsetDetector {
        var detector = RealtimeOnsetDetector()
        detector.outputStarted()
        for _ in 0..<frames {
            _ = detector.frame(
                isSpeech: false, seconds: 0.02, rms: 0.005, echo: true,
                reference: reference(input: 0.05, farEnd: 0.1))
        }
        return detector
    }

    struct StrongCase: Sendable, CustomTestStringConvertible {
        var name: String
        var input: Double
        var farEnd: Double
        /// The echo-cancelled level (the residual is 0.005).
        var rms = 0.04
        /// Every input band's level (nil: the input's).
        var bandInput: Double?
        var strong: Bool
        /// Level evidence (``RealtimeOnsetDetector/Observation/level``).
        var level = false
        /// Input over the echo (``RealtimeOnsetDetector/Observation/overEcho``).
        var overEcho = false
        var testDescription: String { name }
    }

    static let strongCases: [StrongCase] = [
        StrongCase(name: "as loud as the echo: echo", input: 0.05, farEnd: 0.1, strong: false),
        StrongCase(
            name: "×1.6 over the echo (a burst the canceller let through), 8 × the residual: not strong, over the echo",
            input: 0.08, farEnd: 0.1, strong: false, overEcho: true),
        StrongCase(
            name: "×1.6 over the echo at 4 × the residual: not over the echo", input: 0.08, farEnd: 0.1, rms: 0.02,
            strong: false),
        StrongCase(
            name: "×1.4 over the echo, 8 × the residual: not over the echo", input: 0.07, farEnd: 0.1, strong: false),
        StrongCase(name: "×1.9: not strong, over the echo", input: 0.095, farEnd: 0.1, strong: false, overEcho: true),
        StrongCase(name: "×2 over the echo: a voice", input: 0.1, farEnd: 0.1, strong: true, overEcho: true),
        StrongCase(name: "×6: a voice", input: 0.3, farEnd: 0.1, strong: true, overEcho: true),
        StrongCase(
            name: "nothing audible in the reference: not strong (a resumed reply's first echo)", input: 0.05,
            farEnd: 0.0001, rms: 0.1, strong: false),
        StrongCase(
            name: "a band ×4 over its echo, 20 × the residual: a voice", input: 0.05, farEnd: 0.1, rms: 0.1,
            bandInput: 0.2, strong: true),
        StrongCase(
            name: "a band ×4 over its echo, 2 × the residual, the input under the echo: not strong (a capture glitch)",
            input: 0.04, farEnd: 0.1, rms: 0.01, bandInput: 0.2, strong: false),
        StrongCase(
            name: "a band ×4 over its echo, 2 × the residual, the input ×1.3 over the echo: a voice", input: 0.065,
            farEnd: 0.1, rms: 0.01, bandInput: 0.2, strong: true),
        StrongCase(
            name: "×1.3 over the echo, a band ×2.4, 20 × the residual: a voice", input: 0.065, farEnd: 0.1, rms: 0.1,
            bandInput: 0.12, strong: true, level: true),
        StrongCase(
            name: "×1.3 over the echo, 20 × the residual, bands ×1.9: not strong (a burst of echo), level",
            input: 0.065,
            farEnd: 0.1, rms: 0.1, bandInput: 0.095, strong: false, level: true),
        StrongCase(
            name: "×1.2 over the echo, 20 × the residual: no level evidence", input: 0.06, farEnd: 0.1, rms: 0.1,
            strong: false),
        StrongCase(
            name: "×1.3 over the echo, a band ×2.4, 10 × the residual: not strong", input: 0.065, farEnd: 0.1,
            rms: 0.05, bandInput: 0.12, strong: false),
        StrongCase(
            name: "as loud as the echo, 20 × the residual: not strong", input: 0.05, farEnd: 0.1, rms: 0.1,
            strong: false),
    ]

    @Test(arguments: strongCases)
    func strongEvidenceIsAVoiceTheEchoCannotExplain(_ row: StrongCase) {
        var detector = Self.learned()
        let observation = detector.frame(
            isSpeech: true, seconds: 0.02, rms: row.rms, echo: true,
            reference: Self.reference(input: row.input, farEnd: row.farEnd, bandInput: row.bandInput))
        #expect(observation.strong == row.strong)
        #expect(observation.level == row.level)
        #expect(observation.overEcho == row.overEcho)
        #expect(detector.evidence.strongFrames == (row.strong ? 1 : 0))
    }

    /// Run I (bench, 2026-12-06): four cancels of the node's own reply, each on the 1st–6th
    /// audible frame after a gap in the reply. After a gap of ``RealtimeOnsetDetector/gapFrames``
    /// the first ``RealtimeOnsetDetector/afterGapFrames`` audible frames are no evidence; a
    /// shorter gap withholds nothing.
    @Test(arguments: [(gap: 2, withheld: 6), (gap: 11, withheld: 6), (gap: 1, withheld: 0)])
    func framesJustAfterAGapInTheReplyAreNoEvidence(gap: Int, withheld: Int) {
        var detector = Self.learned()
        for _ in 0..<gap {
            _ = detector.frame(
                isSpeech: false, seconds: 0.02, rms: 0.005, echo: true,
                reference: Self.reference(input: 0.0001, farEnd: 0.0001))
        }
        // A voice ×6 over the echo and 20 × the residual: strong, level and over the echo.
        var judged: [Bool] = []
        for _ in 0..<(withheld + 2) {
            let observation = detector.frame(
                isSpeech: true, seconds: 0.02, rms: 0.1, echo: true,
                reference: Self.reference(input: 0.3, farEnd: 0.1))
            judged.append(observation.strong || observation.level || observation.overEcho)
        }
        #expect(judged == Array(repeating: false, count: withheld) + [true, true])
    }

    /// The reply's output starved (its queue ran dry: no write for more than
    /// ``RealtimeOnsetDetector/starvedAfter``): while it starves, and for
    /// ``RealtimeOnsetDetector/afterGapFrames`` audible frames after the writes resume, frames are
    /// no evidence, whether the microphone heard silence meanwhile (the rig) or not. A bench run at
    /// load 1.5–2 (2026-12-06): five frames of zeros while the reply played, then two strong
    /// frames cancelled the reply.
    @Test(arguments: [(starved: 1, input: 0.0), (starved: 5, input: 0.0), (starved: 3, input: 0.05)])
    func framesWhileAndJustAfterTheOutputStarvedAreNoEvidence(starved: Int, input: Double) {
        var detector = Self.learned()
        var judged: [Bool] = []
        // The echo of what the sink still held (or silence), then nothing written for 80 ms.
        for _ in 0..<starved {
            let observation = detector.frame(
                isSpeech: false, seconds: 0.02, rms: input > 0 ? 0.005 : 0, echo: true,
                reference: Self.reference(input: input, farEnd: 0.1, sinceWrite: 0.08))
            judged.append(observation.strong || observation.level || observation.overEcho)
        }
        for _ in 0..<8 {
            let observation = detector.frame(
                isSpeech: true, seconds: 0.02, rms: 0.1, echo: true,
                reference: Self.reference(input: 0.3, farEnd: 0.1))
            judged.append(observation.strong || observation.level || observation.overEcho)
        }
        #expect(
            judged
                == Array(repeating: false, count: starved + RealtimeOnsetDetector.afterGapFrames) + [true, true])
    }

    /// Digital silence while the output is written on (a pause in the reply's speech, heard by a
    /// microphone without noise: the loopback rig) withholds nothing: a voice just after it is
    /// evidence at once (2 of 30 interruptions in a bench run waited two or three frames for it,
    /// 2026-12-07). Before, however short the silence, the 6 audible frames after it were no
    /// evidence.
    @Test(arguments: [1, 5])
    func silenceInTheRepliesSpeechWithholdsNothing(silent: Int) {
        var detector = Self.learned()
        for _ in 0..<silent {
            _ = detector.frame(
                isSpeech: false, seconds: 0.02, rms: 0, echo: true, reference: Self.reference(input: 0, farEnd: 0.1))
        }
        let voice = detector.frame(
            isSpeech: true, seconds: 0.02, rms: 0.1, echo: true, reference: Self.reference(input: 0.3, farEnd: 0.1))
        #expect(voice.strong && voice.level && voice.overEcho)
    }

    /// A frame of digital silence that the voice detector still calls speech (its hangover) is
    /// no evidence of a voice: it is measured against the echo (nothing over it), not taken for a
    /// frame with no test. Here a loud burst that the echo explains, then such frames: no onset.
    @Test func silentSpeechFramesAreNoEvidenceOfAVoice() {
        var detector = Self.learned()
        // (frames, echo-cancelled RMS, raw input): a burst the echo explains, then silent speech.
        let script: [(count: Int, rms: Double, input: Double)] = [(2, 0.03, 0.05), (3, 0.001, 0)]
        var onsets = 0
        for (count, rms, input) in script {
            for _ in 0..<count {
                let observation = detector.frame(
                    isSpeech: true, seconds: 0.02, rms: rms, echo: true,
                    reference: Self.reference(input: input, farEnd: 0.1))
                onsets += observation.onset ? 1 : 0
            }
        }
        #expect(onsets == 0)
    }

    /// Paused (from the onset on), the microphone's silence is the silenced reply, and its output
    /// writes nothing: a voice after it is evidence at once.
    @Test func silenceWhilePausedWithholdsNothing() {
        var detector = Self.learned()
        var onset = false
        for _ in 0..<10 where !onset {
            onset =
                detector.frame(
                    isSpeech: true, seconds: 0.02, rms: 0.1, echo: true,
                    reference: Self.reference(input: 0.3, farEnd: 0.1)
                ).onset
        }
        #expect(onset)
        // The pause flushed the output, which writes nothing until it resumes.
        for _ in 0..<3 {
            _ = detector.frame(
                isSpeech: false, seconds: 0.02, rms: 0, echo: true,
                reference: Self.reference(input: 0, farEnd: 0.1, sinceWrite: 0.2))
        }
        let voice = detector.frame(
            isSpeech: true, seconds: 0.02, rms: 0.1, echo: true,
            reference: Self.reference(input: 0.3, farEnd: 0.1, sinceWrite: 0.22))
        #expect(voice.strong)
    }

    @Test func noStrongEvidenceBeforeTheEchoPathHasLearnedLongEnough() {
        var young = Self.learned(frames: RealtimeOnsetDetector.strongAfterFrames - 1)
        let observation = young.frame(
            isSpeech: true, seconds: 0.02, rms: 0.3, echo: true, reference: Self.reference(input: 0.5, farEnd: 0.1))
        #expect(!observation.strong)
        #expect(!observation.level)
    }

    @Test func noStrongEvidenceWithoutAReferenceOrBeforeTheEchoPathIsLearned() {
        var detector = RealtimeOnsetDetector()
        detector.outputStarted()
        #expect(!detector.frame(isSpeech: true, seconds: 0.02, rms: 0.3, echo: true, reference: nil).strong)
        #expect(
            !detector.frame(
                isSpeech: true, seconds: 0.02, rms: 0.3, echo: true,
                reference: Self.reference(input: 0.5, farEnd: 0.1)
            ).strong)
        // Nor on a frame without speech.
        var learned = Self.learned()
        #expect(
            !learned.frame(
                isSpeech: false, seconds: 0.02, rms: 0.3, echo: true,
                reference: Self.reference(input: 0.5, farEnd: 0.1)
            ).strong)
    }

    @Test func theEchoPathIsKeptAcrossReplies() {
        var detector = Self.learned()
        detector.outputEnded()
        detector.outputStarted()
        #expect(detector.learnedEchoPath.frames == RealtimeOnsetDetector.strongAfterFrames)
        // So the next reply's first frames are judged against it at once.
        #expect(
            detector.frame(
                isSpeech: true, seconds: 0.02, rms: 0.1, echo: true,
                reference: Self.reference(input: 0.3, farEnd: 0.1)
            ).strong)
    }
}
