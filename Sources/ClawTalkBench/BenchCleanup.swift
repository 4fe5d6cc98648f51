import ClawTalkSupport
import Dispatch
import Foundation
import Synchronization

/// What a bench started that must not outlive it (a `clawtalk run` with its Whisper server and
/// keyword scorer, a private PulseAudio): on SIGINT or SIGTERM each one still registered gets
/// SIGTERM (a node stops its servers), SIGKILL after 5 s, and the bench exits with 128 + the
/// signal. Without this an interrupted `bench soak` left its node and sound server running.
enum BenchCleanup {
    private struct State {
        var pids: Set<Int32> = []
        var installed = false
    }

    private static let state = Mutex(State())
    /// The signal sources (kept alive for the process's life).
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Registers `pid` to be stopped if the bench is interrupted, and installs the handlers the
    /// first time.
    static func register(_ pid: Int32) {
        let install = state.locked { state -> Bool in
            state.pids.insert(pid)
            defer { state.installed = true }
            return !state.installed
        }
        if install { installHandlers() }
    }

    /// Forgets `pid` (it was stopped the normal way).
    static func unregister(_ pid: Int32) {
        state.locked { _ = $0.pids.remove(pid) }
    }

    /// The pids registered now.
    static var registered: Set<Int32> { state.locked { $0.pids } }

    /// Stops every registered process: SIGTERM, then SIGKILL for those alive after `grace`.
    static func stopAll(grace: Duration = .seconds(5)) {
        let pids = state.locked { state in
            defer { state.pids.removeAll() }
            return state.pids
        }
        for pid in pids { kill(pid, SIGTERM) }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline, pids.contains(where: { alive($0) }) { usleep(50_000) }
        for pid in pids where alive(pid) { kill(pid, SIGKILL) }
    }

    private static func alive(_ pid: Int32) -> Bool {
        // A child that exited but was not reaped yet is a zombie: gone for this purpose.
        guard kill(pid, 0) == 0 else { return false }
        // procfs files report size 0: read to the end rather than by size.
        let data = FileHandle(forReadingAtPath: "/proc/\(pid)/stat")?.readDataToEndOfFile() ?? Data()
        let state = String(decoding: data, as: UTF8.self).split(separator: ")").last?
            .trimmingCharacters(in: .whitespaces)
        return state?.hasPrefix("Z") != true
    }

    private static func installHandlers() {
        let queue = DispatchQueue(label: "clawtalk.bench.cleanup")
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                FileHandle.standardError.write(Data("bench: interrupted; stopping what it started\n".utf8))
                stopAll()
                exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
    }
}
