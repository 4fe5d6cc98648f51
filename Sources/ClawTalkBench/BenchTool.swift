import ClawTalkCommand
import Foundation

/// Runs a helper program (`pactl`, `git`) and returns its standard output.
enum BenchTool {
    /// Why a helper failed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `tool` (looked up on PATH) with `arguments`; throws on a non-zero exit.
    static func run(_ tool: String, _ arguments: [String], directory: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errorData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")): \(message)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The commit of the checkout the running binary was built in (`…/.build/<config>/clawtalk`
    /// → that repository's `HEAD`, `+dirty` with uncommitted changes), else of the working
    /// directory's repository, or nil. Read when the run starts, so a checkout that moves on
    /// during a long run does not relabel it.
    static func commit(executable: String? = CommandLine.arguments.first) -> String? {
        let directory = executable.flatMap {
            repository(containing: URL(fileURLWithPath: $0).resolvingSymlinksInPath())
        }
        guard var commit = try? run("git", ["rev-parse", "HEAD"], directory: directory) else { return nil }
        let status = try? run("git", ["status", "--porcelain", "--untracked-files=no"], directory: directory)
        if let status, !status.isEmpty { commit += "+dirty" }
        return commit
    }

    /// Polls `condition` every `interval` for at most `seconds`; whether it held.
    static func wait(
        seconds: Double, every interval: Duration = .milliseconds(250), until condition: () async -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: interval)
        }
        return await condition()
    }

    /// Whether a `clawtalk run` log shows its speech servers up: the wake scorer connected (or
    /// none configured) and speech-to-text ready, none, or the user's own (`stt.server: external`).
    static func speechServersUp(inLog text: String) -> Bool {
        (text.contains("wake.scorer.connected") || text.contains("wake.server.none"))
            && (text.contains("stt.server.ready") || text.contains("stt.server.none")
                || text.contains("stt.server.external"))
    }

    /// Stops a `clawtalk run` the bench started as systemd would: SIGTERM, then SIGKILL after 10 s.
    static func terminate(_ run: Process) {
        defer { BenchCleanup.unregister(run.processIdentifier) }
        guard run.isRunning else { return }
        kill(run.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while run.isRunning, Date() < deadline { usleep(50_000) }
        if run.isRunning { kill(run.processIdentifier, SIGKILL) }
    }

    /// The `clawtalk` executable beside this bench: the service the bench runs.
    static func nodeExecutable() throws -> String {
        try ClawTalkExecutable.sibling("clawtalk")
    }

    /// The nearest folder above `file` that holds a `.git` entry.
    static func repository(containing file: URL) -> String? {
        var folder = file.deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(".git").path) { return folder.path }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}
