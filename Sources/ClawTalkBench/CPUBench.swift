import ClawTalkAudio
import ClawTalkDevices
import ClawTalkNode
import ClawTalkSpeech
import ClawTalkTalk
import Foundation

/// `bench cpu` (benchmarks.md §3 CPU, Memory): file mode, 20 ms blocks as fast as possible
/// through the service's front end (AEC, VAD) and wake pipeline (``TwoStageWakeDetector``), CPU
/// seconds of this process over audio seconds. *Idle*: low pink noise and silence while
/// listening for the wake word. *Active*: speech clips through the same path, each also
/// transcribed (PocketSphinx, in process) and answered with espeak-ng synthesis.
struct CPUBench {
    let spotter: KeywordSpotter
    let synthesizer: EspeakSynthesizer
    let progress: (String) -> Void

    /// Idle RTF over `seconds` of audio (half silence, half pink noise at −55 dBFS).
    func idle(seconds: Double, seed: UInt64) async throws -> BenchMetric {
        let detector = TwoStageWakeDetector(engine: spotter, verifier: nil)
        let frontEnd = try AudioFrontEnd()
        var noise = PinkNoise(seed: seed)
        let blocks = Int(seconds * 50)
        // Generated up front so the generator's time is not counted.
        let gain = 32_768 * pow(10, -55.0 / 20) / 1.2
        let noisy = noise.samples(blocks / 2 * 320).map { Int16(max(-32_768, min(32_767, $0 * gain))) }
        let silence = [Int16](repeating: 0, count: 320)
        let start = ResourceUsage.cpuSeconds()
        for index in 0..<blocks {
            let block =
                index < blocks / 2 ? silence : Array(noisy[(index - blocks / 2) * 320..<(index - blocks / 2 + 1) * 320])
            let frame = try frontEnd.process(
                CapturedFrame(samples: block, timestampNanoseconds: UInt64(index) * 20_000_000, sequence: UInt64(index))
            )
            _ = try await detector.process(frame.aec)
        }
        let cpu = ResourceUsage.cpuSeconds() - start
        let audio = Double(blocks) / 50
        progress("bench cpu: idle \(Int(audio)) s of audio in \(String(format: "%.2f", cpu)) CPU s\n")
        return .value(
            "cpu.rtf.idle",
            condition: "file mode: front end (AEC, VAD) + wake (\(engines)), silence and −55 dBFS pink noise",
            unit: "rtf", value: cpu / audio, n: blocks, goal: .idleCPU,
            reason: "\(BenchMetric.rounded(audio)) s of audio; capture reads not included")
    }

    /// Active RTF over `clips` (speech): front end + wake + PocketSphinx transcription + one
    /// espeak-ng reply per clip.
    func active(clips: [[Int16]]) async throws -> BenchMetric {
        let detector = TwoStageWakeDetector(engine: spotter, verifier: nil)
        let frontEnd = try AudioFrontEnd()
        let transcriber = PocketSphinxTranscriber()
        try await transcriber.prepare()
        var audio = 0.0
        let start = ResourceUsage.cpuSeconds()
        var sequence: UInt64 = 0
        for clip in clips {
            var cleaned: [Int16] = []
            var offset = 0
            while offset + 320 <= clip.count {
                let frame = try frontEnd.process(
                    CapturedFrame(
                        samples: Array(clip[offset..<offset + 320]), timestampNanoseconds: sequence * 20_000_000,
                        sequence: sequence))
                _ = try await detector.process(frame.aec)
                cleaned += frame.clean
                offset += 320
                sequence += 1
            }
            audio += Double(offset) / 16_000
            _ = try await transcriber.transcribe(PCMBuffer(format: .speech, samples: cleaned))
            _ = try await synthesizer.synthesize("Here is the answer to your question.", voice: "en-us", rateWPM: 175)
        }
        let cpu = ResourceUsage.cpuSeconds() - start
        progress("bench cpu: active \(Int(audio)) s of speech in \(String(format: "%.2f", cpu)) CPU s\n")
        return .value(
            "cpu.rtf.active",
            condition: "file mode: front end + wake (\(engines)) + PocketSphinx STT + espeak-ng reply per clip",
            unit: "rtf", value: audio > 0 ? cpu / audio : 0, n: clips.count,
            reason: "\(BenchMetric.rounded(audio)) s of speech; Whisper (a separate server process) not included")
    }

    /// Peak and current RSS now.
    static func memory() -> [BenchMetric] {
        var metrics = [
            BenchMetric.value(
                "memory.rss.peak", condition: "this bench process (ru_maxrss)", unit: "MiB",
                value: ResourceUsage.peakRSSMiB())
        ]
        if let current = ResourceUsage.currentRSSMiB() {
            metrics.append(
                .value(
                    "memory.rss.steady", condition: "this bench process after the CPU runs (VmRSS)", unit: "MiB",
                    value: current, reason: "not after 1 h of service: the run is shorter"))
        }
        return metrics
    }

    private var engines: String {
        var names: [String] = []
        if !spotter.plan.microWakeWord.isEmpty {
            names.append("microWakeWord \(spotter.plan.microWakeWord.joined(separator: ","))")
        }
        if !spotter.plan.pocketSphinx.isEmpty {
            names.append("PocketSphinx \(spotter.plan.pocketSphinx.joined(separator: ","))")
        }
        return names.joined(separator: "; ")
    }
}
