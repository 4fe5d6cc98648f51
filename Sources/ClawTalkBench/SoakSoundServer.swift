import Foundation

/// The soak's own PulseAudio: a private daemon in a private runtime folder, so that the soak may
/// restart the sound server (one of its faults) without touching the user's, or the audio rig's
/// that the other bench families share. While it runs, this process's `PULSE_SERVER` points at
/// it, so ``LoopbackRig`` and the `pactl`/`pacat` helpers load their sinks there, and the node
/// under test is given the same address.
final class SoakSoundServer {
    /// `unix:<folder>/native`, for `PULSE_SERVER`.
    let address: String
    private let folder: URL
    /// The daemon's pid (read from its pid file: it is not a child of this process).
    private var daemon: Int32?
    private let previousServer: String?

    /// Starts the daemon in a new folder under `scratch` and waits until it answers `pactl info`.
    init(scratch: URL) throws {
        folder = scratch.appendingPathComponent("pulse-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("state"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        address = "unix:\(folder.path)/native"
        previousServer = ProcessInfo.processInfo.environment["PULSE_SERVER"]
        let script = """
            load-module module-native-protocol-unix auth-anonymous=1 socket=\(folder.path)/native
            load-module module-null-sink sink_name=soak_idle rate=16000 channels=1
            set-default-sink soak_idle
            set-default-source soak_idle.monitor

            """
        try script.write(to: folder.appendingPathComponent("soak.pa"), atomically: true, encoding: .utf8)
        setenv("PULSE_SERVER", address, 1)
        try start()
    }

    deinit {
        stop()
        if let previousServer { setenv("PULSE_SERVER", previousServer, 1) } else { unsetenv("PULSE_SERVER") }
    }

    /// The daemon's process id, or nil when it is not running.
    var processIdentifier: Int32? { daemon.flatMap { kill($0, 0) == 0 ? $0 : nil } }

    /// Kills the daemon (SIGKILL, as a crash would end it), waits `downtime`, starts a new one.
    func restart(downtime: Duration = .seconds(2)) async throws {
        stop()
        try await Task.sleep(for: downtime)
        try start()
    }

    /// Ends the daemon; calling it twice is fine.
    func stop() {
        guard let daemon else { return }
        self.daemon = nil
        BenchCleanup.unregister(daemon)
        kill(daemon, SIGKILL)
        // It is not our child (it daemonized): wait until it is gone.
        for _ in 0..<100 where kill(daemon, 0) == 0 { usleep(20_000) }
        try? FileManager.default.removeItem(at: folder.appendingPathComponent("pulse/pid"))
    }

    /// Starts the daemon the way scripts/audio-rig does: `--daemonize=yes`, so that it is not a
    /// child of this process (PulseAudio closes every inherited descriptor at start, and
    /// Foundation's `Process` takes that for an exit and blocks in `waitpid` on the live daemon).
    private func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "pulseaudio", "--daemonize=yes", "--exit-idle-time=-1", "-n",
            "-F", folder.appendingPathComponent("soak.pa").path,
            "--log-target=file:\(folder.appendingPathComponent("pa.log").path)",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = folder.path
        environment["PULSE_STATE_PATH"] = folder.appendingPathComponent("state").path
        environment.removeValue(forKey: "PULSE_SERVER")
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let pidFile = folder.appendingPathComponent("pulse/pid")
        let pid = (try? String(contentsOf: pidFile, encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard process.terminationStatus == 0, let pid else {
            let log = (try? String(contentsOf: folder.appendingPathComponent("pa.log"), encoding: .utf8)) ?? ""
            throw BenchTool.Failure(description: "the soak's PulseAudio did not start: \(log.suffix(1000))")
        }
        daemon = pid
        BenchCleanup.register(pid)
        let deadline = ContinuousClock.now + .seconds(10)
        while (try? BenchTool.run("pactl", ["info"])) == nil {
            guard ContinuousClock.now < deadline else {
                stop()
                throw BenchTool.Failure(description: "the soak's PulseAudio (pid \(pid)) does not answer")
            }
            usleep(100_000)
        }
    }
}
