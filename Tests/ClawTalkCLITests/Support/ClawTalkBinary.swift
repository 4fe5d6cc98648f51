import ClawTalkSupport
import ClawTalkTestTraits
import Foundation
import Synchronization
import Testing

/// The built `clawtalk` executable, run as a child process.
///
/// SwiftPM puts executables in the products directory next to the test bundle and its resource
/// bundles, so the binary is found beside `Bundle.module`; `CLAWTALK_BINARY` overrides that.
enum ClawTalkBinary {
    /// What one run produced.
    struct Result {
        var status: Int32
        var reason: Process.TerminationReason
        var output: String
        var error: String
    }

    /// Where the executable is expected.
    static var url: URL {
        if let override = ProcessInfo.processInfo.environment["CLAWTALK_BINARY"] {
            return URL(fileURLWithPath: override)
        }
        return Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("clawtalk")
    }

    /// Fails the test (rather than skipping) when the executable was not built.
    static func require() throws -> URL {
        let url = url
        try #require(
            FileManager.default.isExecutableFile(atPath: url.path),
            "clawtalk executable not found at \(url.path); build it with 'swift build' or set CLAWTALK_BINARY")
        return url
    }

    /// A process for `arguments` with stdin from /dev/null and a stable environment.
    static func process(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = try require()
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CLAWTALK_") }
        environment["LC_ALL"] = "C"
        environment.merge(soundServer(extra)) { _, new in new }
        process.environment = environment
        return process
    }

    /// A sound server no test reaches: the one that is not in the audio rig's turn.
    static let noSoundServer = "unix:/nonexistent/clawtalk-test-outside-the-audio-rig-turn/native"

    /// `extra` with `PULSE_SERVER` set when it has none: the shared audio rig's (this process's
    /// own) in the `.audioRig` turn, else ``noSoundServer``. A `clawtalk run` of a test outside
    /// the turn would otherwise capture the rig's microphone and play into its speaker beside the
    /// rig's tests in a parallel run (architecture.md §8).
    static func soundServer(_ extra: [String: String]) -> [String: String] {
        guard extra["PULSE_SERVER"] == nil else { return extra }
        var extra = extra
        if SharedResourceTrait.audioRig.isHeld {
            extra["PULSE_SERVER"] = ProcessInfo.processInfo.environment["PULSE_SERVER"]
        } else {
            extra["PULSE_SERVER"] = noSoundServer
        }
        return extra
    }

    /// Runs `arguments` to completion and collects both output streams.
    ///
    /// The wait happens on a thread of its own, never on one of Swift concurrency's: on a 2-core
    /// machine the cooperative pool has two threads, and two tests each blocking one while their
    /// children waited for this process's test gateway deadlocked until a child timed out (a CI
    /// run of 2026-12-07: `discover --connect` got no hello-ok within 30 s).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        let process = try process(arguments, environment: environment)
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Swift.Result { try collect(process) })
            }
        }
    }

    /// Starts `process`, drains both pipes and waits for its exit, blocking the calling thread.
    private static func collect(_ process: Process) throws -> Result {
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Drain stderr on another thread so neither pipe can fill up and block the child.
        let errorData = Mutex<Data>(Data())
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let data = error.fileHandleForReading.readDataToEndOfFile()
            errorData.locked { $0 = data }
            drained.signal()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, reason: process.terminationReason,
            output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData.locked { $0 }, as: UTF8.self))
    }
}
