internal import CProcess
import ClawTalkSupport
import Foundation
internal import Glibc
import Synchronization

/// How a child process ended.
public enum ProcessExit: Sendable, Hashable, CustomStringConvertible {
    /// It exited with this status.
    case status(Int32)
    /// A signal ended it.
    case signal(Int32)

    /// `status 1`, `signal 9`.
    public var description: String {
        switch self {
        case .status(let code): "status \(code)"
        case .signal(let number): "signal \(number)"
        }
    }
}

/// A child process that cannot outlive this one, with its output read line by line.
///
/// Spawned through `ct_spawn` (CProcess): the child leads its own process group, gets SIGKILL
/// when this process ends however it ends (exit, crash or SIGKILL), starts with default signal
/// actions and an empty signal mask (Dispatch's workers block SIGTERM, which a child would
/// otherwise inherit), reads stdin from `/dev/null` and inherits no other descriptor. Its stdout
/// and stderr share one pipe; a watcher thread reads it, hands each line to `onOutput`, keeps the
/// last ``recentLineLimit`` lines, and reaps the child (nothing else may wait for its pid).
final class ChildProcess: Sendable {
    /// How many of the last output lines are kept for error messages.
    static let recentLineLimit = 20

    /// The process id (also the process group id).
    let pid: pid_t
    private let shared = Shared()

    /// What the watcher thread and the callers share.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private struct State {
        var exit: ProcessExit?
        var recent: [String] = []
        var waiters: [UInt64: CheckedContinuation<ProcessExit?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// Spawns `executable` with `arguments` and `environment` (`NAME=value`), `niceIncrement`
    /// steps nicer than this process; `onOutput` gets each output line (on the watcher thread).
    init(
        executable: String, arguments: [String], environment: [String], niceIncrement: Int32 = 0,
        onOutput: (@Sendable (String) -> Void)? = nil
    ) throws {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var spawned: pid_t = 0
        var output: Int32 = -1
        let rc = ct_spawn(executable, argv, envp, niceIncrement, &spawned, &output)
        guard rc == 0 else {
            throw SpeechError.sttServerStart("cannot run \(executable): \(String(cString: strerror(rc)))")
        }
        pid = spawned
        let watcher = Thread { [pid, shared, output] in
            Self.watch(pid: pid, readEnd: output, shared: shared, onOutput: onOutput)
        }
        watcher.name = "clawtalk-child-\(spawned)"
        watcher.start()
    }

    deinit {
        terminate(grace: .seconds(2))
    }

    /// Whether the child has not exited yet.
    var isRunning: Bool { shared.state.locked { $0.exit == nil } }

    /// How the child ended, nil while it runs.
    var exitStatus: ProcessExit? { shared.state.locked { $0.exit } }

    /// The last output lines (at most ``recentLineLimit``).
    var recentOutput: [String] { shared.state.locked { $0.recent } }

    /// Waits until the child has exited and returns how; nil when the waiting task is cancelled
    /// first (the child keeps running).
    func exited() async -> ProcessExit? {
        let id = shared.state.locked { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ProcessExit?, Never>) in
                let ready: ProcessExit?? = shared.state.locked { state in
                    if let exit = state.exit { return .some(exit) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            shared.state.locked { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    /// SIGTERM to the child's process group, then SIGKILL if it has not exited after `grace`;
    /// returns once the child is reaped (or, should even SIGKILL not end it, 2 s later).
    func terminate(grace: Duration) {
        guard isRunning else { return }
        kill(-pid, SIGTERM)
        guard !waitForExit(within: grace) else { return }
        kill(-pid, SIGKILL)
        _ = waitForExit(within: .seconds(2))
    }

    /// Sends `signal` to the child's process group (nothing once it has exited).
    func signalGroup(_ signal: Int32) {
        guard isRunning else { return }
        kill(-pid, signal)
    }

    // MARK: - Private

    private func waitForExit(within limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// The watcher thread: reads output until end of file (or until the child is gone and its
    /// output drained), then reaps the child and wakes the waiters.
    private static func watch(
        pid: pid_t, readEnd: Int32, shared: Shared, onOutput: (@Sendable (String) -> Void)?
    ) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var reaped: ProcessExit?
        func deliver(final: Bool) {
            while let newline = pending.firstIndex(of: 10) {
                emit(Array(pending[..<newline]))
                pending.removeSubrange(...newline)
            }
            if final, !pending.isEmpty {
                emit(pending)
                pending.removeAll()
            }
        }
        func emit(_ bytes: [UInt8]) {
            let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty else { return }
            shared.state.locked { state in
                state.recent.append(line)
                if state.recent.count > recentLineLimit { state.recent.removeFirst() }
            }
            onOutput?(line)
        }
        reading: while true {
            var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 1000)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if ready > 0 {
                let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count > 0 {
                    pending += chunk[..<count]
                    deliver(final: false)
                    continue
                }
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                break reading  // end of file: every writer is gone
            }
            // A second a while without output: a child that exited while a grandchild keeps the
            // pipe open must still be reaped.
            if reaped == nil, let exit = reap(pid: pid, blocking: false) {
                reaped = exit
                break reading
            }
        }
        deliver(final: true)
        close(readEnd)
        let exit = reaped ?? reap(pid: pid, blocking: true) ?? .status(-1)
        let waiters = shared.state.locked { state in
            state.exit = exit
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: exit) }
    }

    /// `waitpid` for `pid`; nil while it runs (non-blocking) or when it cannot be waited for.
    private static func reap(pid: pid_t, blocking: Bool) -> ProcessExit? {
        var status: Int32 = 0
        var rc: pid_t
        repeat {
            rc = waitpid(pid, &status, blocking ? 0 : WNOHANG)
        } while rc < 0 && errno == EINTR
        guard rc == pid else { return rc < 0 ? .status(-1) : nil }
        let signal = status & 0x7F
        return signal == 0 ? .status((status >> 8) & 0xFF) : .signal(signal)
    }
}
