import ClawTalkAudio
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

@testable import ClawTalkNode

/// `say` and `run`'s reply pipeline composed with the real connections against the test gateway
/// (in memory), with recording fakes for audio and espeak-ng.
@Suite("Say and reply composition", .serialized, .timeLimit(.minutes(1)))
struct SayFlowTests {
    /// Records what it was asked to play; returns at once.
    final class RecordingAudio: AudioOutput {
        let formats = Mutex<[AudioFormat]>([])

        func play(_ buffers: AsyncThrowingStream<PCMBuffer, any Error>, format: AudioFormat) async -> AudioPlayback {
            formats.locked { $0.append(format) }
            var seconds = 0.0
            do {
                for try await buffer in buffers { seconds += buffer.duration }
            } catch {
                return AudioPlayback(playedSeconds: seconds, error: "\(error)")
            }
            return AudioPlayback(playedSeconds: seconds)
        }

        func stop() {}
    }

    /// Records texts; renders 50 ms of silence at 22050 Hz.
    final class RecordingSynthesizer: LocalSynthesizer {
        let texts = Mutex<[String]>([])

        func synthesize(_ text: String, voice: String, rateWPM: Int) async throws -> PCMBuffer {
            texts.locked { $0.append(text) }
            return PCMBuffer(format: AudioFormat(sampleRate: 22050), samples: [Int16](repeating: 1, count: 1102))
        }

        func cancel() {}
    }

    static let url = "ws://127.0.0.1:18789"

    static func gateway(_ configure: @Sendable (inout TestGatewayConfiguration) -> Void = { _ in }) -> TestGateway {
        var configuration = TestGatewayConfiguration()
        configuration.auth = .token("shared")
        configuration.autoApproveLoopback = true
        configure(&configuration)
        return TestGateway(configuration: configuration)
    }

    static func access(_ gateway: TestGateway, home: TemporaryHome, token: String?) throws -> SayFlow.GatewayAccess {
        var settings = Settings()
        settings.gateway.url = url
        settings.gateway.token = token
        let store = GatewayStore(directory: try StateDirectory(path: home.state + "/clawtalk"))
        let factory = GatewayConnectionFactory(
            settings: settings, identity: try DeviceIdentity.generate(), store: store, dialer: gateway.dialer(),
            logger: .discarding, surface: NodeSurface(caps: [.talk], commands: [], permissions: [:]))
        let target = try #require(try GatewayTarget.resolve(settings: settings.gateway, store: store))
        return SayFlow.GatewayAccess(factory: factory, target: target)
    }

    @Test func sayUsesTheGatewayVoiceOverAShortOperatorConnection() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let gateway = Self.gateway()
        let audio = RecordingAudio()
        let local = RecordingSynthesizer()
        let notices = Mutex<[String]>([])
        let result = await SayFlow.speak(
            "Hello from the CLI.", directive: TalkDirective(voice: "nova", once: true), settings: Settings(),
            gateway: try Self.access(gateway, home: home, token: "shared"), audio: audio, local: local,
            logger: .discarding, notice: { line in notices.locked { $0.append(line) } })
        #expect(result.outcome == .finished)
        #expect(result.engines == [.talkSpeak])
        #expect(notices.locked { $0 }.isEmpty)
        let speak = await gateway.observedEvents.compactMap { event -> WireJSON? in
            if case .operatorCall(_, "talk.speak", let params) = event { return params }
            return nil
        }
        #expect(speak.first?["text"] == "Hello from the CLI.")
        // The alias comes from talk.config (the test gateway maps nova → voice-nova-2).
        #expect(speak.first?["voiceId"] == "voice-nova-2")
        #expect(audio.formats.locked { $0 } == [AudioFormat(sampleRate: 24000)])
        #expect(local.texts.locked { $0 }.isEmpty)
        // The connection was closed after speaking.
        _ = try await gateway.waitForEvent(timeout: .seconds(30)) {
            if case .closed(_, 1000, _) = $0 { return true }
            return false
        }
    }

    @Test func withoutOperatorAccessOrAGatewaySayFallsBackToEspeakWithANotice() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let gateway = Self.gateway()
        for access in [try Self.access(gateway, home: home, token: nil), nil] {
            let audio = RecordingAudio()
            let local = RecordingSynthesizer()
            let notices = Mutex<[String]>([])
            let result = await SayFlow.speak(
                "Local speech. Two sentences.", directive: nil, settings: Settings(), gateway: access, audio: audio,
                local: local, logger: .discarding, notice: { line in notices.locked { $0.append(line) } })
            #expect(result.engines == [.espeak])
            #expect(local.texts.locked { $0 } == ["Local speech.", "Two sentences."])
            let notice = try #require(notices.locked { $0 }.first)
            #expect(notice.hasSuffix("speaking with espeak-ng on this machine."))
            #expect(notice.contains(access == nil ? "no gateway is configured" : "no operator access"))
        }
        #expect(await gateway.dials.isEmpty, "no connection (and no pairing request) without credentials")
    }

    @Test func anUnreachableGatewayFallsBackAfterTheConnectTimeout() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let gateway = Self.gateway { $0.startingUp = true }
        let local = RecordingSynthesizer()
        let notices = Mutex<[String]>([])
        let started = ContinuousClock.now
        let result = await SayFlow.speak(
            "Still heard.", directive: nil, settings: Settings(),
            gateway: try Self.access(gateway, home: home, token: "shared"), audio: RecordingAudio(), local: local,
            connectTimeout: .milliseconds(400), logger: .discarding,
            notice: { line in notices.locked { $0.append(line) } })
        // The notice names the timeout given (not the 5 s default); the clock only shows that the
        // flow gave up rather than hung (a busy machine may take longer than 0.4 s).
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(result.engines == [.espeak])
        let notice = notices.locked { $0 }.first ?? ""
        #expect(notice.contains("did not answer within \(Duration.milliseconds(400))"), "\(notice)")
    }

    @Test func runsReplyPipelineFollowsTheServiceSessionsAndSavesTheLastReply() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let gateway = Self.gateway()
        await gateway.updateScript { script in
            var config = script.talkConfig.objectValue ?? WireObject()
            config["session"] = ["mainKey": "home"]
            script.talkConfig = .object(config)
        }
        await gateway.enqueueChatRun([.final("{\"once\":true}\nIt is **noon**.\n```\ncode\n```")])
        let stack = try RunReplyStack(gateway: gateway, home: home)
        let (replies, service, state) = (stack.replies, stack.service, stack.state)
        let serviceTask = Task { await service.run() }
        let repliesTask = Task { await replies.run() }
        defer {
            serviceTask.cancel()
            repliesTask.cancel()
        }
        // talk.config arrives after the operator's hello-ok and moves the session key.
        #expect(await eventually { await replies.delivery.sessionKey == "home" })
        let receipt = await replies.delivery.deliver("what time is it", source: .pushToTalk)
        #expect(receipt.outcome == .sent(route: .chatSend))
        let lastReply = LastReplyStore(directory: state)
        _ = await eventually { (try? lastReply.load()) != nil }
        #expect(try lastReply.load()?.text == "It is noon.")
        let calls = await gateway.observedEvents.compactMap { event -> (String, WireJSON?)? in
            if case .operatorCall(_, let method, let params) = event { return (method, params) }
            return nil
        }
        #expect(calls.first { $0.0 == "chat.send" }?.1?["sessionKey"] == "home")
        #expect(calls.filter { $0.0 == "talk.speak" }.map { $0.1?["text"] } == ["It is noon."])
        serviceTask.cancel()
        await serviceTask.value
    }
}
