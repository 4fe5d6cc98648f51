import ClawTalkAudio
import ClawTalkDevices
import Foundation

/// Barge-in as the service does it (issue 15): the real `clawtalk run` in Talk mode on a private
/// rig (``SoakBench``'s set-up: TLS test gateway, supervised Whisper server), speaking the
/// gateway's reply with espeak-ng into `ct_spk`, with the user's speech played into `ct_mic`.
/// Read at the speaker monitor (``MonitorTimeline``) and in the node's log:
/// - `bargein.pause`: the user's speech onset → the reply silent at the monitor;
/// - `bargein.stop`: the onset → the reply stopped for good (`talk.barge_in`, after Whisper
///   confirmed the words);
/// - `bargein.resume_gap`: how long a short sound (a 0.22 s word fragment) silenced the reply
///   before it played on, and whether it was taken for an interruption;
/// - `bargein.false_pauses_per_hour`: `talk.pause on=true` while the node reads its reply
///   through the echo path with nobody speaking.
struct ServiceBargeInBench {
    /// Where the node's output goes.
    enum Condition: String, CaseIterable, Sendable {
        /// Echo path at −6 dB into the microphone, echo cancellation on (the default).
        case echoMinus6 = "aec-6"
        /// Echo path at 0 dB, echo cancellation on.
        case echo0 = "aec0"
        /// No echo path, echo cancellation off, `speaker.acousticallyIsolated` (headphones).
        case isolated

        var echoDecibels: Int? {
            switch self {
            case .echoMinus6: -6
            case .echo0: 0
            case .isolated: nil
            }
        }

        var label: String {
            switch self {
            case .echoMinus6: "echo path −6 dB, AEC"
            case .echo0: "echo path 0 dB, AEC"
            case .isolated: "output isolated (no echo path), no AEC"
            }
        }
    }

    /// The spoken material, 16 kHz mono.
    struct Clips {
        /// What the user asks to get a reply ("tell me a story").
        var question: [Int16]
        /// A real interruption.
        var interruption: [Int16]
        /// A short sound that is no interruption.
        var sound: [Int16]
    }

    var conditions: [Condition]
    /// Interruptions per condition.
    var probes: Int
    /// Short-sound probes per condition.
    var sounds: Int
    /// Minutes of the node reading its replies with nobody speaking (echo conditions only).
    var quietMinutes: Double
    var clips: Clips
    /// The reply the gateway gives to every turn: long, without punctuation, so that the
    /// monitor has no silence of ``MonitorTimeline/minimumGap`` inside it.
    var reply: String
    var environment: [String: String]
    var scratch: URL
    var progress: (String) -> Void

    /// Runs every condition and returns its metrics.
    func run() async -> [BenchMetric] {
        var metrics: [BenchMetric] = []
        for condition in conditions {
            do {
                metrics += try await measure(condition)
            } catch {
                let reason = "\(error)"
                metrics += Self.names.map {
                    .unmeasured($0.0, condition: condition.label, unit: $0.1, reason: reason)
                }
            }
        }
        return metrics
    }

    /// The reply: about 30 s of espeak-ng speech in one breath (no punctuation, so no pause in
    /// it at the monitor).
    static let story =
        "once upon a time there was a small robot who lived in a lighthouse by the sea and every night "
        + "it counted the ships that passed and every morning it polished the great lamp until it shone "
        + "and in the winter the storms came over the water and the robot sang to the waves until the "
        + "sun came back and the fishermen heard the song from far away and steered their boats home "
        + "safely through the rocks and the wind and the rain and the robot was happy"

    /// The family's metric names and units.
    static let names = [
        ("bargein.pause", "ms"), ("bargein.stop", "ms"), ("bargein.resume_gap", "ms"),
        ("bargein.false_pauses_per_hour", "per_hour"),
    ]

    // MARK: - One condition

    private func measure(_ condition: Condition) async throws -> [BenchMetric] {
        var env = environment
        env["CLAWTALK_LOG_LEVEL"] = "debug"
        if condition == .isolated {
            env["CLAWTALK_PROCESSING_ECHO_CANCELLATION"] = "off"
            env["CLAWTALK_SPEAKER_ACOUSTICALLY_ISOLATED"] = "true"
        }
        var soak = SoakBench(minutes: 0, phrases: [], environment: env, scratch: scratch, progress: progress)
        soak.chatReply = reply
        let rig = try await soak.start()
        defer { SoakBench.stop(rig) }
        if let decibels = condition.echoDecibels { try rig.loopback.enableEcho(decibels: decibels) }
        let (monitor, harness) = try SoakBench.user()
        defer {
            harness.close()
            monitor.stop()
        }
        let log = BargeInLog(file: rig.log)
        try soak.control(["talk", "on"], rig: rig)
        var session = Session(bench: self, rig: rig, soak: soak, harness: harness, log: log, monitor: monitor)

        var pauses: [Double] = []
        var stops: [Double] = []
        var gaps: [Double] = []
        var notes: [String] = []
        var resumedBeforeStop = 0
        var probeWindows: [(ContinuousClock.Instant, ContinuousClock.Instant)] = []
        let kinds = Self.schedule(interruptions: probes, sounds: sounds)
        for (index, isSound) in kinds.enumerated() {
            guard let spoken = try await session.speakingReply() else {
                notes.append("probe \(index + 1): the node did not speak a reply")
                continue
            }
            // 2–4 s into the reply, after its 0.5 s guard and the canceller's start.
            let delay = Double.random(in: 2...4, using: &session.random)
            try await Task.sleep(until: spoken + .milliseconds(Int(delay * 1000)))
            let clip = isSound ? clips.sound : clips.interruption
            guard let onset = await session.inject(clip) else {
                notes.append("probe \(index + 1): the user's clip did not play")
                continue
            }
            let outcome = try await session.outcome(after: onset, sound: isSound)
            probeWindows.append((onset - .milliseconds(200), outcome.settled))
            if isSound {
                if let gap = outcome.gap { gaps.append(gap) }
                if outcome.stop != nil { notes.append("probe \(index + 1): a short sound stopped the reply") }
            } else if let stop = outcome.stop {
                if let pause = outcome.pause { pauses.append(pause) }
                stops.append(stop)
                if outcome.resumedBeforeStop { resumedBeforeStop += 1 }
            } else {
                if let pause = outcome.pause { pauses.append(pause) }
                notes.append("probe \(index + 1): an interruption did not stop the reply")
            }
            progress(
                "bench bargein (\(condition.rawValue)): probe \(index + 1)/\(kinds.count) "
                    + "\(isSound ? "sound" : "interruption"): pause \(outcome.pause.map { "\(Int($0)) ms" } ?? "none"), "
                    + (isSound
                        ? "gap \(outcome.gap.map { "\(Int($0)) ms" } ?? "none")"
                        : "stop \(outcome.stop.map { "\(Int($0)) ms" } ?? "none")"
                            + (outcome.resumedBeforeStop ? " (resumed before the stop)" : "")) + "\n")
        }
        // The stretches between probes end here: the reading alone is counted on its own.
        log.read()
        let probesEnd = session.clock.date(.now)
        let speaking = log.speaking(excluding: probeWindows, until: probesEnd, clock: session.clock)
        let quiet = condition == .isolated ? nil : try await session.readAlone(minutes: quietMinutes)
        return report(
            condition, pauses: pauses, stops: stops, gaps: gaps, soundProbes: kinds.filter { $0 }.count, notes: notes,
            resumedBeforeStop: resumedBeforeStop, quiet: quiet, probeSpeaking: speaking)
    }

    /// Interruptions and short sounds (true) interleaved: every third probe is a sound.
    static func schedule(interruptions: Int, sounds: Int) -> [Bool] {
        var result: [Bool] = []
        var (left, soundsLeft) = (interruptions, sounds)
        while left > 0 || soundsLeft > 0 {
            let soundNow = soundsLeft > 0 && (left == 0 || result.count % 3 == 2)
            result.append(soundNow)
            if soundNow { soundsLeft -= 1 } else { left -= 1 }
        }
        return result
    }

    private func report(
        _ condition: Condition, pauses: [Double], stops: [Double], gaps: [Double], soundProbes: Int, notes: [String],
        resumedBeforeStop: Int, quiet: BargeInLog.Tally?, probeSpeaking: BargeInLog.Tally
    ) -> [BenchMetric] {
        let label = "clawtalk run, Talk mode, \(condition.label)"
        let interruptions = probes
        var metrics: [BenchMetric] = [
            .latency(
                "bargein.pause",
                condition: "\(label): an interruption's speech onset → reply silent at ct_spk.monitor",
                samples: pauses, goal: BenchGoal(p95: condition == .isolated ? 100 : 150),
                reason: pauses.count < interruptions
                    ? "\(interruptions - pauses.count) of \(interruptions) interruptions did not pause the reply" : nil),
            .latency(
                "bargein.stop",
                condition: "\(label): onset → reply stopped for good (talk.barge_in, Whisper confirmed)",
                samples: stops, reason: notes.isEmpty ? nil : notes.joined(separator: "; ")),
            .latency(
                "bargein.resume_gap", condition: "\(label): a 0.22 s word fragment over the reply → reply plays on",
                samples: gaps,
                reason: "\(gaps.count) of \(soundProbes) sounds paused the reply; "
                    + "\(notes.filter { $0.contains("short sound stopped") }.count) stopped it"),
        ]
        metrics.append(
            .value(
                "bargein.resumed_before_stop",
                condition: "\(label): interruptions whose reply was heard again between its pause and the stop",
                unit: "count", value: Double(resumedBeforeStop), n: stops.count, goal: BenchGoal(value: 0)))
        // Pauses the node made while nobody spoke: the quiet reading and the probe run's
        // stretches away from the probes.
        // Onsets that the double-talk test held back say whether 0 pauses were put to the test.
        let total = (quiet ?? BargeInLog.Tally()) + probeSpeaking
        metrics.append(
            LoopbackBench.rate(
                "bargein.false_pauses_per_hour", count: total.pauses, hours: total.hours,
                condition: "\(label): talk.pause while the node speaks and nobody does "
                    + "(\(BenchMetric.rounded(quiet?.hours ?? 0)) h reading alone, "
                    + "\(BenchMetric.rounded(probeSpeaking.hours)) h between probes)",
                reason: "\(total.held) onsets held by the double-talk test"))
        return metrics
    }
}
