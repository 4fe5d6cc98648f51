import ClawTalkAudio
import ClawTalkDesktop
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

@testable import ClawTalkNode

/// Local push-to-talk as `clawtalk run` serves it: the control socket drives the same controller
/// as the `talk.ptt.*` invokes, and delivers through the node route (offline without a gateway).
@Suite("Local push-to-talk service", .serialized, .timeLimit(.minutes(1)))
struct PushToTalkServiceTests {
    /// A capture that plays one spoken second and keeps its stream open.
    struct OneUtterance: UtteranceCapturing {
        func begin() async throws -> any UtteranceCapture { Capture() }

        final class Capture: UtteranceCapture {
            let frames: AsyncStream<UtteranceFrame>
            init() {
                let (stream, continuation) = AsyncStream.makeStream(of: UtteranceFrame.self)
                for index in 0..<100 {
                    let time = Double(index) * 0.02
                    continuation.yield(UtteranceFrame(time: time, isSpeech: time < 1, rms: 0.1))
                }
                frames = stream
            }
            func snapshot() async -> PCMBuffer { await finish() }
            func finish() async -> PCMBuffer { PCMBuffer(format: .speech, samples: [Int16](repeating: 9, count: 1600)) }
            func cancel() async {}
        }
    }

    struct FixedTranscriber: Transcriber {
        let name = "fixed"
        func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
            Transcript(text: " turn on the lights ", engine: name, audioSeconds: audio.duration, processingTime: .zero)
        }
    }

    struct Silent: SpeechStopping {
        func stopSpeaking(recordInterruption: Bool) async -> Double? { nil }
    }

    @Test func theCLIDrivesTheControllerAndWithoutAGatewayTheResultIsOffline() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let delivery = NodeTranscriptDelivery(sessionKey: "main", logger: .discarding)
        let controller = PTTController(
            capturing: OneUtterance(), transcriber: FixedTranscriber(), delivery: delivery, speech: Silent())
        let service = PushToTalkService(
            settings: Settings(), environment: home.environment, logger: .discarding, controller: controller,
            delivery: delivery)
        #expect(service.socketPath == home.runtime + "/clawtalk/control.sock")
        let running = Task { await service.run() }
        defer { running.cancel() }
        #expect(await eventually { FileManager.default.fileExists(atPath: service.socketPath) })

        let start = try await ControlSocketClient.send(.start, to: service.socketPath)
        let captureId = try #require(start.captureId)
        #expect(start.status == "started")
        #expect(try await ControlSocketClient.send(.toggle, to: service.socketPath).status == "offline")
        let stopped = try await ControlSocketClient.send(.stop, to: service.socketPath)
        #expect(stopped.status == "idle", "the toggle stopped it")
        #expect(stopped.captureId != captureId)

        let once = try await ControlSocketClient.send(.once, to: service.socketPath)
        #expect(once.ok)
        #expect(once.status == "offline", "no route connected: transcript returned, nothing sent")
        #expect(once.transcript == "turn on the lights")
        let cancel = try await ControlSocketClient.send(.cancel, to: service.socketPath)
        #expect(cancel.status == "idle")

        running.cancel()
        await running.value
        #expect(!FileManager.default.fileExists(atPath: service.socketPath), "the socket goes with the service")
        #expect(await controller.perform(.start) == .failed(.startCancelled), "shut down")
    }
}
