import ClawTalkAudio
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Testing

/// The `gateway` STT engine against the test gateway's emulated transcription relay (talk.md
/// §9.1), in upstream's current form (μ-law 8 kHz, finals after close) and the legacy one (pcm16
/// 24 kHz): what goes over the wire (params, chunks, timestamps, in-flight limit, close) and every
/// way it can be unavailable, each ending in a fallback that keeps the audio.
@Suite(.serialized) struct GatewayRelayTranscriberTests {
    /// Short waits so the negative cases stay quick.
    static var fast: GatewayRelayTranscriber.Configuration {
        var configuration = GatewayRelayTranscriber.Configuration()
        configuration.readyTimeout = .milliseconds(500)
        configuration.settle = .milliseconds(200)
        configuration.quietLimit = .milliseconds(800)
        configuration.finalLimit = .seconds(3)
        return configuration
    }

    /// ``fast``, but patient where a busy machine could make the relay late (its `ready`, its
    /// transcript): for the tests where the relay does answer.
    static var patient: GatewayRelayTranscriber.Configuration {
        var configuration = fast
        configuration.readyTimeout = .seconds(30)
        configuration.quietLimit = .seconds(30)
        configuration.finalLimit = .seconds(30)
        return configuration
    }

    /// `seconds` of a 440 Hz tone at 16 kHz followed by `silence` seconds of nothing.
    static func toneThenSilence(seconds: Double, silence: Double) -> PCMBuffer {
        let rate = 16_000.0
        var samples = (0..<Int(seconds * rate)).map { index in
            Int16(9_000 * sin(2 * Double.pi * 440 * Double(index) / rate))
        }
        samples += [Int16](repeating: 0, count: Int(silence * rate))
        return PCMBuffer(format: .speech, samples: samples)
    }

    /// Frequency of the loud part of `samples` at `rate`, from its zero crossings.
    static func dominantFrequency(_ samples: [Int16], rate: Double) -> Double {
        let loud = samples.filter { abs(Int($0)) > 0 }
        var crossings = 0
        for index in 1..<loud.count where (loud[index - 1] < 0) != (loud[index] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(loud.count) / rate)
    }

    func harness(_ change: @Sendable (inout OperatorScript) -> Void = { _ in }) async throws -> GatewayHarness {
        var script = OperatorScript()
        change(&script)
        let harness = try GatewayHarness(script: script)
        try await harness.startOperator()
        return harness
    }

    @Test(
        "the utterance goes in the format the session states, in 20 ms chunks, and the relay's final comes back",
        arguments: [TestRelayForm.current, .legacy])
    func sendsTheStatedFormatAndReturnsTheFinal(form: TestRelayForm) async throws {
        let harness = try await harness { $0.relayForm = form }
        defer { Task { await harness.stop() } }
        let relay = GatewayRelayTranscriber(configuration: Self.patient)
        relay.attach(operator: harness.operatorSession)
        let audio = Self.toneThenSilence(seconds: 0.6, silence: 0.2)
        let transcript = try await relay.transcribe(audio, options: TranscriptionOptions(language: "en-US"))

        #expect(transcript.text == "hello from the relay")
        #expect(transcript.engine == "gateway")
        #expect(transcript.model == "test test-stt")
        let session = try #require(await harness.gateway.recordedRelaySessions().first)
        let params = try #require(session.params.objectValue)
        #expect(Set(params.keys) == ["mode", "transport", "brain", "language"])
        #expect(params["mode"] == "transcription")
        #expect(params["transport"] == "gateway-relay")
        #expect(params["brain"] == "none")
        #expect(params["language"] == "en")
        #expect(session.closed)
        // 0.8 s of audio plus 0.6 s of padding, in 20 ms chunks: μ-law bytes at 8 kHz (current),
        // pcm16 at 24 kHz (legacy).
        let rate = form == .current ? 8_000 : 24_000
        #expect(session.sampleRate == rate)
        #expect(session.bytes == session.audio.count * (form == .current ? 1 : 2))
        let expected = Int((0.8 + 0.6) * Double(rate))
        #expect(abs(session.audio.count - expected) <= rate / 50, "\(session.audio.count) vs \(expected)")
        #expect(session.chunkSamples.dropLast().allSatisfy { $0 == rate / 50 })
        #expect(session.timestamps == session.chunkSamples.indices.map { Int64($0) * 20 })
        let frequency = Self.dominantFrequency(Array(session.audio.prefix(Int(0.6 * Double(rate)))), rate: Double(rate))
        #expect(abs(frequency - 440) < 10, "heard \(frequency) Hz at \(rate) Hz")
        #expect(session.finals == ["hello from the relay"])
    }

    @Test("the relay audio, decoded at the gateway, is the speech captured: its length and its level contour")
    func theDecodedAudioIsTheSpeech() async throws {
        let harness = try await harness()
        defer { Task { await harness.stop() } }
        let relay = GatewayRelayTranscriber(configuration: Self.patient)
        relay.attach(operator: harness.operatorSession)
        // Speech-like bursts (syllables and pauses) with a faint noise floor, 2.5 s at 16 kHz.
        let speech = Self.syllables(seconds: 2.5)
        _ = try await relay.transcribe(PCMBuffer(format: .speech, samples: speech))
        let session = try #require(await harness.gateway.recordedRelaySessions().first)
        #expect(session.sampleRate == 8_000)
        // Without the client's 0.6 s of trailing silence: the utterance's length within 10 %.
        let heard = Array(session.audio.dropLast(Int(0.6 * 8_000)))
        let seconds = Double(heard.count) / 8_000
        #expect(abs(seconds - 2.5) <= 0.25, "\(seconds) s at the gateway for 2.5 s captured")
        // The 20 ms level contour at the gateway follows the captured one (speech, not noise).
        let sent = Self.contour(speech, frame: 320)
        let received = Self.contour(heard, frame: 160)
        let count = min(sent.count, received.count)
        let correlation = Self.correlation(Array(sent.prefix(count)), Array(received.prefix(count)))
        print("relay audio: \(seconds) s, level contour correlation \(correlation)")
        #expect(correlation > 0.9)
        #expect(received.max() ?? 0 > 20 * (received.min() ?? 0) + 1, "bursts and pauses, not a flat noise")
    }

    @Test("a format the node cannot produce is a fallback that names the stated format")
    func anUnsupportedFormatIsUnavailable() async throws {
        let harness = try await harness { $0.relayStatedEncoding = "opus" }
        defer { Task { await harness.stop() } }
        let relay = GatewayRelayTranscriber(configuration: Self.patient)
        relay.attach(operator: harness.operatorSession)
        await #expect(
            throws: SpeechError.sttEngineUnavailable(
                engine: "gateway", reason: "unsupported relay input opus at 8000 Hz")
        ) {
            _ = try await relay.transcribe(Self.toneThenSilence(seconds: 0.3, silence: 0.1))
        }
        let session = try #require(await harness.gateway.recordedRelaySessions().first)
        #expect(session.closed)
        #expect(session.audio.isEmpty)
    }

    /// Voiced bursts of varying length and loudness (a 150 Hz buzz with harmonics) between pauses,
    /// over a faint noise floor, at 16 kHz: a level contour like speech.
    static func syllables(seconds: Double) -> [Int16] {
        let rate = 16_000.0
        let lengths = [0.18, 0.09, 0.22, 0.12, 0.3, 0.1, 0.16, 0.08, 0.25, 0.14, 0.2, 0.1, 0.15, 0.07]
        var samples: [Int16] = []
        var index = 0
        var noise: UInt64 = 0x9E37_79B9_7F4A_7C15
        while Double(samples.count) < seconds * rate {
            let voiced = index % 2 == 0
            let length = Int(lengths[index % lengths.count] * rate)
            let amplitude = voiced ? 4_000.0 + 2_000.0 * Double(index % 3) : 0
            for n in 0..<length {
                let t = Double(n) / rate
                let envelope = voiced ? sin(Double.pi * Double(n) / Double(length)) : 0
                let buzz = sin(2 * .pi * 150 * t) + 0.5 * sin(2 * .pi * 300 * t) + 0.25 * sin(2 * .pi * 450 * t)
                noise = noise &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let hiss = Double(Int64(bitPattern: noise) >> 53) / 1_024 * 30
                samples.append(Int16(clamping: Int(amplitude * envelope * buzz / 1.75 + hiss)))
            }
            index += 1
        }
        return Array(samples.prefix(Int(seconds * rate)))
    }

    /// RMS per `frame` samples.
    static func contour(_ samples: [Int16], frame: Int) -> [Double] {
        stride(from: 0, to: samples.count - frame + 1, by: frame).map { start in
            let slice = samples[start..<start + frame]
            return (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frame)).squareRoot()
        }
    }

    /// Pearson correlation of two equally long series.
    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count)
        let meanA = a.reduce(0, +) / n
        let meanB = b.reduce(0, +) / n
        var covariance = 0.0
        var varianceA = 0.0
        var varianceB = 0.0
        for (x, y) in zip(a, b) {
            covariance += (x - meanA) * (y - meanB)
            varianceA += (x - meanA) * (x - meanA)
            varianceB += (y - meanB) * (y - meanB)
        }
        return covariance / max((varianceA * varianceB).squareRoot(), 1e-9)
    }

    @Test func keepsAtMostFourAppendsInFlight() async throws {
        // Answers much slower than the client sends, also when the machine is busy.
        let harness = try await harness { $0.relayAppendDelayMs = 200 }
        defer { Task { await harness.stop() } }
        let relay = GatewayRelayTranscriber(configuration: Self.patient)
        relay.attach(operator: harness.operatorSession)
        _ = try await relay.transcribe(Self.toneThenSilence(seconds: 0.3, silence: 0.1))
        let session = try #require(await harness.gateway.recordedRelaySessions().first)
        #expect(session.maxInFlight == 4)
    }

    @Test func silenceGivesAnEmptyTranscriptAndClosesTheSession() async throws {
        let harness = try await harness()
        defer { Task { await harness.stop() } }
        // Patient for `ready`; the quiet limit stays short (a slow machine cannot add a transcript).
        var configuration = Self.patient
        configuration.quietLimit = Self.fast.quietLimit
        let relay = GatewayRelayTranscriber(configuration: configuration)
        relay.attach(operator: harness.operatorSession)
        let transcript = try await relay.transcribe(Self.toneThenSilence(seconds: 0, silence: 0.5))
        #expect(transcript.text.isEmpty)
        let session = try #require(await harness.gateway.recordedRelaySessions().first)
        #expect(session.finals.isEmpty)
        #expect(session.closed)
    }

    @Test func withoutAnOperatorSessionItIsUnavailable() async throws {
        let relay = GatewayRelayTranscriber(configuration: Self.fast)
        await #expect(
            throws: SpeechError.sttEngineUnavailable(engine: "gateway", reason: "no operator connection")
        ) {
            _ = try await relay.transcribe(Self.toneThenSilence(seconds: 0.2, silence: 0))
        }
    }

    @Test func aCatalogWithoutTranscriptionMakesItUnavailable() async throws {
        let harness = try await harness { $0.transcriptionReady = false }
        defer { Task { await harness.stop() } }
        let relay = GatewayRelayTranscriber(configuration: Self.fast)
        relay.attach(operator: harness.operatorSession)
        let error = await #expect(throws: SpeechError.self) {
            _ = try await relay.transcribe(Self.toneThenSilence(seconds: 0.2, silence: 0))
        }
        #expect("\(String(describing: error))".contains("talk.catalog"))
        #expect(await harness.gateway.recordedRelaySessions().isEmpty)
    }

    @Test func aGatewayWithoutTheMethodsIsUnavailable() async throws {
        let harness = try GatewayHarness { configuration in
            configuration.methods.removeAll { $0 == "talk.session.create" }
        }
        try await harness.startOperator()
        defer { Task { await harness.stop() } }
        let relay = GatewayRelayTranscriber(configuration: Self.fast)
        relay.attach(operator: harness.operatorSession)
        let error = await #expect(throws: SpeechError.self) {
            _ = try await relay.transcribe(Self.toneThenSilence(seconds: 0.2, silence: 0))
        }
        #expect("\(String(describing: error))".contains("does not offer talk.session.create"))
    }

    @Test func aRelayThatNeverGetsReadyIsClosedAndTheFallbackTranscribesTheSameAudio() async throws {
        let harness = try await harness { $0.relaySendsReady = false }
        defer { Task { await harness.stop() } }
        let relay = GatewayRelayTranscriber(configuration: Self.fast)
        relay.attach(operator: harness.operatorSession)
        let local = RecordingTranscriber()
        let chain = FallbackTranscriber(primary: relay, fallback: local)
        let audio = Self.toneThenSilence(seconds: 0.4, silence: 0.1)
        let transcript = try await chain.transcribe(audio)
        #expect(transcript.engine == "recording")
        #expect(local.received == [audio.samples])
        let reason = try #require(transcript.fallbackReason)
        #expect(reason.contains("no relay ready"), "\(reason)")
        let session = try #require(await harness.gateway.recordedRelaySessions().first)
        #expect(session.closed)
        #expect(session.audio.isEmpty)
    }
}

/// A local engine that keeps what it was given (the fallback's input is what is checked).
final class RecordingTranscriber: Transcriber {
    let name = "recording"
    private let audio = Locked<[[Int16]]>([])

    var received: [[Int16]] { audio.value }

    func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
        self.audio.update { $0.append(audio.samples) }
        return Transcript(text: "local", engine: name, audioSeconds: audio.duration, processingTime: .zero)
    }
}
