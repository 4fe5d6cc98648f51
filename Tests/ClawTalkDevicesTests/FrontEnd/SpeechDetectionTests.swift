import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import Foundation
import Testing

/// Voice activity of ``AudioFrontEnd`` (``SpeechDetector`` on the AEC output), offline.
@Suite("Front end: voice activity")
struct SpeechDetectionTests {
    typealias Fixtures = FrontEndFixtures

    static let speechText =
        "The quick brown fox jumps over the lazy dog. Please turn on the kitchen lights and tell me "
        + "the weather for tomorrow."

    @Test(
        "stationary noise is not speech after one second of adaptation",
        arguments: Fixtures.Noise.allCases, [-50.0, -30.0, -15.0])
    func stationaryNoiseIsNotSpeech(noise: Fixtures.Noise, level: Double) throws {
        let frontEnd = try AudioFrontEnd()
        let samples = Fixtures.pcm(noise.samples(count: 5 * Fixtures.rate), dBFS: level)
        let frames = try Fixtures.drive(frontEnd, near: samples)
        let settled = frames.dropFirst(50)
        let flagged = settled.filter(\.isSpeech).count
        let fraction = Double(flagged) / Double(settled.count)
        print("VAD \(noise) noise at \(level) dBFS: \(flagged)/\(settled.count) frames flagged after 1 s")
        #expect(fraction < 0.02, "\(noise) noise at \(level) dBFS: \(fraction * 100) % of frames flagged")
    }

    @Test(
        "speech at 10 dB SNR over stationary noise is speech",
        arguments: [Fixtures.Noise.pink, .white, .brown])
    func speechOverNoiseIsSpeech(noise: Fixtures.Noise) throws {
        let speech = try Fixtures.speech(Self.speechText)
        let active = Fixtures.activeFrames(speech)
        let speechLevel = 20 * log10(Fixtures.activeLevel(speech))
        let lead = Fixtures.rate  // one second of noise alone first
        let noiseSamples = Fixtures.pcm(noise.samples(count: lead + speech.count), dBFS: speechLevel - 10)
        var mix = noiseSamples
        for (index, sample) in speech.enumerated() {
            mix[lead + index] = Int16(clamping: Int(mix[lead + index]) + Int(sample))
        }
        let frontEnd = try AudioFrontEnd()
        let frames = try Fixtures.drive(frontEnd, near: mix)
        let speechFrames = frames.dropFirst(lead / Fixtures.frame).prefix(active.count)
        var hits = 0
        var activeCount = 0
        for (frame, isActive) in zip(speechFrames, active) where isActive {
            activeCount += 1
            if frame.isSpeech { hits += 1 }
        }
        let leadFlags = frames.prefix(lead / Fixtures.frame).dropFirst(25).filter(\.isSpeech).count
        let fraction = Double(hits) / Double(max(activeCount, 1))
        print(
            "VAD speech at 10 dB SNR over \(noise) noise (speech \(String(format: "%.1f", speechLevel)) dBFS): "
                + "\(hits)/\(activeCount) active speech frames flagged; \(leadFlags) noise-only frames flagged")
        #expect(activeCount > 100, "the espeak clip has only \(activeCount) active frames")
        #expect(fraction >= 0.5, "only \(fraction * 100) % of speech frames flagged over \(noise) noise")
        #expect(leadFlags <= 1)
    }

    @Test("silence and near-silence are never speech; a loud talker in silence is")
    func silenceAndSpeech() throws {
        let frontEnd = try AudioFrontEnd()
        let silence = [Int16](repeating: 0, count: Fixtures.rate)
        let faint = Fixtures.pcm(Fixtures.Noise.white.samples(count: Fixtures.rate), dBFS: -75)
        let speech = try Fixtures.speech("Hello, this is a test of the voice detector.")
        let frames = try Fixtures.drive(frontEnd, near: silence + faint + speech)
        #expect(frames.prefix(100).allSatisfy { !$0.isSpeech })
        let active = Fixtures.activeFrames(speech)
        let flagged = zip(frames.dropFirst(100), active).filter { $0.1 && $0.0.isSpeech }.count
        #expect(Double(flagged) >= 0.7 * Double(active.filter { $0 }.count), "\(flagged) speech frames flagged")
    }

    @Test("the energy gate runs beside the detector: floor follows the noise, rms is the AEC output's")
    func energyGateFields() throws {
        let frontEnd = try AudioFrontEnd(settings: FrontEndSettings(stages: ProcessingSettings(highPassFilter: false)))
        let noise = Fixtures.pcm(Fixtures.Noise.white.samples(count: 3 * Fixtures.rate), dBFS: -40)
        let frames = try Fixtures.drive(frontEnd, near: noise)
        let last = try #require(frames.last)
        #expect(abs(last.rms - LevelMeter.rms(last.aec)) < 1e-12)
        // After 3 s the talk.md §5.4 floor has risen most of the way from 1e-4 to the noise (0.01).
        #expect(last.noiseFloor > 0.005 && last.noiseFloor < 0.011, "floor \(last.noiseFloor)")
        #expect(!last.energyGateSpeech)
        #expect(frames.first?.energyGateSpeech == true)  // the floor starts at 1e-4
    }

    @Test("the detector alone: hum is never speech, band-limited bursts after quiet noise are")
    func detectorDirectly() {
        let detector = SpeechDetector()
        let hum = Fixtures.pcm(Fixtures.Noise.hum.samples(count: 2 * Fixtures.rate), dBFS: -20)
        var humFlags = 0
        for start in stride(from: 0, to: hum.count, by: 320)
        where detector.process(Array(hum[start..<start + 320])).isSpeech {
            humFlags += 1
        }
        #expect(humFlags == 0)
        detector.reset()
        let quiet = Fixtures.pcm(Fixtures.Noise.white.samples(count: 320 * 30), dBFS: -60)
        for start in stride(from: 0, to: quiet.count, by: 320) {
            _ = detector.process(Array(quiet[start..<start + 320]))
        }
        let bursts = TestSignals.speechLike(seconds: 1, sampleRate: 16000)
        let loud = stride(from: 0, to: bursts.count, by: 320).map { Array(bursts[$0..<$0 + 320]) }
            .filter { LevelMeter.rms($0) > 0.01 }
        let flagged = loud.filter { detector.process($0).isSpeech }.count
        #expect(Double(flagged) >= 0.8 * Double(loud.count), "\(flagged) of \(loud.count) loud burst frames flagged")
    }
}
