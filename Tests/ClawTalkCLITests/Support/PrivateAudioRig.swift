import Foundation

/// A PulseAudio rig of the test's own, `scripts/audio-rig start` in a private directory beside the
/// shared one (its own `vspk` sink and `vmic` microphone; the script runs several side by side).
///
/// For a test that needs its microphone to itself for a long time, or that loads its own sinks:
/// on a private rig it needs no `.audioRig` turn, so in a parallel run it runs beside the shared
/// rig's tests instead of after them (architecture.md §8). Stopped by ``stop()`` or deinit.
final class PrivateAudioRig: @unchecked Sendable {
    /// The rig's directory (`CLAWTALK_RIG_DIR`).
    let directory: String
    /// The server's address, `unix:<directory>/pulse/native`.
    let server: String
    private var stopped = false

    /// The script, found from this file's place in the repository.
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/audio-rig").path
    }

    /// Starts the rig and waits until it is up (the script's own checks: the keep-alive stream
    /// and a warm-up capture).
    init() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("rig-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let status = try Self.runScript(["start"], output: output.path)
        let exports = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        // Lines `export NAME=value` (the values are paths under /tmp, printed without quoting).
        var values: [String: String] = [:]
        for line in exports.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
            if pair.count == 2 { values[String(pair[0])] = String(pair[1]) }
        }
        guard status == 0, let directory = values["CLAWTALK_RIG_DIR"], let server = values["PULSE_SERVER"] else {
            throw StartFailure(description: "audio-rig start exited \(status): \(exports)")
        }
        self.directory = directory
        self.server = server
    }

    /// ``init()`` on a dispatch thread: the script takes a few seconds (its warm-up capture), and
    /// a test waiting for it must not hold one of the cooperative pool's threads.
    static func start() async throws -> PrivateAudioRig {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try PrivateAudioRig() }) }
        }
    }

    /// For a child process: its sound server is this rig.
    var environment: [String: String] { ["PULSE_SERVER": server] }

    /// Stops the rig (only what its `start` started); calling it twice is fine.
    func stop() {
        guard !stopped else { return }
        stopped = true
        _ = try? Self.runScript(["stop", directory], output: "/dev/null")
    }

    deinit { stop() }

    /// Runs the script with both output streams into `output` and waits for it; its exit status.
    ///
    /// With `posix_spawn` and a `waitpid` of its own, not Foundation's `Process`: the script
    /// leaves daemons running (the sound server, the keep-alive `pacat`), and `Process` in this
    /// test process never saw the script end (it stayed a zombie and the test hung).
    private static func runScript(_ arguments: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([script] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, script, &actions, nil, argv, environ)
        guard result == 0 else { throw StartFailure(description: "\(script): posix_spawn failed (\(result))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }

    /// `audio-rig start` failed; its output.
    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }
}
