internal import Glibc
import Synchronization

/// A child process started with `posix_spawn`, with an empty signal mask and default signal
/// actions, its output appended to a file and stdin from `/dev/null`.
///
/// Foundation's `Process` passes on the spawning thread's signal mask; Dispatch's worker threads
/// block SIGTERM, so a server started from a task would never see a polite stop. This type reaps
/// its own child with `waitpid` (nothing else may wait for that pid). `Sendable`: the pid never
/// changes and the exit status sits behind a `Mutex`.
final class ChildProcess: Sendable {
    /// The process id.
    let pid: pid_t
    /// The exit description once reaped (`status 1`, `signal 9`), nil while running.
    private let exit = Mutex<String?>(nil)

    /// Spawns `executable` with `arguments` and `environment` (`NAME=value`), output to `outputPath`.
    init(executable: String, arguments: [String], environment: [String], outputPath: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else {
            throw SpeechError.sttServerStart("cannot run \(executable): \(String(cString: strerror(rc)))")
        }
        self.pid = pid
    }

    deinit {
        terminate(grace: .seconds(3))
    }

    /// Whether the child has not exited yet (reaps it when it has).
    var isRunning: Bool { reap(blocking: false) == nil }

    /// How the child ended (`status 1`, `signal 9`), nil while it runs.
    var exitDescription: String? { reap(blocking: false) }

    /// SIGTERM, then SIGKILL if it has not exited after `grace`; returns once it is reaped.
    func terminate(grace: Duration) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if isRunning { kill(pid, SIGKILL) }
        _ = reap(blocking: true)
    }

    /// The exit description, reaping the child if it has exited (waiting for that if `blocking`).
    private func reap(blocking: Bool) -> String? {
        exit.withLock { exit in
            if let exit { return exit }
            var status: Int32 = 0
            var rc: pid_t
            repeat {
                rc = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            } while rc < 0 && errno == EINTR
            guard rc == pid else {
                // ECHILD: someone else reaped it; treat it as gone.
                if rc < 0 { exit = "gone" }
                return exit
            }
            let signal = status & 0x7F
            exit = signal == 0 ? "status \((status >> 8) & 0xFF)" : "signal \(signal)"
            return exit
        }
    }
}
