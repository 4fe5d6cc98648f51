import ClawTalkAudio
import ClawTalkCodecs
import ClawTalkDevices
import ClawTalkGateway
import ClawTalkNode
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Synchronization

/// TTS time to first audio (benchmarks.md §3) through the service's speech path: `say`'s
/// ``SayFlow`` (operator connection, ``SpeechOutput``, clip decoding, the playback controller on
/// `ct_spk`) against the test gateway answering `talk.speak` after a fixed delay with a PCM, MP3
/// or Ogg Opus clip; and node-only espeak-ng. playback.firstWrite comes from the controller,
/// tts.clipReceived from ``StampingDialer``, monitor.firstSample from a recording of
/// `ct_spk.monitor`.
struct SpeechLatencyBench {
    /// The reply spoken in every probe (short, so probes stay short).
    static let text = "Sure, done."
    /// `talk.speak` answers this long after the request (gateway time, never measured).
    static let gatewayDelayMs = 300

    let server: String
    let synthesizer: EspeakSynthesizer
    let scratch: URL
    let events: BenchEventLog
    let progress: (String) -> Void

    /// PCM, MP3 and Ogg Opus TTFA (two metrics each: sink hook and monitor) and espeak-ng TTFA.
    func run(probes: Int) async throws -> [BenchMetric] {
        let speech = try await synthesizer.synthesize(Self.text, voice: "en-us", rateWPM: 175)
        var metrics: [BenchMetric] = []
        let recorder = MonitorRecorder()
        try recorder.start()
        defer { recorder.stop() }
        for (label, clip) in try clips(speech) {
            let condition = "\(label) clip, talk.speak via the test gateway (\(Self.gatewayDelayMs) ms delay, excluded)"
            do {
                let (sink, monitor) = try await gatewayProbes(clip: clip, probes: probes, recorder: recorder)
                metrics.append(
                    .latency(
                        "tts.ttfa.gateway", condition: "\(condition): clipReceived → playback.firstWrite",
                        samples: sink, goal: label == "PCM" ? .timeToFirstAudio : nil))
                metrics.append(
                    .latency(
                        "tts.ttfa.gateway.monitor", condition: "\(condition): clipReceived → ct_spk.monitor",
                        samples: monitor))
                progress("bench loopback: TTFA \(label): \(sink.count)/\(probes)\n")
            } catch {
                metrics.append(.unmeasured("tts.ttfa.gateway", condition: condition, unit: "ms", reason: "\(error)"))
            }
        }
        let (sink, monitor) = try await espeakProbes(probes: probes, recorder: recorder)
        let condition = "espeak-ng on the node (warm engine)"
        metrics.append(
            .latency(
                "tts.ttfa.espeak", condition: "\(condition): textReady → playback.firstWrite", samples: sink,
                goal: .timeToFirstAudio))
        metrics.append(
            .latency("tts.ttfa.espeak.monitor", condition: "\(condition): textReady → ct_spk.monitor", samples: monitor)
        )
        progress("bench loopback: TTFA espeak-ng: \(sink.count)/\(probes)\n")
        return metrics
    }

    // MARK: - Probes

    private func gatewayProbes(clip: TestClip, probes: Int, recorder: MonitorRecorder) async throws
        -> ([Double], [Double])
    {
        var configuration = TestGatewayConfiguration()
        configuration.auth = .token("bench")
        configuration.autoApproveLoopback = true
        let gateway = TestGateway(configuration: configuration)
        await gateway.updateScript { $0.talkSpeak = .delayed(ms: Self.gatewayDelayMs, .clip(clip)) }
        let state = scratch.appendingPathComponent("state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        var settings = Settings()
        settings.gateway.url = "ws://127.0.0.1:18789"
        settings.gateway.token = "bench"
        let store = GatewayStore(directory: try StateDirectory(path: state.path))
        let dialer = StampingDialer(inner: gateway.dialer())
        let factory = GatewayConnectionFactory(
            settings: settings, identity: try DeviceIdentity.generate(), store: store, dialer: dialer,
            logger: .discarding, surface: NodeSurface(caps: [.talk], commands: [], permissions: [:]))
        guard let target = try GatewayTarget.resolve(settings: settings.gateway, store: store) else {
            throw BenchTool.Failure(description: "no gateway target")
        }
        let access = SayFlow.GatewayAccess(factory: factory, target: target)
        let playback = PlaybackController(sink: LoopbackRig.speaker)
        defer { playback.close() }
        let audio = TimingAudioOutput(controller: playback)
        var sink: [Double] = []
        var monitor: [Double] = []
        for _ in 0..<probes {
            let before = dialer.stamps.count
            let result = await SayFlow.speak(
                Self.text, directive: nil, settings: settings, gateway: access, audio: audio, local: nil,
                logger: .discarding, notice: { _ in })
            guard result.engines == [.talkSpeak], let received = dialer.stamps.first(after: before),
                let first = audio.timings.locked({ $0.last })?.firstWriteAt
            else { continue }
            sink.append(BenchClock.ms(first - received))
            events.record("tts.clipReceived", at: received, clip: "tts", data: ["format": clip.outputFormat ?? "?"])
            events.record("playback.firstWrite", at: first, clip: "tts", data: ["format": clip.outputFormat ?? "?"])
            try await Task.sleep(for: .milliseconds(300))
            if let heard = recorder.firstOnset(after: received) {
                monitor.append(BenchClock.ms(heard - received))
                events.record("monitor.firstSample", at: heard, clip: "tts", data: ["format": clip.outputFormat ?? "?"])
            }
        }
        return (sink, monitor)
    }

    private func espeakProbes(probes: Int, recorder: MonitorRecorder) async throws -> ([Double], [Double]) {
        let playback = PlaybackController(sink: LoopbackRig.speaker)
        defer { playback.close() }
        let audio = TimingAudioOutput(controller: playback)
        let output = SpeechOutput(audio: audio, local: synthesizer)
        var sink: [Double] = []
        var monitor: [Double] = []
        for _ in 0..<probes {
            let ready = ContinuousClock.now
            let result = await output.speak(Self.text)
            guard result.engines == [.espeak], let first = audio.timings.locked({ $0.last })?.firstWriteAt else {
                continue
            }
            sink.append(BenchClock.ms(first - ready))
            events.record("tts.textReady", at: ready, clip: "tts", data: ["engine": "espeak-ng"])
            events.record("playback.firstWrite", at: first, clip: "tts", data: ["engine": "espeak-ng"])
            try await Task.sleep(for: .milliseconds(300))
            if let heard = recorder.firstOnset(after: ready) {
                monitor.append(BenchClock.ms(heard - ready))
                events.record("monitor.firstSample", at: heard, clip: "tts", data: ["engine": "espeak-ng"])
            }
        }
        return (sink, monitor)
    }

    // MARK: - Clips

    /// The reply as a `pcm_24000`, MP3 (`lame`) and Ogg Opus (`opusenc`) clip.
    private func clips(_ speech: PCMBuffer) throws -> [(String, TestClip)] {
        let pcm = try Resampler.resample(speech, to: 24_000)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pcm.samples.count * 2)
        for sample in pcm.samples {
            bytes.append(UInt8(truncatingIfNeeded: sample))
            bytes.append(UInt8(truncatingIfNeeded: sample >> 8))
        }
        var result = [
            ("PCM", TestClip(audio: bytes, provider: "bench", outputFormat: "pcm_24000", voiceCompatible: false))
        ]
        let wav = scratch.appendingPathComponent("reply.wav")
        try WAVFile.encode(speech).write(to: wav)
        let mp3 = scratch.appendingPathComponent("reply.mp3")
        let opus = scratch.appendingPathComponent("reply.opus")
        do {
            _ = try BenchTool.run("lame", ["--quiet", "-b", "128", wav.path, mp3.path])
            result.append(("MP3", TestClip.mp3(Array(try Data(contentsOf: mp3)))))
        } catch {
            progress("bench loopback: MP3 clip skipped: \(error)\n")
        }
        do {
            _ = try BenchTool.run("opusenc", ["--quiet", wav.path, opus.path])
            result.append(("Ogg Opus", TestClip.oggOpus(Array(try Data(contentsOf: opus)))))
        } catch {
            progress("bench loopback: Opus clip skipped: \(error)\n")
        }
        return result
    }
}
