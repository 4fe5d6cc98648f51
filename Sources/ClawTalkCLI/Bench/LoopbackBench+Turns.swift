import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSpeech
import ClawTalkTalk
import Foundation
import Synchronization

extension LoopbackBench {
    /// First and last sample above −40 dBFS (benchmark.md §2 truth events on clean speech).
    static func speechBounds(_ samples: [Int16]) -> (start: Int, end: Int)? {
        let level = OnsetDetector.minus40dBFS
        guard let first = samples.firstIndex(where: { Int($0.magnitude) >= level }),
            let last = samples.lastIndex(where: { Int($0.magnitude) >= level })
        else { return nil }
        return (first, last + 1)
    }

    /// End-of-utterance latency: `utterance` injected into `ct_mic`, the node's front-end speech
    /// decisions fed to push-to-talk's ``SilenceDetector`` (`window`); eou.detected is the arrival
    /// of the frame that ends the utterance, truth.speechEnd the last sample above −40 dBFS.
    func endOfUtterance(
        utterance: [Int16], window: Duration, transcriber: any Transcriber, probes: Int
    ) async throws -> [BenchMetric] {
        let windowMs = BenchClock.ms(window)
        let condition = "\(rig.server): front-end VAD → push-to-talk silence window \(Int(windowMs)) ms"
        guard let bounds = Self.speechBounds(utterance) else {
            return [.unmeasured("eou.latency", condition: condition, unit: "ms", reason: "silent utterance")]
        }
        let node = try BenchNode(source: LoopbackRig.micSource, sink: LoopbackRig.speaker)
        defer { node.close() }
        try await Task.sleep(for: .milliseconds(500))
        var latencies: [Double] = []
        var finalize: [Double] = []
        for _ in 0..<probes {
            let ended = Mutex<ContinuousClock.Instant?>(nil)
            let detector = Mutex((SilenceDetector(window: window), 0.0))
            let heard = Mutex<[Int16]>([])
            node.observe { frame, now in
                if ended.withLock({ $0 }) == nil { heard.withLock { $0 += frame.clean } }
                detector.withLock { state in
                    let frameSeconds = Double(frame.aec.count) / 16_000
                    state.1 += frameSeconds
                    let record = UtteranceFrame(time: state.1, isSpeech: frame.isSpeech, rms: frame.rms)
                    if state.0.ends(with: record) { ended.withLock { $0 = $0 ?? now } }
                }
            }
            let start = await inject(utterance)
            let deadline = ContinuousClock.now + .seconds(3)
            while ended.withLock({ $0 }) == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            node.unobserve()
            if let start, let end = ended.withLock({ $0 }) {
                let speechEnd = start + BenchClock.duration(samples: bounds.end)
                latencies.append(BenchClock.ms(end - speechEnd))
                events.record("truth.speechEnd", at: speechEnd, clip: "eou")
                events.record("eou.detected", at: end, clip: "eou")
                let audio = PCMBuffer(format: .speech, samples: heard.withLock { $0 })
                let begun = ContinuousClock.now
                if (try? await transcriber.transcribe(audio)) != nil {
                    let final = ContinuousClock.now
                    finalize.append(BenchClock.ms(final - begun))
                    events.record("stt.final", at: final, clip: "eou", data: ["engine": transcriber.name])
                }
            }
            try await pause(0.3, 0.6)
        }
        progress("bench loopback: end of utterance: \(latencies.count)/\(probes)\n")
        return [
            .latency(
                "eou.latency", condition: condition, samples: latencies, goal: .endOfUtterance(windowMs: windowMs),
                reason: latencies.count < probes ? "\(probes - latencies.count) utterances never ended" : nil),
            .latency(
                "stt.finalize", condition: "\(transcriber.name) in process: transcript of the captured utterance",
                samples: finalize,
                reason: "transcription time from the end of utterance (the bench starts it when it sees the end)"),
        ]
    }

    /// What stops the reply in a barge-in probe.
    enum BargeInRule: String, Sendable {
        /// The first front-end speech frame (the raw voice detector).
        case voiceActivity
        /// Talk mode's onset rule (``TalkOnsetMonitor``): 0.15 s of speech standing out from
        /// the residual echo, after the 0.5 s hold-off.
        case talkOnset
    }

    /// Barge-in latency: the node plays `reply` to `ct_spk`; 0.8–1.5 s in, `utterance` goes
    /// into `ct_mic`; the first detection (`rule`) after that stops playback. Latency =
    /// playback.lastWrite − truth.speechStart. With `echo` the speaker is mixed into the mic
    /// and the front end runs `echoCancellation`; detections before the injection count as
    /// false barge-ins (they would have stopped the reply).
    func bargeIn(
        reply: [Int16], utterance: [Int16], echo: Bool, frontEnd settings: FrontEndSettings, probes: Int,
        rule: BargeInRule = .voiceActivity
    ) async throws -> [BenchMetric] {
        let processing =
            settings.echoCancellation == .off
            ? (settings.outputIsolated ? "no AEC, output isolated" : "no AEC (half-duplex)")
            : "AEC \(settings.echoCancellation)"
        let path = (echo ? "echo path, " : "no echo path, ") + processing
        let detection =
            switch rule {
            case .voiceActivity: "front-end VAD onset → PlaybackController.stop (no Talk loop)"
            case .talkOnset: "Talk onset rule (no Whisper confirmation) → PlaybackController.stop"
            }
        let condition = "\(rig.server), \(path): \(detection)"
        guard let bounds = Self.speechBounds(utterance) else {
            return [.unmeasured("bargein.latency", condition: condition, unit: "ms", reason: "silent utterance")]
        }
        if echo { try rig.enableEcho() } else { rig.disableEcho() }
        defer { rig.disableEcho() }
        let node = try BenchNode(source: LoopbackRig.micSource, sink: LoopbackRig.speaker, frontEnd: settings)
        defer { node.close() }
        try await Task.sleep(for: .milliseconds(500))
        var latencies: [Double] = []
        var falseBargeIns = 0
        var playedSeconds = 0.0
        for _ in 0..<probes {
            let injectedAt = Mutex<ContinuousClock.Instant?>(nil)
            let early = Mutex(false)
            let stoppedByVAD = Mutex(false)
            let playback = node.playback
            let onsets = rule == .talkOnset ? TalkOnsetMonitor() : nil
            node.observe { frame, now in
                let detected = onsets.map { $0.feed(frame) } ?? frame.isSpeech
                guard detected else { return }
                if let earliest = injectedAt.withLock({ $0 }), now >= earliest {
                    stoppedByVAD.withLock { $0 = true }
                    playback.stop()
                } else {
                    early.withLock { $0 = true }
                }
            }
            let playing = Task {
                await playback.play(.pcm(PCMBuffer(format: .speech, samples: reply), kind: .speech))
            }
            try await pause(0.6, 1.2)
            // Speech frames before the user's speech can have reached the mic are echo.
            injectedAt.withLock { $0 = .now + BenchClock.duration(samples: bounds.start) }
            let start = await inject(utterance)
            // Not stopped within 0.5 s after the utterance: stop it here (and do not count it).
            let deadline = ContinuousClock.now + .milliseconds(500)
            while !stoppedByVAD.withLock({ $0 }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            node.unobserve()
            let byVAD = stoppedByVAD.withLock { $0 }
            if !byVAD { playback.stop() }
            let outcome = await playing.value
            playedSeconds += outcome.playedSeconds
            if early.withLock({ $0 }) { falseBargeIns += 1 }
            if byVAD, let start, case .interrupted = outcome, let last = outcome.timing?.lastWriteAt {
                let speechStart = start + BenchClock.duration(samples: bounds.start)
                latencies.append(BenchClock.ms(last - speechStart))
                events.record("truth.speechStart", at: speechStart, clip: "bargein", data: ["path": path])
                events.record("playback.lastWrite", at: last, clip: "bargein", data: ["path": path])
            }
            try await pause(0.2, 0.4)
        }
        progress("bench loopback: barge-in (\(path)): \(latencies.count)/\(probes)\n")
        var metrics: [BenchMetric] = [
            .latency(
                "bargein.latency", condition: condition, samples: latencies, goal: .bargeIn,
                reason: latencies.count < probes ? "\(probes - latencies.count) of \(probes) replies not stopped" : nil)
        ]
        if echo {
            let hours = playedSeconds / 3600
            var rate = BenchMetric.value(
                "bargein.false_rate", condition: condition, unit: "per_hour",
                value: hours > 0 ? Double(falseBargeIns) / hours : 0, n: probes, goal: .selfTrigger,
                reason: "speech frames from the reply's own echo before the user spoke")
            rate.count = falseBargeIns
            rate.exposure = BenchMetric.rounded(hours)
            rate.exposureUnit = "h"
            metrics.append(rate)
        }
        return metrics
    }
}
