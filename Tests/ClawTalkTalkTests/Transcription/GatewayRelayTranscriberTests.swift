import ClawTalkAudio
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Testing

/// The `gateway` STT engine against the test gateway's emulated transcription relay (talk-contract
/// §9.1): what goes over the wire (params, 24 kHz pcm16 chunks, timestamps, in-flight limit,
/// close) and every way it can be unavailable, each ending in a fallback that keeps the audio.
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

    @Test func sendsTheUtteranceAs24kHzChunksAndReturnsTheRelaysFinalTranscript() async throws {
        let harness = try await harness()
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
        // 0.8 s of audio plus 0.6 s of padding at 24 kHz, in 480-sample (20 ms) chunks.
        let expected = Int((0.8 + 0.6) * 24_000)
        #expect(abs(session.audio.count - expected) <= 480, "\(session.audio.count) vs \(expected)")
        #expect(session.chunkSamples.dropLast().allSatisfy { $0 == 480 })
        #expect(session.timestamps == session.chunkSamples.indices.map { Int64($0) * 20 })
        let frequency = Self.dominantFrequency(Array(session.audio.prefix(Int(0.6 * 24_000))), rate: 24_000)
        #expect(abs(frequency - 440) < 10, "heard \(frequency) Hz at 24 kHz")
        #expect(session.finals == ["hello from the relay"])
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
