import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

@testable import ClawTalkSpeech

@Suite struct ChildProcessTests {
    /// Dispatch worker threads block SIGTERM; a child spawned from one must still get it.
    @Test func aChildSpawnedFromATaskStopsOnSIGTERM() async throws {
        let child = try await Task.detached {
            try ChildProcess(executable: "/bin/sleep", arguments: ["30"], environment: [])
        }.value
        #expect(child.isRunning)
        child.terminate(grace: .seconds(20))
        #expect(child.exitStatus == .signal(SIGTERM))
        #expect(!child.isRunning)
    }

    @Test func outputLinesAreHandedOnAndTheExitStatusIsKept() async throws {
        let lines = Mutex<[String]>([])
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; printf 'no newline'; exit 3"],
            environment: [], onOutput: { line in lines.locked { $0.append(line) } })
        #expect(await child.exited() == .status(3))
        #expect(lines.locked { $0 } == ["out", "err", "no newline"])
        #expect(child.recentOutput == ["out", "err", "no newline"])
    }

    /// terminate() reaches what the child started: the child leads its own process group.
    @Test func terminateStopsTheWholeProcessGroup() async throws {
        let grandchild = Mutex<pid_t?>(nil)
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "sleep 60 & echo $!; wait"], environment: [],
            onOutput: { line in grandchild.locked { $0 = pid_t(line) } })
        #expect(getpgid(child.pid) == child.pid)
        _ = await eventually { grandchild.locked { $0 } != nil }
        let sleeper = try #require(grandchild.locked { $0 })
        #expect(getpgid(sleeper) == child.pid)
        child.terminate(grace: .seconds(20))
        // The sleeper was reparented, so nobody here reaps it: gone means dead or a zombie.
        #expect(await eventually { !Self.isAlive(sleeper) })
    }

    @Test func theChildInheritsNoDescriptorButItsOutput() async throws {
        let lines = Mutex<[String]>([])
        let child = try ChildProcess(
            executable: "/bin/ls", arguments: ["/proc/self/fd"], environment: [],
            onOutput: { line in lines.locked { $0.append(line) } })
        #expect(await child.exited() == .status(0))
        // 0, 1, 2 and the descriptor ls opens to read the directory.
        #expect(lines.locked { $0 }.count <= 4, "\(lines.locked { $0 })")
    }

    @Test func aWaitForTheExitEndsWhenCancelled() async throws {
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["30"], environment: [])
        let waiter = Task { await child.exited() }
        waiter.cancel()
        #expect(await waiter.value == nil)
        #expect(child.isRunning)
        child.terminate(grace: .seconds(20))
    }

    @Test func aMissingExecutableIsAnError() {
        #expect(throws: SpeechError.self) {
            try ChildProcess(executable: "/nonexistent/server", arguments: [], environment: [])
        }
    }

    @Test func aServerThatExitsEarlyIsReportedWithItsStatus() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data().write(to: directory.appendingPathComponent("model.bin"))
        let configuration = WyomingServerProcess.Configuration(
            executable: "/bin/false", modelDirectory: directory.path, readyTimeout: .seconds(60))
        await #expect(throws: SpeechError.sttServerStart("the server exited (status 1) before it was ready: no output"))
        {
            _ = try await WyomingServerProcess.start(configuration)
        }
    }

    /// Alive and not a zombie.
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.range(of: ") ", options: .backwards)
        else { return false }
        return stat[end.upperBound...].first != "Z"
    }
}
