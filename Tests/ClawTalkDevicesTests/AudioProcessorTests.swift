import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import Foundation
import Testing

@Suite("WebRTC audio processor")
struct AudioProcessorTests {
    /// Runs `far` through the processor as render and `near` as capture, 10 ms at a time.
    private func process(
        far: [Int16], near: [Int16], processor: AudioProcessor, delayMs: Int
    ) throws -> (output: [Int16], voiceFrames: Int) {
        let n = processor.frameSamples
        var output = [Int16]()
        output.reserveCapacity(near.count)
        var frame = [Int16](repeating: 0, count: n)
        var voiceFrames = 0
        var start = 0
        while start + n <= near.count {
            try processor.processRender(Array(far[start..<start + n]))
            frame.replaceSubrange(0..<n, with: near[start..<start + n])
            if try processor.processCapture(&frame, delayMs: delayMs) { voiceFrames += 1 }
            output.append(contentsOf: frame)
            start += n
        }
        return (output, voiceFrames)
    }

    /// Near end = far end delayed by `delayMs` and attenuated by 6 dB (a pure echo path).
    private func echo(of far: [Int16], delayMs: Int, sampleRate: Int) -> [Int16] {
        let delay = sampleRate * delayMs / 1000
        return (0..<far.count).map { i in i < delay ? 0 : Int16(Double(far[i - delay]) * 0.5) }
    }

    /// Echo return loss enhancement in dB over the samples from `skip` on.
    private func erle(input: [Int16], output: [Int16], skip: Int) -> Double {
        let e1 = TestSignals.energy(input[skip..<output.count])
        let e2 = TestSignals.energy(output[skip...])
        return 10 * log10(e1 / max(e2, 1))
    }

    @Test("10 ms frames: 160 samples at 16 kHz, 480 at 48 kHz")
    func frameSize() throws {
        #expect(try AudioProcessor(settings: AudioProcessingSettings(sampleRate: 16000)).frameSamples == 160)
        #expect(try AudioProcessor(settings: AudioProcessingSettings(sampleRate: 48000)).frameSamples == 480)
        #expect(try AudioProcessor(settings: AudioProcessingSettings(sampleRate: 8000)).frameSamples == 80)
    }

    @Test(
        "the echo canceller removes a delayed, attenuated copy of the far end",
        arguments: [EchoCancellationMode.aec, .aecm])
    func cancelsEcho(mode: EchoCancellationMode) throws {
        let rate = 16000
        let far = TestSignals.speechLike(seconds: 2, sampleRate: rate)
        let near = echo(of: far, delayMs: 30, sampleRate: rate)
        let processor = try AudioProcessor(
            settings: AudioProcessingSettings(
                sampleRate: rate, stages: ProcessingSettings(echoCancellation: mode), voiceDetection: false))
        let result = try process(far: far, near: near, processor: processor, delayMs: 30)
        let measured = erle(input: near, output: result.output, skip: rate)
        print("ERLE (\(mode), 30 ms delay, -6 dB echo, after 1 s): \(String(format: "%.1f", measured)) dB")
        #expect(measured >= 10, "ERLE \(measured) dB is below 10 dB")
    }

    @Test(
        "a near talker louder than the echo survives cancellation (it is not just muting)",
        arguments: [SuppressionLevel.low, .moderate, .high])
    func nearTalkerSurvives(suppression: SuppressionLevel) throws {
        let rate = 16000
        let far = TestSignals.speechLike(seconds: 2.5, sampleRate: rate)
        let echoOnly = echo(of: far, delayMs: 30, sampleRate: rate)
        // A different talker, 6 dB above the echo, speaking from 1.5 s on.
        let talkerStart = rate * 3 / 2
        let talker = TestSignals.speechLike(seconds: 2.5, sampleRate: rate, seed: 7).enumerated().map {
            $0.offset < talkerStart ? Int16(0) : $0.element
        }
        let near = zip(echoOnly, talker).map { Int16(clamping: Int($0) + Int($1)) }
        let processor = try AudioProcessor(
            settings: AudioProcessingSettings(
                sampleRate: rate, stages: ProcessingSettings(aecSuppression: suppression), voiceDetection: false))
        let result = try process(far: far, near: near, processor: processor, delayMs: 30)
        let window = talkerStart..<result.output.count
        let kept = 10 * log10(TestSignals.energy(result.output[window]) / TestSignals.energy(talker[window]))
        print("near talker level after AEC (\(suppression) suppression): \(String(format: "%.1f", kept)) dB")
        #expect(kept > -15, "near talker attenuated by \(-kept) dB")
    }

    @Test("with echo cancellation off the echo passes (the ERLE check can fail)")
    func withoutCancellationEchoRemains() throws {
        let rate = 16000
        let far = TestSignals.speechLike(seconds: 2, sampleRate: rate)
        let near = echo(of: far, delayMs: 30, sampleRate: rate)
        let processor = try AudioProcessor(
            settings: AudioProcessingSettings(
                sampleRate: rate, stages: ProcessingSettings(echoCancellation: .off), voiceDetection: false))
        let result = try process(far: far, near: near, processor: processor, delayMs: 30)
        let measured = erle(input: near, output: result.output, skip: rate)
        print("ERLE without AEC: \(String(format: "%.1f", measured)) dB")
        #expect(measured < 3, "without AEC the output should keep the echo, ERLE \(measured) dB")
    }

    @Test("voice detection: silence is never voice, speech-like bursts are")
    func voiceDetection() throws {
        let rate = 16000
        let processor = try AudioProcessor(
            settings: AudioProcessingSettings(stages: ProcessingSettings(echoCancellation: .off)))
        let silence = [Int16](repeating: 0, count: rate)
        let quiet = try process(far: silence, near: silence, processor: processor, delayMs: 0)
        #expect(quiet.voiceFrames == 0)
        let speech = TestSignals.speechLike(seconds: 1, sampleRate: rate)
        let loud = try process(far: silence, near: speech, processor: processor, delayMs: 0)
        #expect(loud.voiceFrames > 10, "only \(loud.voiceFrames) of 100 frames flagged as voice")
    }

    @Test("a frame that is not exactly 10 ms is rejected with an error, not a crash")
    func wrongFrameLength() throws {
        let processor = try AudioProcessor()
        var twenty = [Int16](repeating: 0, count: 320)
        #expect {
            _ = try processor.processCapture(&twenty, delayMs: 0)
        } throws: { error in
            guard case AudioDeviceError.processing(let message) = error else { return false }
            return message.contains("320") && message.contains("160")
        }
        #expect(throws: AudioDeviceError.self) { try processor.processRender([Int16](repeating: 0, count: 159)) }
        #expect(throws: AudioDeviceError.self) { try processor.processRender([]) }
        // The processor still works after the rejected frames.
        var ok = [Int16](repeating: 0, count: 160)
        _ = try processor.processCapture(&ok, delayMs: 0)
    }

    @Test("unsupported settings are rejected at creation")
    func invalidSettings() {
        #expect(throws: AudioDeviceError.format(AudioFormat(sampleRate: 44100))) {
            try AudioProcessor(settings: AudioProcessingSettings(sampleRate: 44100))
        }
        #expect(throws: AudioDeviceError.self) {
            try AudioProcessor(
                settings: AudioProcessingSettings(
                    sampleRate: 48000, stages: ProcessingSettings(echoCancellation: .aecm)))
        }
        #expect(throws: AudioDeviceError.self) {
            try AudioProcessor(
                settings: AudioProcessingSettings(
                    stages: ProcessingSettings(gainControl: .adaptive), targetLevelDBFS: 40))
        }
    }

    @Test("every stage can be enabled together and processes frames", arguments: [8000, 16000, 32000, 48000])
    func allStages(rate: Int) throws {
        let settings = AudioProcessingSettings(
            sampleRate: rate,
            stages: ProcessingSettings(
                echoCancellation: .aec, aecSuppression: .high, noiseSuppression: .veryhigh, gainControl: .adaptive,
                highPassFilter: true),
            extendedFilter: true, delayAgnostic: true, targetLevelDBFS: 3, voiceDetection: true, voiceLikelihood: .high)
        let processor = try AudioProcessor(settings: settings)
        let far = TestSignals.speechLike(seconds: 0.5, sampleRate: rate)
        let near = echo(of: far, delayMs: 20, sampleRate: rate)
        let result = try process(far: far, near: near, processor: processor, delayMs: 20)
        #expect(result.output.count == near.count)
        #expect(processor.format == AudioFormat(sampleRate: rate))
    }
}
