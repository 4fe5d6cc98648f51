import ClawTalkTestTraits
import Foundation
import Testing

/// `clawtalk bench` end to end through the built binary: the CI smoke run over the audio rig
/// (report shape and plausible values) and the no-sound-server case.
@Suite("clawtalk bench smoke", .serialized)
struct BenchSmokeTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bench-smoke-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func metrics(in directory: URL) throws -> [[String: Any]] {
        let data = try Data(contentsOf: directory.appendingPathComponent("report.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["machine", "commit", "corpus", "metrics"] { #expect(object.keys.contains(key), "\(key)") }
        return try #require(object["metrics"] as? [[String: Any]])
    }

    static func first(_ name: String, in metrics: [[String: Any]], where condition: String = "") throws
        -> [String: Any]
    {
        try #require(
            metrics.first { metric in
                metric["name"] as? String == name
                    && (condition.isEmpty || (metric["condition"] as? String ?? "").contains(condition))
            },
            "\(name) \(condition) missing")
    }

    /// Runs `clawtalk <arguments> --output <dir> --cache <dir>/cache` over an audio rig of its own
    /// (``PrivateAudioRig``); `check` reads the output folder before it is removed.
    static func runOverPrivateRig(
        _ arguments: [String], check: (ClawTalkBinary.Result, URL) throws -> Void
    ) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rig = try await PrivateAudioRig.start()
        defer { rig.stop() }
        let result = try await ClawTalkBinary.run(
            arguments + ["--output", directory.path, "--cache", directory.appendingPathComponent("cache").path],
            environment: rig.environment)
        try check(result, directory)
    }

    // The runs below are awaited on a thread of their own (`ClawTalkBinary.run` does so), not
    // where the test runs: a synchronous run holds one of the cooperative pool's threads (two on a
    // 2-core machine) for its whole length, and a parallel run's other tests stalled behind it (a
    // loaded `bench cpu --quick` took 160 s; dozens of short tests ended together when it did).

    @Test func withoutASoundServerLoopbackMetricsAreNullWithAReason() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await ClawTalkBinary.run(
            ["bench", "loopback", "--quick", "--output", directory.path],
            environment: ["PULSE_SERVER": "unix:/nonexistent/pulse", "XDG_RUNTIME_DIR": directory.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("bench loopback: skipped:"))
        let metrics = try Self.metrics(in: directory)
        for name in ["capture.latency", "playback.latency", "eou.latency", "bargein.pause", "tts.ttfa.gateway"] {
            let metric = try Self.first(name, in: metrics)
            #expect(metric["value"] is NSNull)
            #expect((metric["reason"] as? String)?.contains("no sound server") == true)
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("report.md").path))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("report.svg").path))
    }

    /// The quick CPU run (file mode: no sound server needed).
    @Test(.timeLimit(.minutes(5)))
    func cpuRunReportsRealTimeFactorsAndMemory() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await ClawTalkBinary.run([
            "bench", "cpu", "--quick", "--trigger", "computer", "--output", directory.path, "--cache",
            directory.appendingPathComponent("cache").path,
        ])
        #expect(result.status == 0, "\(result.error)")
        let metrics = try Self.metrics(in: directory)
        for name in ["cpu.rtf.idle", "cpu.rtf.active"] {
            let value = try #require(try Self.first(name, in: metrics)["value"] as? Double, "\(name)")
            #expect(value > 0 && value < 2, "\(name) \(value)")
        }
        let idle = try Self.first("cpu.rtf.idle", in: metrics)
        #expect(idle["goal"] as? String == "≤ 0.02")
        #expect(idle["met"] is Bool)
        let peak = try #require(try Self.first("memory.rss.peak", in: metrics)["value"] as? Double)
        #expect(peak > 10 && peak < 4_096)
    }
}

extension BenchSmokeTests {
    /// The run over an audio rig of its own (``PrivateAudioRig``; the two above need no sound
    /// server): the bench loads its own sinks and plays into them for about 90 s, so on the shared
    /// rig it took the `.audioRig` turn that long; on its own it runs beside the rig's tests.
    @Suite("over a private audio rig")
    struct OverTheRig {
        /// The CI smoke subset: one probe per loopback metric and about 1 s of self-trigger audio over the rig,
        /// and one turn each of Talk mode and push-to-talk with a stop. `--only` leaves out what this test
        /// does not check (realtime Talk, which its rig test covers, the wake and `talk.ptt.once` turns
        /// and the lost-turn sequence) and barge-in, which ``bargeInProbeOverTheRig()`` runs with the
        /// real-time tests: its one probe on the echo path was missed in loaded parallel runs, while
        /// the rest has bounds a busy machine keeps.
        @Test(
            .needsAudioRig,
            .timeLimit(.minutes(5)))
        func smokeRunOverTheRigWritesAPlausibleReport() async throws {
            try await BenchSmokeTests.runOverPrivateRig([
                "bench", "all", "--quick", "--probes", "1", "--exposure", "1", "--skip", "wake", "--skip", "cpu",
                "--only", "capture,playback,eou,tts,wake,turn.talk,turn.ptt_stop",
            ]) { result, directory in try Self.checkSmokeReport(result, in: directory) }
        }

        /// The smoke run's report: shape, plausible latencies, what `--only` and `--skip` left out.
        static func checkSmokeReport(_ result: ClawTalkBinary.Result, in directory: URL) throws {
            #expect(result.status == 0, "\(result.error)")
            #expect(result.error.contains("bench all: loopback (2/4)"))
            #expect(result.error.contains("bench all: turn (4/4)"))
            let metrics = try BenchSmokeTests.metrics(in: directory)
            for name in ["wake.latency", "wake.frr", "wake.fa_per_hour"] {
                #expect((try BenchSmokeTests.first(name, in: metrics)["reason"] as? String) == "skipped (--skip wake)")
            }
            // Latencies that must be measured on the rig, with plausible bounds (ms): wide upper ones,
            // since a busy machine measures slower (the figures are the bench's business, not the test's).
            let bounds: [(String, String, ClosedRange<Double>)] = [
                ("capture.latency", "block 20 ms", 0...5_000), ("playback.latency", "", -30...5_000),
                ("eou.latency", "", 500...10_000), ("tts.ttfa.gateway", "PCM", 0...5_000),
                ("tts.ttfa.espeak", "", 0...5_000),
                ("turn.talk", "", 0...30_000), ("turn.ptt_stop", "", 0...30_000),
            ]
            for (name, condition, range) in bounds {
                let metric = try BenchSmokeTests.first(name, in: metrics, where: condition)
                let value = try #require(metric["value"] as? Double, "\(name) not measured: \(metric)")
                #expect(range.contains(value), "\(name) \(condition): \(value) ms")
                #expect((metric["n"] as? Int ?? 0) >= 1)
            }
            #expect(try BenchSmokeTests.first("cpu.rtf.idle", in: metrics)["value"] is NSNull)
            for name in ["realtime", "bargein"] {
                #expect((try BenchSmokeTests.first(name, in: metrics)["reason"] as? String) == "not selected (--only)")
            }
            // Present whether or not the single spoken trigger was detected.
            for name in ["wake.latency", "wake.chime", "wake.self_trigger"] {
                #expect(
                    metrics.contains { $0["name"] as? String == name && $0["condition"] as? String != "wake" },
                    "\(name)")
            }
            let markdown = try String(contentsOf: directory.appendingPathComponent("report.md"), encoding: .utf8)
            #expect(markdown.contains("## capture.latency") && markdown.contains("| Goal | Met |"))
            let events = try String(contentsOf: directory.appendingPathComponent("events.jsonl"), encoding: .utf8)
            for event in ["\"eou.detected\"", "\"tts.clipReceived\"", "\"playback.firstWrite\"", "\"t_ns\""] {
                #expect(events.contains(event), "\(event) not in events.jsonl")
            }
            let svg = try String(contentsOf: directory.appendingPathComponent("report.svg"), encoding: .utf8)
            #expect(svg.hasPrefix("<svg") && svg.contains("<polyline"))
        }
    }

    /// Barge-in as `clawtalk run` does it in Talk mode, one probe on the −6 dB echo path over a
    /// rig of its own: run with the real-time tests (`scripts/test`), alone, since its probe was
    /// missed in loaded parallel runs.
    @Suite("barge-in over a private audio rig")
    struct BargeInOverTheRig {
        @Test(
            .needsAudioRig,
            .timeLimit(.minutes(5)))
        func bargeInProbeOverTheRig() async throws {
            try await BenchSmokeTests.runOverPrivateRig([
                "bench", "loopback", "--quick", "--probes", "1", "--exposure", "1", "--only", "bargein",
            ]) { result, directory in
                #expect(result.status == 0, "\(result.error)")
                let metrics = try BenchSmokeTests.metrics(in: directory)
                let pause = try BenchSmokeTests.first("bargein.pause", in: metrics, where: "echo path −6 dB")
                let value = try #require(pause["value"] as? Double, "bargein.pause not measured: \(pause)")
                #expect((0...5_000).contains(value), "bargein.pause: \(value) ms")
                #expect((pause["n"] as? Int ?? 0) >= 1)
                let tts = try BenchSmokeTests.first("tts.ttfa.gateway", in: metrics)
                #expect(tts["reason"] as? String == "not selected (--only)")
            }
        }
    }
}
