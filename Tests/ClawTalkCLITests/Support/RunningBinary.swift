import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

/// The `clawtalk` executable running in the background while a test drives a gateway: output is
/// collected as it arrives and the test polls for it without blocking the cooperative pool.
///
/// The test process may have SIGTERM/SIGINT ignored (the in-process ``ServiceRunner`` tests leave
/// them so) and children inherit that; clawtalk installs its own signal sources, so SIGTERM
/// still stops it, but ``kill()`` uses SIGKILL for cleanup.
final class RunningBinary: @unchecked Sendable {
    // @unchecked: `process` is only started in init and then read (pid, isRunning, status),
    // which Foundation's Process allows from any thread; the buffers are locked.
    private let process: Process
    private let out = TextBuffer()
    private let err = TextBuffer()
    private let outPipe = Pipe()
    private let errPipe = Pipe()

    /// Starts `clawtalk arguments…` with `environment` added to a stable environment;
    /// `ignoringStopSignals`: through `sh`, which ignores SIGTERM and SIGINT and then becomes
    /// clawtalk, so that it starts with them ignored (as under a parent that ignores them).
    init(_ arguments: [String], environment: [String: String], ignoringStopSignals: Bool = false) throws {
        process = try ClawTalkBinary.process(arguments, environment: environment)
        if ignoringStopSignals, let binary = process.executableURL?.path {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"trap '' TERM INT; exec "$0" "$@""#, binary] + arguments
        }
        process.standardOutput = outPipe
        process.standardError = errPipe
        outPipe.fileHandleForReading.readabilityHandler = { [out] handle in
            let data = handle.availableData
            out.append(data)
        }
        errPipe.fileHandleForReading.readabilityHandler = { [err] handle in
            let data = handle.availableData
            err.append(data)
        }
        try process.run()
    }

    deinit {
        kill()
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }
    /// Standard output so far.
    var stdout: String { out.text }
    /// Standard error so far.
    var stderr: String { err.text }
    /// Still running.
    var isRunning: Bool { process.isRunning }

    /// Whether `condition` comes to hold within `timeout` (``eventually(within:_:)``). The
    /// default is generous: a busy machine may be slow to start or stop the binary.
    func waitUntil(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
        await eventually(within: timeout) { condition() }
    }

    /// Waits until standard output or error contains `text`.
    func waitForOutput(_ text: String, timeout: Duration = .seconds(30)) async -> Bool {
        await waitUntil(timeout: timeout) { stdout.contains(text) || stderr.contains(text) }
    }

    /// The process's command name (`/proc/<pid>/comm`), nil once it is gone.
    var command: String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends `signal`.
    func send(_ signal: Int32) {
        if process.isRunning { Foundation.kill(process.processIdentifier, signal) }
    }

    /// Waits for the exit; the exit status, or nil when still running after `timeout`.
    func waitForExit(timeout: Duration = .seconds(30)) async -> Int32? {
        guard await waitUntil(timeout: timeout, { !process.isRunning }) else { return nil }
        process.waitUntilExit()
        // Let the readability handlers drain what the child wrote last.
        try? await Task.sleep(for: .milliseconds(50))
        return process.terminationStatus
    }

    /// SIGKILL if still running.
    func kill() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        outPipe.fileHandleForReading.readabilityHandler = nil
        errPipe.fileHandleForReading.readabilityHandler = nil
    }
}

/// Text collected from a pipe, appended from the pipe's handler thread.
final class TextBuffer: Sendable {
    private let storage = Mutex<String>("")

    /// Appends `data` as UTF-8.
    func append(_ data: Data) {
        storage.locked { $0 += String(decoding: data, as: UTF8.self) }
    }

    /// Everything so far.
    var text: String { storage.locked { $0 } }
}
