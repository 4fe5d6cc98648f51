import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkTesting
import Testing

@testable import ClawTalkTalk

/// The audio a finished capture hands to speech-to-text: long silences cut out, so a capture
/// longer than Whisper's 30 s window with a silent second window is not transcribed with its
/// sentence twice (issue 14: "Play some quiet music while I work.  Play some quiet music while
/// I work.").
@Suite("PTT speech timeline", .timeLimit(.minutes(1)))
struct SpeechTimelineTests {
    static func timeline(_ script: CaptureScript) -> SpeechTimeline {
        var timeline = SpeechTimeline()
        for frame in script.frames { timeline.record(frame) }
        return timeline
    }

    static func rounded(_ parts: [Range<Double>]) -> [[Double]] {
        parts.map { [($0.lowerBound * 100).rounded() / 100, ($0.upperBound * 100).rounded() / 100] }
    }

    @Test func aSentenceThenLongSilenceKeepsTheSentenceWithItsMargins() {
        let timeline = Self.timeline(.utterance(speechStart: 1.0, speech: 2.4, until: 41))
        #expect(timeline.speech.count == 1)
        #expect(Self.rounded(timeline.keptParts(duration: 41)) == [[0.5, 3.9]])
    }

    @Test func noSpeechKeepsNothing() {
        let timeline = Self.timeline(.silence(40))
        #expect(timeline.keptParts(duration: 40) == [])
        #expect(
            timeline.trimmed(PCMBuffer(format: .speech, samples: [Int16](repeating: 0, count: 640_000))).samples
                .isEmpty)
    }

    @Test func noSpeechKeepsOnlyAudioNotJudgedYet() {
        let timeline = Self.timeline(.silence(10))
        #expect(Self.rounded(timeline.keptParts(duration: 12)) == [[10, 12]])
        #expect(SpeechTimeline().keptParts(duration: 3) == [0..<3])
    }

    @Test func twoUtterancesKeepBothAndCutTheLongSilenceBetween() {
        let script = CaptureScript.utterance(speechStart: 1, speech: 2, until: 15)
            .then(CaptureScript.utterance(speechStart: 0, speech: 2, until: 5).later(by: 15))
        #expect(Self.rounded(Self.timeline(script).keptParts(duration: 20)) == [[0.5, 3.5], [14.5, 17.5]])
    }

    @Test func aShortPauseInsideASentenceStays() {
        // 1.5 s between the runs: with the margins 0.5 s of gap, below the 2 s minimum cut.
        let script = CaptureScript.utterance(speechStart: 1, speech: 1, until: 3.5)
            .then(CaptureScript.utterance(speechStart: 0, speech: 1, until: 2).later(by: 3.5))
        #expect(Self.rounded(Self.timeline(script).keptParts(duration: 5.5)) == [[0.5, 5.0]])
    }

    @Test func audioAfterTheLastFrameSeenIsKept() {
        let timeline = Self.timeline(.utterance(speechStart: 1, speech: 1, until: 10))
        #expect(Self.rounded(timeline.keptParts(duration: 20)) == [[0.5, 2.5], [10, 20]])
    }

    @Test func trimmingCutsTheSamplesAtTheKeptParts() {
        let timeline = Self.timeline(.utterance(speechStart: 1, speech: 1, until: 10))
        let audio = PCMBuffer(format: .speech, samples: (0..<160_000).map { Int16(truncatingIfNeeded: $0 / 16) })
        let trimmed = timeline.trimmed(audio)
        #expect(trimmed.samples == Array(audio.samples[8_000..<40_000]))
    }

    /// The controller sends the trimmed audio: a 41 s capture with a 2.4 s sentence reaches the
    /// transcriber as one 3.4 s window, not 41 s (before the fix: all 41 s, which Whisper base
    /// transcribed with the sentence twice).
    @Test func theTranscriberGetsTheSpeechNotTheLongSilence() async throws {
        var script = CaptureScript.utterance(speechStart: 1.0, speech: 2.4, until: 41)
        script.endsStream = true
        let capturing = FakeCapturing(script, sampleSeconds: 41)
        let transcriber = FakeTranscriber()
        let delivery = RecordingDelivery()
        var configuration = PTTConfiguration()
        configuration.speculateAfter = nil  // the capture's own end, not a transcription at its pause
        let controller = PTTController(
            capturing: capturing, transcriber: transcriber, delivery: delivery, speech: LeaseRecorder(),
            configuration: configuration)
        let start = await controller.perform(.start)
        #expect(start.captureId != nil)
        #expect(await eventually { delivery.texts.count == 1 })
        let sent = try #require(transcriber.audio.first)
        #expect(abs(sent.duration - 3.4) < 0.05, "sent \(sent.duration) s")
        #expect(sent.samples.count < 30 * 16_000, "fits one Whisper window")
    }
}
