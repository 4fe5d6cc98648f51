import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport
import Foundation
import Synchronization
import Testing

/// A 16 kHz stream: `seconds` of syllable-like bursts (200 ms of a 200 Hz tone at −12 dBFS,
/// 100 ms of silence, so the energy gate calls it speech) or of silence.
private func stream(seconds: Double, tone: Bool) -> [Int16] {
    (0..<Int(seconds * 16000)).map { index in
        let voiced = tone && index % 4800 < 3200
        return voiced ? Int16(8000 * sin(2 * Double.pi * 200 * Double(index) / 16000)) : 0
    }
}

/// Records what the verifier was asked.
private final class VerifierLog: Sendable {
    let calls = Mutex<[(duration: Double, prompt: String?)]>([])
}

/// Feeds `samples` in 20 ms blocks and finishes.
private func runDetector(_ detector: TwoStageWakeDetector, _ samples: [Int16]) async throws -> [WakeVerdict] {
    var verdicts: [WakeVerdict] = []
    var start = 0
    while start < samples.count {
        let end = min(start + 320, samples.count)
        verdicts += try await detector.process(Array(samples[start..<end]))
        start = end
    }
    return verdicts + (try await detector.finish())
}

@Suite struct TwoStageWakeDetectorTests {
    static let speech = stream(seconds: 4, tone: true)

    static func detector(
        hits: [(String, Double)], triggers: [String] = ["computer", "claude"], verifier: TranscriptVerifier?
    ) -> TwoStageWakeDetector {
        TwoStageWakeDetector(
            engine: ScriptedWakeEngine(triggers: triggers, hits: hits.map { (trigger: $0.0, at: $0.1) }),
            verifier: verifier)
    }

    @Test func stageOneOnlyAcceptsEveryHitAtOnceWithRefractory() async throws {
        let detector = Self.detector(hits: [("computer", 1.0), ("computer", 2.5), ("computer", 3.1)], verifier: nil)
        let verdicts = try await runDetector(detector, Self.speech)
        #expect(verdicts.map(\.hit.atSeconds) == [1.0, 3.1])
        #expect(verdicts.allSatisfy { $0.isAccepted && $0.decidedAtSeconds == $0.hit.atSeconds })
    }

    @Test func verifierSeesTheAudioAroundTheHitAndThePrompt() async throws {
        let log = VerifierLog()
        let verifier = TranscriptVerifier(name: "fake") { buffer, prompt in
            log.calls.locked { $0.append((buffer.duration, prompt)) }
            return "Computer."
        }
        let detector = Self.detector(hits: [("computer", 2.0)], verifier: verifier)
        let verdicts = try await runDetector(detector, Self.speech)
        let verdict = try #require(verdicts.first)
        #expect(verdicts.count == 1)
        #expect(verdict.isAccepted)
        #expect(verdict.transcript == "Computer.")
        #expect(verdict.decidedAtSeconds == 3.0)
        if case .accepted(_, let rule) = verdict.decision { #expect(rule == .textOnly) } else { Issue.record() }
        let calls = log.calls.locked { $0 }
        #expect(calls.count == 1)
        // 1.5 s before the hit to 1.0 s after it.
        #expect(abs((calls.first?.duration ?? 0) - 2.5) < 0.001)
        #expect(calls.first?.prompt == "computer, claude.")
    }

    @Test func transcriptWithoutTheTriggerIsRejected() async throws {
        let verifier = TranscriptVerifier(name: "fake") { _, _ in "a cup of coffee" }
        let verdicts = try await runDetector(Self.detector(hits: [("computer", 2.0)], verifier: verifier), Self.speech)
        #expect(verdicts.map(\.rejection) == [.triggerNotHeard])
    }

    @Test func transcriptMustNameTheHitTrigger() async throws {
        // PocketSphinx heard "claude", the transcript says "computer": not confirmed.
        let verifier = TranscriptVerifier(name: "fake") { _, _ in "computer" }
        let verdicts = try await runDetector(Self.detector(hits: [("claude", 2.0)], verifier: verifier), Self.speech)
        #expect(verdicts.map(\.rejection) == [.triggerNotHeard])
    }

    @Test func confusionsAreAccepted() async throws {
        let verifier = TranscriptVerifier(name: "fake") { _, _ in "Open Club, lights on" }
        let detector = Self.detector(hits: [("openclaw", 2.0)], triggers: ["openclaw"], verifier: verifier)
        let verdict = try #require(try await runDetector(detector, Self.speech).first)
        #expect(verdict.isAccepted)
        #expect(verdict.command == "lights on")
    }

    @Test func wordTimingsApplyThePauseRule() async throws {
        // Timings relative to the clip, which starts 1.5 s before the hit.
        let running = TranscriptVerifier(name: "timed") { buffer, _ in
            RecognizedTranscript(
                words: [
                    .init("my", start: 0.8, end: 1.0), .init("computer", start: 1.0, end: 1.5),
                    .init("crashed", start: 1.6, end: 2.0),
                ],
                isFinal: true, audioDuration: buffer.duration)
        }
        let rejected = try await runDetector(Self.detector(hits: [("computer", 2.0)], verifier: running), Self.speech)
        #expect(rejected.map(\.rejection) == [.pauseTooShort])

        let paused = TranscriptVerifier(name: "timed") { buffer, _ in
            RecognizedTranscript(
                words: [.init("computer", start: 1.0, end: 1.5), .init("lights", start: 2.0, end: 2.4)],
                isFinal: true, audioDuration: buffer.duration)
        }
        let accepted = try await runDetector(Self.detector(hits: [("computer", 2.0)], verifier: paused), Self.speech)
        #expect(accepted.first?.isAccepted == true)
        #expect(accepted.first?.command == "lights")
        if case .accepted(_, let rule) = accepted.first?.decision { #expect(rule == .postTriggerGap) }
    }

    @Test func silenceIsRejectedWithoutCallingTheVerifier() async throws {
        let log = VerifierLog()
        let verifier = TranscriptVerifier(name: "fake") { buffer, _ in
            log.calls.locked { $0.append((buffer.duration, nil)) }
            return "computer"
        }
        let detector = Self.detector(hits: [("computer", 2.0)], verifier: verifier)
        let verdicts = try await runDetector(detector, stream(seconds: 4, tone: false))
        #expect(verdicts.map(\.rejection) == [.noSpeech])
        #expect(log.calls.locked { $0.isEmpty })
    }

    @Test func promptEchoIsRejected() async throws {
        let verifier = TranscriptVerifier(name: "whisper-like") { _, prompt in prompt ?? "" }
        let verdicts = try await runDetector(Self.detector(hits: [("computer", 2.0)], verifier: verifier), Self.speech)
        #expect(verdicts.map(\.rejection) == [.promptEcho])
    }

    @Test func verifierErrorsBecomeRejections() async throws {
        struct Down: Error, CustomStringConvertible { var description: String { "server down" } }
        let verifier = TranscriptVerifier(name: "fake") { (_: PCMBuffer, _: String?) async throws -> String in
            throw Down()
        }
        let verdicts = try await runDetector(Self.detector(hits: [("computer", 2.0)], verifier: verifier), Self.speech)
        #expect(verdicts.map(\.rejection) == [.verifierFailed("server down")])
    }

    @Test func hitNearTheEndIsVerifiedAtFinishWithTheAudioThereIs() async throws {
        let log = VerifierLog()
        let verifier = TranscriptVerifier(name: "fake") { buffer, _ in
            log.calls.locked { $0.append((buffer.duration, nil)) }
            return "computer"
        }
        let verdicts = try await runDetector(Self.detector(hits: [("computer", 3.8)], verifier: verifier), Self.speech)
        #expect(verdicts.first?.isAccepted == true)
        #expect(verdicts.first?.decidedAtSeconds == 4.0)
        #expect(abs((log.calls.locked { $0.first?.duration } ?? 0) - 1.7) < 0.001)
    }

    @Test func setTriggersUpdatesEngineAndGate() async throws {
        let engine = ScriptedWakeEngine(triggers: ["computer"], hits: [("jarvis", 1.0)])
        let detector = TwoStageWakeDetector(
            engine: engine, verifier: TranscriptVerifier(name: "fake") { _, _ in "jarvis" })
        try detector.setTriggers(["computer", "jarvis"])
        #expect(engine.setTriggerCalls == [["computer", "jarvis"]])
        #expect(detector.matcher.triggers == ["computer", "jarvis"])
        #expect(detector.prompt == "computer, jarvis.")
        let verdicts = try await runDetector(detector, Self.speech)
        #expect(verdicts.first?.isAccepted == true)
    }

    @Test func resetStartsTheTimeBaseOver() async throws {
        let detector = Self.detector(hits: [("computer", 1.0)], verifier: nil)
        #expect(try await runDetector(detector, Self.speech).count == 1)
        try detector.reset()
        #expect(try await runDetector(detector, Self.speech).map(\.hit.atSeconds) == [1.0])
    }

    /// Scorer-like hits (score against a 0.01 threshold) at 1.5 s and 3.5 s, fed with own playback
    /// in the audio from `echoFrom` to `echoUntil` seconds.
    private static func echoVerdicts(scores: [Double], echoFrom: Double, echoUntil: Double) async throws
        -> [WakeVerdict]
    {
        let script = zip([1.5, 3.5], scores).map {
            WakeHit(trigger: "computer", engine: "whisper", atSeconds: $0, score: $1, threshold: 0.01)
        }
        let detector = TwoStageWakeDetector(
            engine: ScriptedWakeEngine(triggers: ["computer"], script: script), verifier: nil)
        var verdicts: [WakeVerdict] = []
        for start in stride(from: 0, to: Self.speech.count, by: 320) {
            let seconds = Double(start) / 16000
            let block = Array(Self.speech[start..<min(start + 320, Self.speech.count)])
            verdicts += try await detector.process(block, echo: seconds >= echoFrom && seconds < echoUntil)
        }
        return verdicts
    }

    @Test func aWeakScoreWhileTheNodePlaysIsRefusedAndAStrongOneWakes() async throws {
        // Playback 0–2 s: the 0.05 hit at 1.5 s is refused (< 10 × 0.01); the same score at 3.5 s,
        // 1.5 s after playback ended, wakes.
        let weak = try await Self.echoVerdicts(scores: [0.05, 0.05], echoFrom: 0, echoUntil: 2)
        #expect(weak.map(\.rejection) == [.weakOverEcho, nil])
        // A score of 10 × the threshold wakes over playback.
        let strong = try await Self.echoVerdicts(scores: [0.1, 0.05], echoFrom: 0, echoUntil: 2)
        #expect(strong.map(\.isAccepted) == [true, true])
        // Playback that ended within the last second of the decision still counts.
        let tail = try await Self.echoVerdicts(scores: [0.05, 0.05], echoFrom: 2.8, echoUntil: 3)
        #expect(tail.map(\.rejection) == [nil, .weakOverEcho])
    }

    @Test func aHitWithoutAThresholdIsNotHeldAgainstPlayback() async throws {
        // microWakeWord and PocketSphinx hits carry no threshold: their own cutoffs decide.
        let detector = Self.detector(hits: [("computer", 1.0)], verifier: nil)
        var verdicts: [WakeVerdict] = []
        for start in stride(from: 0, to: 32_000, by: 320) {
            verdicts += try await detector.process(Array(Self.speech[start..<start + 320]), echo: true)
        }
        #expect(verdicts.map(\.isAccepted) == [true])
    }
}

extension SpeechEngineTests {
    /// The whole pipeline on real audio: PocketSphinx stage 1, a fake verifier closure.
    @Suite struct TwoStageIntegrationTests {
        @Test(arguments: [true, false])
        func pocketSphinxHitIsConfirmedOrRejectedByTheVerifier(accept: Bool) async throws {
            let engine = try PocketSphinxKeywordEngine(triggers: ["computer"], resolver: WakeTestSupport.resolver())
            let verifier = TranscriptVerifier(name: "fake") { _, _ in accept ? "computer" : "commuter" }
            let detector = TwoStageWakeDetector(engine: engine, verifier: verifier)
            let audio = try SpeechFixtures.speakForRecognizer("computer", voice: "en-us+klatt3")
            let verdicts = try await runDetector(detector, audio.samples)
            let verdict = try #require(verdicts.first)
            #expect(verdicts.count == 1)
            #expect(verdict.hit.engine == "pocketsphinx")
            #expect(verdict.isAccepted == accept)
            #expect(verdict.rejection == (accept ? nil : .triggerNotHeard))
        }
    }
}

/// An actor owning a detector, as the node's wake runtime will: the async methods run on the
/// actor's executor, so the non-Sendable detector never leaves it.
private actor WakeHost {
    let detector: TwoStageWakeDetector

    init() {
        detector = TwoStageWakeDetector(
            engine: ScriptedWakeEngine(triggers: ["computer"], hits: [(trigger: "computer", at: 0.5)]),
            verifier: TranscriptVerifier(name: "fake") { _, _ in "computer" })
    }

    func feed(_ samples: [Int16]) async throws -> [WakeVerdict] {
        try await detector.process(samples) + (try await detector.finish())
    }
}

@Suite struct WakeHostTests {
    @Test func anActorCanOwnTheDetector() async throws {
        let verdicts = try await WakeHost().feed(stream(seconds: 2, tone: true))
        #expect(verdicts.map(\.isAccepted) == [true])
    }
}
