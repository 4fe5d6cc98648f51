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
            if detector.frame(isSpeech: speech, seconds: 0.02, rms: rms, echo: true, reference: nil) { return index }
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
        #expect(!detector.isArmed)
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
}
