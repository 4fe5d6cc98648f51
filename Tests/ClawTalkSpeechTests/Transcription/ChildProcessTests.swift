import Foundation
import Testing

@testable import ClawTalkSpeech

@Suite struct ChildProcessTests {
    /// Dispatch worker threads block SIGTERM; a child spawned from one must still get it.
    @Test func aChildSpawnedFromATaskStopsOnSIGTERM() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let child = try await Task.detached {
            try ChildProcess(executable: "/bin/sleep", arguments: ["30"], environment: [], outputPath: log)
        }.value
        #expect(child.isRunning)
        let start = ContinuousClock.now
        child.terminate(grace: .seconds(3))
        #expect(start.duration(to: .now) < .seconds(1))
        #expect(child.exitDescription == "signal 15")
        #expect(!child.isRunning)
    }

    @Test func outputGoesToTheLogAndTheExitStatusIsKept() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 3"], environment: [],
            outputPath: log)
        let deadline = ContinuousClock.now + .seconds(5)
        while child.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(child.exitDescription == "status 3")
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "out\nerr\n")
    }

    @Test func aMissingExecutableIsAnError() {
        #expect(throws: SpeechError.self) {
            try ChildProcess(executable: "/nonexistent/server", arguments: [], environment: [], outputPath: "/dev/null")
        }
    }

    @Test func aServerThatExitsEarlyIsReportedWithItsStatus() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data().write(to: directory.appendingPathComponent("model.bin"))
        let configuration = WyomingServerProcess.Configuration(
            executable: "/bin/false", modelDirectory: directory.path, readyTimeout: .seconds(10))
        let start = ContinuousClock.now
        await #expect(throws: SpeechError.sttServerStart("the server exited (status 1) before it was ready: no output"))
        {
            _ = try await WyomingServerProcess.start(configuration)
        }
        #expect(start.duration(to: .now) < .seconds(3))
    }
}
