import ClawTalkAudio
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

@testable import ClawTalkNode

/// Records what voice wake delivers (a protocol peer of `TranscriptDelivery`).
private actor RecordingDelivery: TranscriptDelivering {
    private(set) var delivered: [(text: String, source: TranscriptSource, trigger: String?)] = []

    func deliver(_ transcript: String, source: TranscriptSource) async -> DeliveryReceipt {
        await deliver(transcript, source: source, trigger: nil)
    }

    func deliver(_ transcript: String, source: TranscriptSource, trigger: String?) async -> DeliveryReceipt {
        delivered.append((transcript, source, trigger))
        return DeliveryReceipt(outcome: .sent(route: .voiceTranscript), id: "id-\(delivered.count)")
    }
}

/// ``VoiceWakeService`` in process: trigger lists (persisted, defaults, both gateway
/// connections through ``GatewayService`` and the test gateway), push-to-talk leases, and a
/// command from audio frames to delivery with real PocketSphinx engines.
@Suite("Voice wake service", .serialized, .timeLimit(.minutes(3)))
struct VoiceWakeServiceTests {
    static func store(_ home: TemporaryHome) throws -> GatewayStore {
        GatewayStore(directory: try StateDirectory(path: home.state + "/clawtalk"))
    }

    @Test func beforeAGatewayListThePersistedOneIsUsedElseTheDefaults() throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let store = try Self.store(home)
        let key = try store.register(try GatewayEndpoint.parse("ws://127.0.0.1:18789"))
        #expect(VoiceWakeService.fallbackTriggers(store: store, gatewayKey: key) == ["openclaw", "claude", "computer"])
        #expect(VoiceWakeService.fallbackTriggers(store: store, gatewayKey: nil) == ["openclaw", "claude", "computer"])
        try store.setVoiceWakeTriggers(["  jarvis ", "computer"], for: key)
        #expect(VoiceWakeService.fallbackTriggers(store: store, gatewayKey: key) == ["jarvis", "computer"])
    }

    /// What a running ``VoiceWakeService`` test sees: the service behind ``GatewayService`` and
    /// the test gateway, and its frames, delivery, log and events.
    private struct Harness {
        var wake: VoiceWakeService
        var gateway: TestGateway
        var url: String
        var store: GatewayStore
        var feed: AsyncStream<WakeAudioFrame>.Continuation
        var delivery: RecordingDelivery
        var log: RecordingLogSink
        var observed: ObservedWakeEvents
    }

    /// Runs `body` against a voice wake service (PocketSphinx stage 1, "computer" at any score)
    /// connected to a test gateway that lists "openclaw"; `server` verifies and transcribes when
    /// given, else PocketSphinx dictation.
    private static func withService(server: WyomingServerProcess?, _ body: (Harness) async throws -> Void)
        async throws
    {
        let home = try TemporaryHome()
        defer { home.remove() }
        var configuration = TestGatewayConfiguration()
        configuration.auth = .token("s3cret")
        configuration.autoApproveLoopback = true
        let gateway = TestGateway(configuration: configuration)
        let url = try await gateway.listen(tls: nil)
        defer { Task { await gateway.stopListening() } }
        await gateway.setVoiceWakeTriggers(["openclaw"])
        var settings = Settings()
        settings.gateway.url = url
        settings.gateway.token = "s3cret"
        settings.wake.engine = .pocketsphinx
        settings.wake.thresholds = ["computer": 1e-30]
        let store = try Self.store(home)
        let delivery = RecordingDelivery()
        let log = RecordingLogSink()
        let (frames, feed) = AsyncStream.makeStream(of: WakeAudioFrame.self, bufferingPolicy: .unbounded)
        let observed = ObservedWakeEvents()
        let wake = VoiceWakeService(
            settings: settings, environment: home.environment, store: store, delivery: delivery, gatewayKey: nil,
            logger: Logger(category: "test", minimumLevel: .debug, sink: log, logSensitive: true),
            parts: .init(
                transcriber: server.map { WyomingTranscriber(configuration: $0.transcriberConfiguration) }
                    ?? PocketSphinxTranscriber(),
                frames: { frames }, onEvent: { await observed.add($0) }))
        #expect(await wake.currentTriggers == ["openclaw", "claude", "computer"])
        let factory = GatewayConnectionFactory(
            settings: settings, identity: try DeviceIdentity.generate(), store: store, logger: .discarding)
        let service = GatewayService(
            factory: factory, statusFile: nil, logger: .discarding, reloadSignals: [], observer: wake)
        let wakeTask = Task { await wake.run() }
        let serviceTask = Task { await service.run() }
        defer {
            serviceTask.cancel()
            wakeTask.cancel()
            feed.finish()
        }
        // The node's connect snapshot / the operator's voicewake.get.
        try await Self.wait("gateway list applied") { await wake.controller?.triggers == ["openclaw"] }
        try await body(
            Harness(
                wake: wake, gateway: gateway, url: url, store: store, feed: feed, delivery: delivery, log: log,
                observed: observed))
    }

    @Test func gatewayListsApplyLiveAndLeasesSuspend() async throws {
        try await Self.withService(server: nil) { harness in
            let wake = harness.wake
            // voicewake.changed, live.
            await harness.gateway.setVoiceWakeTriggers(["openclaw", "computer"])
            try await Self.wait("changed list applied") { await wake.controller?.triggers == ["openclaw", "computer"] }
            let key = try GatewayEndpoint.parse(harness.url).gatewayKey
            #expect(try harness.store.voiceWakeTriggers(for: key) == ["openclaw", "computer"], "persisted per gateway")

            // The microphone's owner suspends and resumes the controller (push-to-talk).
            let controller = try #require(await wake.controller)
            let microphone = MicrophoneClaims(wake: wake)
            await microphone.pushToTalkBegan()
            #expect(await controller.state == .suspended)
            await microphone.pushToTalkEnded()
            #expect(await controller.state == .listening)
        }
    }

    /// The spoken command is delivered with the installed Whisper server as the verifier
    /// (PocketSphinx dictation as the verifier depends on its adaptation history: it hears
    /// "computers" now and then, which the trigger gate rightly rejects).
    @Test(.enabled(if: WakeWhisper.isInstalled, "needs the venv and the Whisper base model (scripts/setup)"))
    func aSpokenCommandIsDelivered() async throws {
        let server = try await WyomingServerProcess.start(WakeWhisper.configuration)
        defer { server.stop() }
        try await Self.withService(server: server) { harness in
            let wake = harness.wake
            await harness.gateway.setVoiceWakeTriggers(["openclaw", "computer"])
            try await Self.wait("changed list applied") { await wake.controller?.triggers == ["openclaw", "computer"] }
            let controller = try #require(await wake.controller)
            // "computer", a pause, the command.
            let directory = try TempDirectory(prefix: "wake-service")
            let path = try SpokenClip.wav(
                #"computer <break time="800ms"/> what time is it"#, padAfter: 3, in: directory)
            let samples = try WAVFile(data: Data(contentsOf: URL(fileURLWithPath: path))).pcm.samples
            var gate = EnergyGate()
            var start = 0
            while start < samples.count {
                let chunk = Array(samples[start..<min(start + 320, samples.count)])
                harness.feed.yield(WakeAudioFrame(wake: chunk, isSpeech: gate.process(chunk).isSpeech))
                start += 320
            }
            let wakeLog = {
                harness.log.records.filter { $0.event.hasPrefix("wake.") }.map { "\($0.event) \($0.fields)" }.joined(
                    separator: "\n")
            }
            do {
                try await Self.wait("delivered", timeout: .seconds(60)) { await !harness.delivery.delivered.isEmpty }
            } catch {
                let state = await controller.state
                Issue.record("\(error): state \(state)\n\(wakeLog())")
                return
            }
            let delivered = await harness.delivery.delivered
            #expect(delivered.count == 1)
            #expect(delivered.first?.source == .voiceWake)
            #expect(delivered.first?.trigger == "computer")
            let text = try #require(delivered.first?.text).lowercased()
            // Whisper's wording of espeak-ng speech varies (a busy machine once gave "what i'm in it"):
            // the command must be the spoken one (one of its words), not an exact transcription.
            let words = Set(text.split { !($0.isLetter || $0.isNumber) }.map(String.init))
            #expect(!words.isDisjoint(with: ["what", "time", "is", "it"]), "\(text)\n\(wakeLog())")
            #expect(!text.contains("computer"), "\(text)")
            // The hook `run` uses for desktop notifications saw the wake.
            #expect(
                await harness.observed.events.contains {
                    if case .accepted("computer", _) = $0 { true } else { false }
                })
        }
    }

    /// What `Parts.onEvent` was told.
    actor ObservedWakeEvents {
        var events: [VoiceWakeEvent] = []

        func add(_ event: VoiceWakeEvent) {
            events.append(event)
        }
    }

    static func wait(_ what: String, timeout: Duration = .seconds(30), _ condition: () async -> Bool) async throws {
        guard await eventually(within: timeout, condition) else { throw WaitTimedOut(what: what) }
    }
}

/// A condition that did not come true in time.
struct WaitTimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

extension VoiceWakeServiceTests {
    @Test func withoutAUsableEngineTheErrorIsLoggedAndTheServiceKeepsRunning() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        var settings = Settings()
        settings.wake.engine = .microwakeword
        var environment = home.environment
        environment["CLAWTALK_MODELS_DIR"] = home.root + "/no-models"
        let log = RecordingLogSink()
        let (frames, feed) = AsyncStream.makeStream(of: WakeAudioFrame.self)
        let wake = VoiceWakeService(
            settings: settings, environment: environment, store: try Self.store(home), delivery: RecordingDelivery(),
            gatewayKey: nil, logger: Logger(category: "test", sink: log),
            parts: .init(transcriber: PocketSphinxTranscriber(), frames: { frames }))
        let task = Task { await wake.run() }
        defer {
            task.cancel()
            feed.finish()
        }
        try await Self.wait("unavailable logged") { log.events.contains("wake.unavailable") }
        let record = try #require(log.records.first { $0.event == "wake.unavailable" })
        #expect(record.level == .error)
        #expect(record.fields["reason"]?.description.contains("wake.engine=microwakeword") == true)
        // Still running: the controller exists and a later list could use it.
        try await Self.wait("started") { log.events.contains("wake.started") }
        await wake.suspend()
        #expect(await wake.controller?.state == .suspended)
    }
}

extension VoiceWakeServiceTests {
    /// With one trigger, Whisper's right answer ("Computer.") equals the prompt; the speech-to-text
    /// echo filter drops it, the verifier must not (the detector has its own echo rule).
    @Test(.enabled(if: WakeWhisper.isInstalled, "needs the venv and the Whisper base model"))
    func theVerifierKeepsATranscriptThatEqualsTheSingleTriggerPrompt() async throws {
        let server = try await WyomingServerProcess.start(WakeWhisper.configuration)
        defer { server.stop() }
        let whisper = WyomingTranscriber(configuration: server.transcriberConfiguration)
        let directory = try TempDirectory(prefix: "wake-verifier")
        let path = try SpokenClip.wav("computer", padBefore: 0.5, padAfter: 0.5, in: directory)
        let clip = try WAVFile(data: Data(contentsOf: URL(fileURLWithPath: path))).pcm
        let plain = try await whisper.transcribe(
            clip, options: TranscriptionOptions(language: "en", prompt: ["computer"]))
        #expect(plain.discardedAsEcho, "speech-to-text drops it: \(plain)")
        let verifier = WakeDetectorFactory.verifier(transcriber: whisper, language: "en")
        let heard = try await verifier.transcribe(clip, "computer.")
        #expect(heard.text.lowercased().contains("computer"), "\(heard.text)")
    }
}

extension VoiceWakeServiceTests {
    /// A microphone closed because the service stops (its frames throw `CancellationError`) is
    /// no microphone fault: wake ends without `wake.microphone.unavailable` (it was logged at
    /// every stop that came while the microphone opened) and without waiting to retry.
    @Test func aMicrophoneClosedForTheStopEndsWakeWithoutAnError() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let log = RecordingLogSink()
        let wake = VoiceWakeService(
            settings: Settings(), environment: home.environment, store: try Self.store(home),
            delivery: RecordingDelivery(), gatewayKey: nil, logger: Logger(category: "test", sink: log),
            parts: .init(transcriber: PocketSphinxTranscriber(), frames: { throw CancellationError() }))
        await wake.run()
        #expect(!log.events.contains("wake.microphone.unavailable"), "\(log.events)")
        #expect(await wake.controller == nil, "no engine was loaded for a closed microphone")
    }
}
