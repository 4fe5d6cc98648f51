import ClawTalkAudio
import ClawTalkCodecs
import ClawTalkCommand
import ClawTalkDevices
import ClawTalkGateway
import ClawTalkNode
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import Foundation

/// One run of `bench loopback`, `bench cpu` or `bench all`: the shared pieces (espeak-ng, the
/// generated corpus, the scratch folder, progress on stderr) and each family's metrics. A
/// family that cannot run here (no sound server, no engine) yields its metrics with value nil
/// and the reason, never an error for the whole run.
final class BenchSession {
    struct Options {
        var quick: Bool
        var seed: UInt64
        var triggers: [String]
        var dataset: String?
        var cacheDirectory: String?
        /// Probes per latency metric instead of the suite's number.
        var probes: Int? = nil
        /// Seconds of audio for the self-trigger rate and idle CPU instead of the suite's.
        var exposureSeconds: Double? = nil
        /// Minutes of generated negative speech instead of the suite's (3 quick, 60 full).
        var negativeMinutes: Double? = nil
        /// Loopback metric name prefixes to measure (nil: all).
        var only: [String]? = nil
        /// Barge-in conditions to measure (nil: all, or the −6 dB echo path with `quick`).
        var bargeInConditions: [ServiceBargeInBench.Condition]? = nil
    }

    let options: Options
    let context: CommandContext
    let synthesizer = EspeakSynthesizer()
    let scratch: URL
    var machine = BenchMachine.current()
    var corpusHashes: [String] = []
    var roc: [WakeBenchReport.ROCPoint] = []
    /// Stamps of the loopback probes (`events.jsonl`).
    let events = BenchEventLog()
    /// The service's wake pipeline builder (models, runtime, pronunciations), loaded once.
    private var wakeFactory: WakeDetectorFactory?
    private let started = Date()
    /// The binary's commit, read at the start (``BenchTool/commit(executable:)``).
    private let commit = BenchTool.commit()

    init(options: Options, context: CommandContext) throws {
        self.options = options
        self.context = context
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "clawtalk-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    func progress(_ line: String) {
        context.io.writeError(line)
    }

    var triggers: [String] { VoiceWakeTriggers.normalize(options.triggers) }

    /// Probes per latency metric: 20 (smoke) in `--quick`, 200 otherwise (benchmarks.md §6).
    var probes: Int { options.probes ?? (options.quick ? 10 : 200) }

    /// Probes of the slower latency metrics (barge-in, TTS): 5 in `--quick`, 50 otherwise.
    var slowProbes: Int { options.probes ?? (options.quick ? 5 : 50) }

    // MARK: - Corpus

    /// The folder for generated speech: `--cache`, else `$XDG_CACHE_HOME/clawtalk/bench`.
    var cacheBase: URL {
        URL(
            fileURLWithPath: options.cacheDirectory
                ?? (context.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")) + "/clawtalk/bench")
    }

    /// The generated espeak-ng corpus (cached).
    func corpus() async throws -> WakeDataset {
        var size: SpeechCorpus.Size = options.quick ? .quick : .full
        if let minutes = options.negativeMinutes { size.negativeMinutes = minutes }
        let key = triggers.joined(separator: "_").replacingOccurrences(of: " ", with: "-")
        let directory = cacheBase.appendingPathComponent("\(options.quick ? "quick" : "full")-\(key)")
        let dataset = try await SpeechCorpus(
            directory: directory, triggers: triggers, size: size, synthesizer: synthesizer, progress: progress
        ).prepare()
        if !corpusHashes.contains(dataset.manifestSHA256) { corpusHashes.append(dataset.manifestSHA256) }
        return dataset
    }

    // MARK: - Families

    /// Wake accuracy and latency on the recordings (when present) and the generated speech.
    func wake() async -> [BenchMetric] {
        var metrics: [BenchMetric] = []
        let snrs: [Double] = options.quick ? [10] : [20, 10, 5, 0]
        let recordedPath = options.dataset ?? "../shared/data/wakeword"
        do {
            if var recorded = try WakeDataset.load(directory: URL(fileURLWithPath: recordedPath)) {
                recorded = recorded.limited(to: options.quick ? 8 : nil)
                corpusHashes.append(recorded.manifestSHA256)
                let suite = WakeBenchSuite(
                    source: "recorded", dataset: recorded, triggers: triggers, snrs: snrs,
                    sweepPoints: options.quick ? 3 : nil, seed: options.seed)
                let result = try await suite.run(context: context, progress: progress)
                metrics += result.metrics
                roc += result.roc
            } else {
                progress("bench: recorded wake words skipped: no \(WakeDataset.manifestName) in \(recordedPath)\n")
                metrics.append(
                    .unmeasured(
                        "wake.frr", condition: "recorded", unit: "ratio",
                        reason: "no recordings at \(recordedPath) (benchmarks.md §4.1: skipped with a notice)"))
            }
        } catch {
            metrics.append(.unmeasured("wake.frr", condition: "recorded", unit: "ratio", reason: "\(error)"))
        }
        do {
            let suite = WakeBenchSuite(
                source: "espeak", dataset: try await corpus(), triggers: triggers, snrs: snrs,
                sweepPoints: options.quick ? 3 : nil, seed: options.seed)
            let result = try await suite.run(context: context, progress: progress)
            metrics += result.metrics
            roc += result.roc
        } catch {
            metrics.append(.unmeasured("wake.frr", condition: "espeak", unit: "ratio", reason: "\(error)"))
        }
        return metrics
    }

    /// CPU real-time factors and memory.
    func cpu() async -> [BenchMetric] {
        var metrics: [BenchMetric] = []
        do {
            let bench = CPUBench(spotter: try spotter(), synthesizer: synthesizer, progress: progress)
            metrics.append(
                try await bench.idle(
                    seconds: options.exposureSeconds ?? (options.quick ? 60 : 3600), seed: options.seed))
            let dataset = try await corpus()
            let speech = dataset.entries.filter { $0.path.hasPrefix("negative/text-") }.prefix(options.quick ? 1 : 60)
            let clips = try speech.map { entry in
                try WAVFile.decode(Data(contentsOf: dataset.directory.appendingPathComponent(entry.path))).samples
            }
            metrics.append(try await bench.active(clips: clips))
        } catch {
            metrics.append(.unmeasured("cpu.rtf.idle", condition: "file mode", unit: "rtf", reason: "\(error)"))
        }
        return metrics + CPUBench.memory()
    }

    /// The service's stage-1 wake engines for the session's triggers (engine `auto`, configured
    /// thresholds; microWakeWord where a model exists).
    func spotter() throws -> sending KeywordSpotter {
        if wakeFactory == nil {
            let thresholds = try ConfigLoader(environment: context.environment).load().settings.wake.thresholds
            wakeFactory = try WakeDetectorFactory.load(
                selection: .auto, thresholds: thresholds, environment: context.environment
            ) { context.io.writeError("bench: \($0)\n") }
        }
        return try wakeFactory!.spotter(triggers: triggers)
    }

    /// `seconds` of espeak-ng reading the shipped licence texts (16 kHz), trigger words left out.
    func readText(seconds: Double) async throws -> [Int16] {
        let words = try SpeechCorpus.texts().flatMap { $0.1.split(whereSeparator: \.isWhitespace) }
        // Read in 200-word pieces until the audio lasts `seconds` (espeak-ng's pace on these
        // texts is not exactly its nominal rate: a word count fell 7 s short of an hour).
        let wanted = Int(seconds * Double(AudioFormat.speech.sampleRate))
        var samples: [Int16] = []
        var start = 0
        while samples.count < wanted, start < words.count {
            let end = min(start + 200, words.count)
            samples += try await speech(words[start..<end].joined(separator: " "))
            start = end
        }
        return Array(samples.prefix(wanted))
    }

    /// Everything measured on the loopback rig.
    /// `bench service`: the real `clawtalk run` (``ServiceBench``).
    func service(silenceSeconds: Double, speechSeconds: Double) async -> [BenchMetric] {
        do {
            // Ten minutes of read text loop for longer runs.
            let speech = try await readText(seconds: min(speechSeconds, 600))
            let command = try await self.speech("computer, what time is it?")
            let bench = ServiceBench(
                silenceSeconds: silenceSeconds, speechSeconds: speechSeconds, speech: speech, command: command,
                environment: context.environment, scratch: scratch, progress: progress)
            return try await bench.run()
        } catch {
            return ["service.cpu.idle", "service.cpu.speech", "service.rss.node"].map {
                .unmeasured($0, condition: "clawtalk run", unit: "", reason: "\(error)")
            }
        }
    }

    /// `bench soak`: the real `clawtalk run` with faults (``SoakBench``).
    func soak(minutes: Double, faults: [SoakFault], keepLog: URL?) async -> [BenchMetric] {
        do {
            var phrases: [(keyword: String, command: [Int16], question: [Int16])] = []
            // The trigger, a pause (as people say it), the question.
            let trigger = try await speech("computer") + [Int16](repeating: 0, count: 9_600)
            for (keyword, sentence) in SoakBench.phrases {
                let question = try await speech(sentence)
                phrases.append((keyword, trigger + question, question))
            }
            var bench = SoakBench(
                minutes: minutes, phrases: phrases, environment: context.environment, scratch: scratch,
                progress: progress)
            bench.faults = faults
            bench.keepLog = keepLog
            return try await bench.run()
        } catch {
            return [.unmeasured("soak.crashes", condition: "clawtalk run", unit: "crashes", reason: "\(error)")]
        }
    }

    func loopback() async -> [BenchMetric] {
        let rig: LoopbackRig
        do {
            rig = try LoopbackRig()
        } catch {
            progress("bench loopback: skipped: \(error)\n")
            let reason = "no sound server (start one with scripts/audio-rig): \(error)"
            return Self.loopbackNames.map { .unmeasured($0.0, condition: "loopback", unit: $0.1, reason: reason) }
        }
        defer { rig.close() }
        machine.soundServer = rig.server
        await rig.warmUp()
        var metrics: [BenchMetric] = []
        let bench = LoopbackBench(rig: rig, seed: options.seed, events: events, progress: progress)
        let blocks = options.quick ? [10, 20, 30] : [10, 20, 30, 60]
        for block in blocks {
            metrics.append(
                await measure("capture.latency", "block \(block) ms") {
                    [try await bench.captureLatency(blockMilliseconds: block, probes: self.probes)]
                })
        }
        metrics.append(
            await measure("playback.latency", "loopback") { [try await bench.playbackLatency(probes: self.probes)] })
        let window = Duration.milliseconds(Settings().talk.silenceTimeoutMs)
        metrics += await measureAll("eou.latency") {
            let utterance = try await self.speech("What time is it?")
            let transcriber = PocketSphinxTranscriber()
            try await transcriber.prepare()
            return try await bench.endOfUtterance(
                utterance: utterance, window: window, transcriber: transcriber, probes: self.probes)
        }
        metrics += await measureAll("bargein") {
            // Barge-in as `clawtalk run` does it in Talk mode (its own private rig and gateway).
            let question = try await self.speech("Tell me a story about the sea.")
            let interruption = try await self.speech("Wait, what is the weather tomorrow?")
            let hey = try await self.speech("Hey there.")
            let start = LoopbackBench.speechBounds(hey)?.start ?? 0
            let sound = Array(hey[start..<min(start + 3_520, hey.count)]) + [Int16](repeating: 0, count: 3_200)
            let quick = self.options.quick
            let probes = self.slowProbes
            return await ServiceBargeInBench(
                conditions: self.options.bargeInConditions
                    ?? (quick ? [.echoMinus6] : ServiceBargeInBench.Condition.allCases), probes: probes,
                sounds: max(1, probes / 3),
                quietMinutes: (self.options.exposureSeconds ?? (quick ? 0 : 3660)) / 60,
                clips: .init(question: question, interruption: interruption, sound: sound),
                reply: ServiceBargeInBench.story, environment: self.context.environment, scratch: self.scratch,
                progress: self.progress
            ).run()
        }
        metrics += await measureAll("realtime") {
            // Realtime Talk over the relay as `clawtalk run` does it (its own private rig and gateway).
            let interruption = try await self.speech("Wait, what is the weather tomorrow?")
            let spoken = try Resampler.resample(
                try await self.synthesizer.synthesize(ServiceBargeInBench.story, voice: "en-us", rateWPM: 175),
                to: 24_000
            ).samples
            let first = spoken.firstIndex { Int($0.magnitude) >= OnsetDetector.minus40dBFS } ?? 0
            return await RealtimeBench(
                probes: self.slowProbes,
                quietMinutes: (self.options.exposureSeconds ?? (self.options.quick ? 0 : 1860)) / 60,
                interruption: interruption, reply: Array(spoken[first...]), environment: self.context.environment,
                scratch: self.scratch, progress: self.progress
            ).run()
        }
        metrics += await measureAll("tts.ttfa.gateway") {
            try await SpeechLatencyBench(
                server: rig.server, synthesizer: self.synthesizer, scratch: self.scratch, events: self.events,
                progress: self.progress
            ).run(probes: self.slowProbes)
        }
        metrics += await measureAll("wake.chime") {
            let trigger = self.triggers.first { $0.lowercased() == "computer" } ?? self.triggers[0]
            let phrase = try await self.speech(trigger, voice: "en-us+klatt3", rate: 160)
            return try await bench.wakeAndChime(
                phrase: phrase, trigger: trigger,
                detector: TwoStageWakeDetector(engine: try self.spotter(), verifier: nil),
                probes: self.slowProbes)
        }
        metrics.append(
            .unmeasured(
                "wake.lost_onset", condition: "loopback", unit: "words",
                reason: "not measured: needs the service's wake → command capture (voice wake in run)"))
        metrics.append(
            .unmeasured(
                "turn.overhead", condition: "loopback", unit: "ms",
                reason:
                    "not measured: needs a whole service turn; eou.latency, stt.finalize and tts.ttfa.* are its parts"))
        metrics += await measureAll("wake.self_trigger") {
            // A minute over the hour the goal needs, so that what is heard is at least an hour.
            let exposure = self.options.exposureSeconds ?? (self.options.quick ? 30 : 3660)
            let reply = try await self.readText(seconds: exposure)
            var result: [BenchMetric] = []
            let settings = try ConfigLoader(environment: self.context.environment).load().settings
            // As `run` wakes: the keyword scorer (started here if none answers) takes the triggers
            // without a model, unverified; other stage-1 hits are verified by Whisper when the
            // Wyoming server answers.
            let scorer = await BenchWakeScorer.prepare(
                wake: settings.wake, selection: .auto, thresholds: settings.wake.thresholds,
                environment: self.context.environment
            ) { self.progress("bench: \($0)\n") }
            var factory = try WakeDetectorFactory.load(
                selection: .auto, thresholds: settings.wake.thresholds, environment: self.context.environment
            ) { self.progress("bench: \($0)\n") }
            factory.scorer = scorer.configuration
            // The goal is for the echo path with AEC, which the service listens to while it speaks;
            // without AEC the service does not listen while it speaks (half-duplex), so that
            // condition is a shorter look at the engines alone (at most 10 minutes).
            let conditions = [
                (FrontEndSettings(stages: ProcessingSettings(echoCancellation: .off)), min(exposure, 600)),
                (FrontEndSettings(), exposure),
            ]
            do {
                for (frontEnd, seconds) in conditions {
                    let verifier = try? await WakeDetectorFactory.wyomingVerifier(
                        stt: settings.stt, paths: XDGPaths(environment: self.context.environment),
                        option: "self-trigger")
                    if verifier == nil {
                        self.progress("bench: self-trigger without the Whisper verifier (no server)\n")
                    }
                    result += try await bench.selfTrigger(
                        reply: Array(reply.prefix(Int(seconds * 16_000))),
                        detector: try factory.detector(triggers: self.triggers, verifier: verifier),
                        verified: verifier != nil, frontEnd: frontEnd)
                }
            } catch {
                await scorer.stop()
                throw error
            }
            await scorer.stop()
            return result
        }
        return metrics
    }

    /// Metric names and units of each family, for a skipped family.
    static let familyNames: [String: [(String, String)]] = [
        "wake": [("wake.latency", "ms"), ("wake.frr", "ratio"), ("wake.fa_per_hour", "per_hour")],
        "loopback": loopbackNames,
        "cpu": [("cpu.rtf.idle", "rtf"), ("cpu.rtf.active", "rtf"), ("memory.rss.peak", "MiB")],
        "turn": TurnBench.names,
    ]

    /// A family's metrics, not measured for `reason`.
    static func skipped(_ family: String, reason: String) -> [BenchMetric] {
        (familyNames[family] ?? []).map { .unmeasured($0.0, condition: family, unit: $0.1, reason: reason) }
    }

    /// Loopback metric names and units, for the skipped case.
    static let loopbackNames = [
        ("capture.latency", "ms"), ("playback.latency", "ms"), ("eou.latency", "ms"), ("stt.finalize", "ms"),
        ("bargein.pause", "ms"), ("bargein.stop", "ms"), ("bargein.resume_gap", "ms"),
        ("bargein.false_pauses_per_hour", "per_hour"),
        ("realtime.reply_audio", "ms"), ("realtime.bargein", "ms"), ("realtime.bargein.cancel", "ms"),
        ("realtime.false_cancels_per_hour", "per_hour"), ("realtime.false_pauses_per_hour", "per_hour"),
        ("tts.ttfa.gateway", "ms"), ("tts.ttfa.espeak", "ms"), ("wake.chime", "ms"), ("wake.self_trigger", "per_hour"),
    ]

    /// 16 kHz espeak-ng speech with 0.2 s of silence on both sides.
    func speech(_ text: String, voice: String = "en-us", rate: Int = 175) async throws -> [Int16] {
        let pcm = try Resampler.resample(
            try await synthesizer.synthesize(text, voice: voice, rateWPM: rate), to: AudioFormat.speech.sampleRate)
        let pad = [Int16](repeating: 0, count: 3_200)
        return pad + pcm.samples + pad
    }

    private func measure(_ name: String, _ condition: String, _ body: () async throws -> [BenchMetric]) async
        -> BenchMetric
    {
        await measureAll(name, condition: condition, body).first
            ?? .unmeasured(name, condition: condition, unit: "ms", reason: "no result")
    }

    private func measureAll(
        _ name: String, condition: String = "loopback", _ body: () async throws -> [BenchMetric]
    ) async -> [BenchMetric] {
        if let only = options.only, !only.contains(where: { name.hasPrefix($0) }) {
            return [.unmeasured(name, condition: condition, unit: "", reason: "not selected (--only)")]
        }
        do {
            return try await body()
        } catch {
            progress("bench: \(name) failed: \(error)\n")
            return [.unmeasured(name, condition: condition, unit: "ms", reason: "\(error)")]
        }
    }

    // MARK: - Report

    func report(metrics: [BenchMetric]) -> BenchReport {
        let formatter = ISO8601DateFormatter()
        var config = [
            "frame": "20 ms", "silence window": "\(Settings().talk.silenceTimeoutMs) ms",
            "gateway talk.speak delay": "\(SpeechLatencyBench.gatewayDelayMs) ms (excluded)",
            "triggers": triggers.joined(separator: ", "), "seed": "\(options.seed)",
        ]
        config["probes per latency metric"] = "\(probes)"
        config["requested latencies"] =
            "node playback target \(PlaybackSettings().targetLatencyMilliseconds) ms (10 ms writes), "
            + "harness playback target 20 ms, capture reads of one block, null-sink keep-alive 20 ms"
        let hash =
            corpusHashes.isEmpty
            ? nil
            : SHA256.hash(Array(corpusHashes.joined(separator: "\n").utf8)).map { String(format: "%02x", $0) }
                .joined()
        return BenchReport(
            suite: options.quick ? "quick" : "full", startedAt: formatter.string(from: started), machine: machine,
            commit: commit, corpus: hash, config: config, metrics: metrics, roc: roc)
    }

    /// Writes report.json, report.md, report.svg, roc.csv and (when there are any) events.jsonl
    /// into `directory`.
    static func write(_ report: BenchReport, events: BenchEventLog, to directory: String) throws -> [String] {
        let url = URL(fileURLWithPath: directory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let files = ["report.json", "report.md", "report.svg", "roc.csv"].map { url.appendingPathComponent($0) }
        try encoder.encode(report).write(to: files[0])
        try Data(report.markdown.utf8).write(to: files[1])
        try Data(report.svg.utf8).write(to: files[2])
        try Data(report.rocCSV.utf8).write(to: files[3])
        guard events.count > 0 else { return files.map(\.path) }
        let log = url.appendingPathComponent("events.jsonl")
        try Data(events.jsonLines.utf8).write(to: log)
        return (files + [log]).map(\.path)
    }
}
