import ClawTalkDevices
import Foundation

/// The null-sink loopback rig of benchmarks.md §5 inside the running sound server: sinks
/// `ct_mic` (the harness plays into it, the node captures `ct_mic.monitor`) and `ct_spk` (the
/// node plays into it, the harness records `ct_spk.monitor`), and on request the echo path
/// (`module-loopback` from `ct_spk.monitor` into `ct_mic`). Every module loaded is unloaded by
/// ``close()``. The server itself comes from the environment (`scripts/audio-rig start`).
final class LoopbackRig {
    static let mic = "ct_mic"
    static let speaker = "ct_spk"
    /// The capture source the node uses.
    static let micSource = "ct_mic.monitor"
    /// The monitor the harness records.
    static let speakerMonitor = "ct_spk.monitor"

    /// `pactl info`'s server name and version, e.g. `pulseaudio 16.1`.
    let server: String
    private var modules: [String] = []
    private var echoModule: String?
    /// `pacat` streams of silence that keep both null sinks clocked (an idle null sink is
    /// suspended and its monitor stalls; scripts/audio-rig does the same for its sink).
    private var keepAlives: [Process] = []

    /// Loads the two sinks (16 kHz mono); throws without a sound server.
    init() throws {
        let info = try BenchTool.run("pactl", ["info"])
        var name = "unknown"
        var version = ""
        for line in info.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            if parts[0] == "Server Name" { name = parts[1] }
            if parts[0] == "Server Version" { version = parts[1] }
        }
        server = "\(name) \(version)".trimmingCharacters(in: .whitespaces)
        for (sink, description) in [(Self.mic, "clawtalk-bench-mic"), (Self.speaker, "clawtalk-bench-speaker")] {
            modules.append(
                try BenchTool.run(
                    "pactl",
                    [
                        "load-module", "module-null-sink", "sink_name=\(sink)", "rate=16000", "channels=1",
                        "sink_properties=device.description=\(description)",
                    ]))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "pacat", "-p", "--raw", "--format=s16le", "--rate=16000", "--channels=1", "--latency-msec=20",
                "-d", sink, "--client-name=clawtalk-bench-keepalive", "/dev/zero",
            ]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            BenchCleanup.register(process.processIdentifier)
            keepAlives.append(process)
        }
    }

    deinit {
        close()
    }

    /// Reads from both monitors until audio arrives (at most `timeout`). With PulseAudio 16.1 the
    /// first record stream on a new sink's monitor gets data only 1.5–1.8 s after connecting
    /// (scripts/audio-rig takes the same hit at start); later streams start at once.
    func warmUp(timeout: Duration = .seconds(4)) async {
        let engines = [Self.micSource, Self.speakerMonitor].map {
            CaptureEngine(configuration: CaptureConfiguration(source: $0, frameMilliseconds: 10))
        }
        await withTaskGroup(of: Bool.self) { group in
            var started = 0
            for engine in engines {
                let frames = engine.frames()
                guard (try? engine.start()) != nil else { continue }
                started += 1
                group.addTask {
                    var iterator = frames.makeAsyncIterator()
                    _ = await iterator.next()
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return true
            }
            // Done when every monitor delivered or the timeout passed, whichever is first.
            var delivered = 0
            for await timedOut in group {
                if timedOut { break }
                delivered += 1
                if delivered == started { break }
            }
            group.cancelAll()
        }
        for engine in engines { engine.stop() }
    }

    /// Mixes the speaker into the mic (20 ms loopback, attenuated by `decibels`; benchmarks.md §5.1: −6 dB).
    func enableEcho(decibels: Int = -6) throws {
        guard echoModule == nil else { return }
        let module = try BenchTool.run(
            "pactl",
            [
                "load-module", "module-loopback", "source=\(Self.speakerMonitor)", "sink=\(Self.mic)",
                "latency_msec=20", "source_dont_move=true", "sink_dont_move=true",
            ])
        echoModule = module
        // The loopback's sink input names the module as its owner (`pactl list sink-inputs`).
        var input: String?
        for line in try BenchTool.run("pactl", ["list", "sink-inputs"]).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("Sink Input #") { input = String(text.dropFirst("Sink Input #".count)) }
            if text == "Owner Module: \(module)", let input {
                _ = try BenchTool.run("pactl", ["--", "set-sink-input-volume", input, "\(decibels)dB"])
            }
        }
    }

    /// Removes the echo path.
    func disableEcho() {
        guard let module = echoModule else { return }
        _ = try? BenchTool.run("pactl", ["unload-module", module])
        echoModule = nil
    }

    /// Stops the keep-alive streams and unloads everything this rig loaded.
    func close() {
        for process in keepAlives {
            BenchCleanup.unregister(process.processIdentifier)
            guard process.isRunning else { continue }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        keepAlives = []
        disableEcho()
        for module in modules.reversed() { _ = try? BenchTool.run("pactl", ["unload-module", module]) }
        modules = []
    }
}
