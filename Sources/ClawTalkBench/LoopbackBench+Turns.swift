import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import Foundation
import Synchronization

extension LoopbackBench {
    /// First and last sample above −40 dBFS (benchmarks.md §2 truth events on clean speech).
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
                if ended.locked({ $0 }) == nil { heard.locked { $0 += frame.clean } }
                detector.locked { state in
                    let frameSeconds = Double(frame.aec.count) / 16_000
                    state.1 += frameSeconds
                    let record = UtteranceFrame(time: state.1, isSpeech: frame.isSpeech, rms: frame.rms)
                    if state.0.ends(with: record) { ended.locked { $0 = $0 ?? now } }
                }
            }
            let start = await inject(utterance)
            let deadline = ContinuousClock.now + .seconds(3)
            while ended.locked({ $0 }) == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            node.unobserve()
            if let start, let end = ended.locked({ $0 }) {
                let speechEnd = start + BenchClock.duration(samples: bounds.end)
                latencies.append(BenchClock.ms(end - speechEnd))
                events.record("truth.speechEnd", at: speechEnd, clip: "eou")
                events.record("eou.detected", at: end, clip: "eou")
                let audio = PCMBuffer(format: .speech, samples: heard.locked { $0 })
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
}
