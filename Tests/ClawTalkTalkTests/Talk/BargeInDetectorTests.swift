import ClawTalkAudio
import Testing

@testable import ClawTalkTalk

/// ``BargeInDetector``: the onset, residual-level and double-talk rules of talk.md §5.5, frame by
/// frame, case by case. Each case starts from a reply past its hold-off and feeds stretches of
/// 20 ms frames; the onset, when there is one, must come on the last frame and not before.
@Suite("Barge-in detector")
struct BargeInDetectorTests {
    /// A stretch of 20 ms frames fed alike: their level (nil: none), speech decision and echo flag;
    /// with `input`, a reference with the far end `farEnd` (and with `bands`, the band view over
    /// ``farEndBands``).
    struct Frames: Sendable {
        var rms: Double?
        var speech: Bool
        var seconds: Double
        var echo: Bool?
        var input: Double?
        var farEnd = 0.1
        var bands: BandLevels?

        var reference: EchoReference? {
            input.map {
                EchoReference(
                    input: $0, farEnd: farEnd, inputBands: bands ?? BandLevels(),
                    farEndBands: bands == nil ? BandLevels() : BargeInDetectorTests.farEndBands)
            }
        }
    }

    /// A far end playing in bands 0–3 and its echo at gain 0.5 in each.
    static let farEndBands = BandLevels(SIMD8(0.05, 0.07, 0.04, 0.02, 0, 0, 0, 0))
    static let echoBands = BandLevels(farEndBands.values * 0.5)

    /// What the reply played before a case's frames.
    enum Start: Sendable {
        /// Nothing but the 0.5 s hold-off (no levels, no reference).
        case holdOff
        /// The hold-off and 1 s of residual echo at 0.008 (no reference).
        case residual
        /// The hold-off and 2 s of echo through a path of gain 0.5 (far end 0.1, input 0.05),
        /// cancelled down to a residual of 0.008.
        case echoPath
        /// ``echoPath`` with the band view (``echoBands`` over ``farEndBands``).
        case bandedEchoPath
        /// A reply that has just started: its hold-off is still to come.
        case fresh

        var frames: [Frames] {
            let holdOff = Frames(rms: nil, speech: false, seconds: 0.5)
            switch self {
            case .fresh: return []
            case .holdOff: return [holdOff]
            case .residual: return [holdOff, Frames(rms: 0.008, speech: false, seconds: 1)]
            case .echoPath:
                return [holdOff, Frames(rms: 0.008, speech: false, seconds: 2, echo: true, input: 0.05)]
            case .bandedEchoPath:
                return [
                    holdOff,
                    Frames(rms: 0.008, speech: false, seconds: 2, echo: true, input: 0.05, bands: echoBands),
                ]
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let start: Start
        let frames: [Frames]
        /// The onset comes on the last frame (false: none at all).
        let onset: Bool
        /// Runs the double-talk test held back (``BargeInDetector/onsetsHeldBack``).
        var heldBack = 0
        var testDescription: String { name }
    }

    /// Frames of speech through the learned echo path (`input` over the far end 0.1).
    static func voice(_ rms: Double, input: Double, farEnd: Double = 0.1, _ seconds: Double) -> Frames {
        Frames(rms: rms, speech: true, seconds: seconds, echo: true, input: input, farEnd: farEnd)
    }

    static let onsetCases: [Case] = [
        // The hold-off and the onset's length (no levels: no level rule).
        Case(
            name: "speech in a reply's first half second does not count; the 150 ms onset follows",
            start: .fresh,
            frames: [
                Frames(rms: nil, speech: true, seconds: 0.5), Frames(rms: nil, speech: true, seconds: 0.14),
                Frames(rms: nil, speech: true, seconds: 0.02),
            ], onset: true),
        Case(
            name: "150 ms of speech without levels is an onset", start: .holdOff,
            frames: [Frames(rms: nil, speech: true, seconds: 0.14), Frames(rms: nil, speech: true, seconds: 0.02)],
            onset: true),
        Case(
            name: "short blips are no onset", start: .holdOff,
            frames: (0..<20).flatMap { _ in
                [Frames(rms: nil, speech: true, seconds: 0.1), Frames(rms: nil, speech: false, seconds: 0.04)]
            }, onset: false),
        // The level rules over the residual echo.
        Case(
            name: "residual echo under 6 dB over the mean is no onset; a voice 6 dB over it is", start: .holdOff,
            frames: [
                Frames(rms: 0.012, speech: false, seconds: 1), Frames(rms: 0.02, speech: true, seconds: 1),
                Frames(rms: 0.001, speech: false, seconds: 0.1), Frames(rms: 0.04, speech: true, seconds: 0.14),
                Frames(rms: 0.04, speech: true, seconds: 0.02),
            ], onset: true),
        Case(
            name: "a voice 5 × the residual pauses after 60 ms", start: .residual,
            frames: [Frames(rms: 0.05, speech: true, seconds: 0.04), Frames(rms: 0.05, speech: true, seconds: 0.02)],
            onset: true),
        Case(
            name: "a voice under 4 × the residual waits for the 150 ms onset", start: .residual,
            frames: [Frames(rms: 0.03, speech: true, seconds: 0.14), Frames(rms: 0.03, speech: true, seconds: 0.02)],
            onset: true),
        Case(
            name: "quiet speech under the minimum level is no onset; its run is one on the first loud frame",
            start: .holdOff,
            frames: [
                Frames(rms: 0.0005, speech: false, seconds: 1), Frames(rms: 0.01, speech: true, seconds: 1),
                Frames(rms: 0.1, speech: true, seconds: 0.02),
            ], onset: true),
        Case(
            name: "the hold-off and the residual level start with the reply's sound", start: .holdOff,
            frames: [
                Frames(rms: 0.0005, speech: false, seconds: 0.6, echo: false),
                Frames(rms: 0.03, speech: true, seconds: 0.4, echo: true),
                Frames(rms: 0.008, speech: false, seconds: 3, echo: true),
                Frames(rms: 0.05, speech: true, seconds: 0.04, echo: true),
                Frames(rms: 0.05, speech: true, seconds: 0.02, echo: true),
            ], onset: true),
        // The double-talk test's level view (echo 0.05 = gain 0.5 × far end 0.1; residual 0.008).
        Case(
            name: "a burst of uncancelled echo (37 × the residual) is no onset", start: .echoPath,
            frames: [voice(0.3, input: 0.05, 0.2)], onset: false, heldBack: 1),
        Case(
            name: "a voice over the echo pauses after 60 ms", start: .echoPath,
            frames: [voice(0.1, input: 0.11, 0.04), voice(0.1, input: 0.11, 0.02)], onset: true),
        Case(
            name: "a voice the echo explains pauses once it lasts 250 ms", start: .echoPath,
            frames: [voice(0.1, input: 0.06, 0.24), voice(0.1, input: 0.06, 0.02)], onset: true, heldBack: 1),
        Case(
            name: "a voice while the far end is silent needs no test", start: .echoPath,
            frames: [voice(0.1, input: 0.02, farEnd: 0, 0.04), voice(0.1, input: 0.02, farEnd: 0, 0.02)],
            onset: true),
        Case(
            name: "a rising voice pauses at 60 ms on its loudest frame (smoothed 0.018)", start: .echoPath,
            frames: [voice(0.01, input: 0.11, 0.02), voice(0.02, input: 0.11, 0.02), voice(0.04, input: 0.11, 0.02)],
            onset: true),
        Case(
            name: "held onsets are counted once per run", start: .echoPath,
            frames: [
                voice(0.3, input: 0.05, 0.2),
                Frames(rms: 0.008, speech: false, seconds: 0.1, echo: true, input: 0.05),
                voice(0.3, input: 0.05, 0.1),
            ], onset: false, heldBack: 2),
        Case(
            name: "a run the echo explains needs its smoothed level to pause", start: .echoPath,
            frames: [voice(0.034, input: 0.05, 0.02), voice(0.005, input: 0.05, 0.3)], onset: false, heldBack: 1),
        Case(
            name: "one frame at ×1.28 over the echo is no voice", start: .echoPath,
            frames: [voice(0.05, input: 0.05, 0.04), voice(0.05, input: 0.064, 0.02), voice(0.05, input: 0.05, 0.1)],
            onset: false, heldBack: 1),
        Case(
            name: "a second frame over the margin is a voice", start: .echoPath,
            frames: [voice(0.05, input: 0.05, 0.04), voice(0.05, input: 0.064, 0.02), voice(0.05, input: 0.064, 0.02)],
            onset: true, heldBack: 1),
        Case(
            name: "one frame ×1.6 over the echo is a voice", start: .echoPath,
            frames: [voice(0.05, input: 0.05, 0.04), voice(0.05, input: 0.08, 0.02)], onset: true),
        Case(
            name: "two frames over the margin need the smoothed level too", start: .echoPath,
            frames: [
                voice(0.005, input: 0.0725, 0.02), voice(0.04, input: 0.0725, 0.02), voice(0.005, input: 0.05, 0.3),
            ], onset: false, heldBack: 1),
        Case(
            name: "two frames over the margin in a run whose smoothed level passes are a voice", start: .echoPath,
            frames: [voice(0.05, input: 0.0725, 0.04), voice(0.05, input: 0.05, 0.02)], onset: true),
        Case(
            name: "two frames over the margin pause at the normal level after 60 ms", start: .echoPath,
            frames: [voice(0.02, input: 0.0725, 0.04), voice(0.02, input: 0.0725, 0.02)], onset: true),
        Case(
            name: "at the normal level a run the echo explains waits for 250 ms", start: .echoPath,
            frames: [voice(0.02, input: 0.05, 0.24)], onset: false, heldBack: 1),
        Case(
            name: "under the level floor no run is an onset however long", start: .echoPath,
            frames: [voice(0.012, input: 0.0725, 0.3)], onset: false),
        // The band view: a voice where the reply is quiet.
        Case(
            name: "a voice where the reply is quiet pauses at 60 ms though no louder than the echo",
            start: .bandedEchoPath,
            frames: [
                Frames(rms: 0.1, speech: true, seconds: 0.04, echo: true, input: 0.059, bands: quietBandVoice),
                Frames(rms: 0.1, speech: true, seconds: 0.02, echo: true, input: 0.059, bands: quietBandVoice),
            ], onset: true),
        Case(
            name: "a burst of echo the bands explain is no onset", start: .bandedEchoPath,
            frames: [Frames(rms: 0.3, speech: true, seconds: 0.2, echo: true, input: 0.055, bands: bandedBurst)],
            onset: false, heldBack: 1),
    ]

    /// Overall only ×1.18 over the echo, but band 3 (where the reply is quiet) holds ×4.5 its echo.
    static var quietBandVoice: BandLevels {
        var bands = echoBands
        bands[3] = 0.045
        return bands
    }

    /// ×1.1 over the echo overall, ×1.2 in every band and ×3 in the quietest (more than bursts
    /// reached on the rig).
    static var bandedBurst: BandLevels {
        var bands = BandLevels(echoBands.values * 1.2)
        bands[3] = 0.03
        return bands
    }

    /// Feeds `frames` as 20 ms frames; returns every verdict.
    static func feed(_ detector: inout BargeInDetector, _ frames: [Frames], judging: Bool = false)
        -> [BargeInDetector.Verdict]
    {
        frames.flatMap { stretch in
            (0..<Int((stretch.seconds / 0.02).rounded())).map { _ in
                detector.frame(
                    isSpeech: stretch.speech, seconds: 0.02, rms: stretch.rms, echo: stretch.echo,
                    reference: stretch.reference, judging: judging)
            }
        }
    }

    @Test(arguments: onsetCases)
    func onset(_ row: Case) {
        var detector = BargeInDetector()
        #expect(!Self.feed(&detector, row.start.frames).contains(.onset))
        let verdicts = Self.feed(&detector, row.frames)
        let first = verdicts.firstIndex(of: .onset)
        if row.onset {
            #expect(first == verdicts.count - 1, "onset on frame \(first.map(String.init) ?? "-") of \(verdicts.count)")
        } else {
            #expect(first == nil)
        }
        #expect(detector.onsetsHeldBack == row.heldBack)
        #expect(verdicts.filter { $0 == .heldBack }.count == row.heldBack, "one verdict per held run")
    }

    @Test func theResidualLevelCountsOnlyFramesWithTheRepliesSound() {
        var detector = BargeInDetector()
        _ = Self.feed(
            &detector,
            Start.holdOff.frames + [
                Frames(rms: 0.0005, speech: false, seconds: 0.6, echo: false),
                Frames(rms: 0.03, speech: true, seconds: 0.4, echo: true),
            ])
        #expect(abs(detector.residualEchoLevel - 0.03) < 1e-9, "the silent frames before the sound do not count")
    }

    @Test(arguments: [false, true])
    func framesBeingJudgedTeachNeitherTheEchoPathNorTheResidual(judging: Bool) {
        var detector = BargeInDetector()
        _ = Self.feed(&detector, Start.echoPath.frames)
        #expect(detector.echoPath.gain.map { abs($0 - 0.5) < 1e-9 } == true, "the echo path was learned")
        let residual = detector.residualEchoLevel
        _ = Self.feed(
            &detector, [Frames(rms: 0.1, speech: false, seconds: 0.2, echo: true, input: 0.1)], judging: judging)
        #expect(detector.echoPath.gain.map { abs($0 - 0.5) < 1e-9 } == judging)
        #expect((abs(detector.residualEchoLevel - residual) < 1e-9) == judging)
    }

    @Test func aResumedReplyStartsNoOnsetWithinTheHoldOff() {
        var detector = BargeInDetector()
        _ = Self.feed(&detector, Start.holdOff.frames)
        detector.replyResumed()
        let held = Self.feed(&detector, [Frames(rms: nil, speech: true, seconds: 0.6)])
        #expect(!held.contains(.onset), "the canceller re-converges")
        #expect(Self.feed(&detector, [Frames(rms: nil, speech: true, seconds: 0.14)]).last == .onset)
    }

    @Test func aNewReplyKeepsOnlyTheEchoPath() {
        var detector = BargeInDetector()
        _ = Self.feed(&detector, Start.echoPath.frames + [Self.voice(0.3, input: 0.05, 0.2)])
        #expect(detector.onsetsHeldBack == 1)
        detector.replyStarted()
        #expect(detector.onsetsHeldBack == 0)
        #expect(detector.residualEchoLevel == 0)
        #expect(detector.echoPath.gain.map { abs($0 - 0.5) < 1e-9 } == true)
        #expect(Self.feed(&detector, [Frames(rms: nil, speech: true, seconds: 0.5)]).allSatisfy { $0 == .quiet })
    }

    @Test func speechWhileNoOnsetIsWatchedIsOnlySpeech() {
        var detector = BargeInDetector()
        _ = Self.feed(&detector, Start.holdOff.frames)
        let verdicts = (0..<20).map { _ in
            detector.frame(isSpeech: true, seconds: 0.02, rms: nil, watching: false)
        }
        #expect(verdicts.allSatisfy { $0 == .speech })
        #expect(detector.secondsSinceSpeech == 0)
        #expect(detector.run.seconds > 0.39)
    }
}
