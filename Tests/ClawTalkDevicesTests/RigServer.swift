import Foundation

/// Which sound server the audio rig runs: `scripts/audio-rig start` (PulseAudio) or
/// `scripts/audio-rig start --pipewire` (PipeWire behind pipewire-pulse).
///
/// The node speaks the PulseAudio protocol to both; what differs is what the tests do to the
/// server from outside: pipewire-pulse has no `module-null-source`, no `pacmd`, and answers
/// `suspend-source` without stopping a source that has a stream.
enum RigServer: Equatable {
    case pulseAudio
    case pipeWire

    /// The rig's server, from `CLAWTALK_RIG_SERVER` (set by `audio-rig start`), else from the
    /// server name `pactl info` reports.
    static let current: RigServer = {
        switch ProcessInfo.processInfo.environment["CLAWTALK_RIG_SERVER"] {
        case "pipewire": return .pipeWire
        case "pulseaudio": return .pulseAudio
        default:
            let info = (try? Pactl.run(["info"])) ?? ""
            return info.contains("on PipeWire") ? .pipeWire : .pulseAudio
        }
    }()

    /// Whether a 16 kHz stream reaches a 16 kHz monitor sample for sample. PulseAudio's rig path
    /// is bit-exact; PipeWire runs its graph at 48 kHz (Debian's default), so a 16 kHz stream is
    /// resampled there and back: whole and at full level, but delayed by a fraction of a sample
    /// (one 48 kHz sample, measured: a 1 s chirp correlates 0.96 at the best whole-sample offset,
    /// its energy within 0.01 %) and never equal bit for bit.
    var isBitExact: Bool { self == .pulseAudio }

    /// Makes `source` deliver nothing until the returned closure runs. PulseAudio suspends it;
    /// pipewire-pulse answers `suspend-source` but goes on feeding a stream that is open, so on
    /// PipeWire the rig's graph is frozen instead (SIGSTOP to its `pipewire` daemon, SIGCONT to end):
    /// the server stalls as a whole, and pipewire-pulse still answers.
    static func stall(source: String) throws -> @Sendable () -> Void {
        switch current {
        case .pulseAudio:
            try Pactl.run(["suspend-source", source, "1"])
            return { _ = try? Pactl.run(["suspend-source", source, "0"]) }
        case .pipeWire:
            guard let daemon = pipeWireDaemon() else {
                throw Pactl.Failure(description: "no pipewire.pid in CLAWTALK_RIG_DIR (start the rig with audio-rig)")
            }
            guard kill(daemon, SIGSTOP) == 0 else { throw Pactl.Failure(description: "SIGSTOP \(daemon): \(errno)") }
            return { kill(daemon, SIGCONT) }
        }
    }

    /// The PID of the PipeWire daemon of the rig in `CLAWTALK_RIG_DIR`, checked to be `pipewire`.
    static func pipeWireDaemon() -> pid_t? {
        guard let directory = ProcessInfo.processInfo.environment["CLAWTALK_RIG_DIR"],
            let text = try? String(contentsOfFile: directory + "/pipewire.pid", encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)),
            let command = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
            command.trimmingCharacters(in: .whitespacesAndNewlines) == "pipewire"
        else { return nil }
        return pid
    }
}
