import ClawTalkAudio
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkNode

/// `stt.engine = gateway` in `run`: the relay follows the service's operator session (attached on
/// hello-ok, detached when the session ends), so the engine chain the push-to-talk service builds
/// transcribes through the gateway while connected and falls back locally otherwise.
@Suite("Gateway relay in run", .serialized, .timeLimit(.minutes(1)))
struct GatewayRelayCompositionTests {
    @Test func theRunsRelayFollowsTheOperatorSession() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let gateway = SayFlowTests.gateway()
        await gateway.updateScript { $0.relayTranscript = "turn on the lights" }
        let stack = try RunReplyStack(gateway: gateway, home: home) { $0.stt.engine = .gateway }
        let (settings, replies) = (stack.settings, stack.replies)
        let local = RecordingTranscriber()
        let chain = TranscriberSelector.transcriber(
            for: settings.stt, pocketSphinx: nil, wyoming: nil, gateway: replies.relay)
        let withLocalFallback = FallbackTranscriber(primary: replies.relay, fallback: local)
        #expect(chain.name.hasPrefix("gateway|"))
        let service = stack.service
        let serviceTask = Task { await service.run() }
        let speech = Self.tone()

        var transcript = try await withLocalFallback.transcribe(speech)
        _ = try await eventually {
            if transcript.engine == "gateway" { return true }
            transcript = try await withLocalFallback.transcribe(speech)
            return transcript.engine == "gateway"
        }
        #expect(transcript.engine == "gateway")
        #expect(transcript.text == "turn on the lights")
        #expect(await gateway.recordedRelaySessions().last?.closed == true)

        serviceTask.cancel()
        await serviceTask.value
        let afterwards = try await withLocalFallback.transcribe(speech)
        #expect(afterwards.engine == "recording")
        #expect(afterwards.fallbackReason?.contains("no operator connection") == true)
    }

    /// 0.5 s of 440 Hz then 0.2 s of silence at 16 kHz.
    static func tone() -> PCMBuffer {
        var samples = (0..<8_000).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / 16_000)) }
        samples += [Int16](repeating: 0, count: 3_200)
        return PCMBuffer(format: .speech, samples: samples)
    }

    /// A local engine that records nothing but its name (the fallback target).
    final class RecordingTranscriber: Transcriber {
        let name = "recording"

        func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
            Transcript(text: "local", engine: name, audioSeconds: audio.duration, processingTime: .zero)
        }
    }
}
