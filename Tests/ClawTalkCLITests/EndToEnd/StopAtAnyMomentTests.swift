import ClawTalkTesting
import Foundation
import Testing

/// Issue 35: SIGTERM ends `clawtalk run` at any moment, here with a sound server that answers
/// nothing (a login, where the session's sound server is still starting). How fast is
/// `scripts/bench-stop`'s business (docs/benchmarks.md); these check that it ends, and how.
@Suite("Stop at any moment", .serialized, .timeLimit(.minutes(2)))
struct StopAtAnyMomentTests {
    static func environment(_ home: TemporaryHome, sound: SilentSoundServer) -> [String: String] {
        var environment = home.environment
        environment["PULSE_SERVER"] = sound.address
        return environment
    }

    @Test func sigtermSoonAfterTheStartEndsTheNode() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let sound = try SilentSoundServer()
        let run = try RunningBinary(["run"], environment: Self.environment(home, sound: sound))
        defer { run.kill() }
        try await Task.sleep(for: .milliseconds(200))
        run.send(SIGTERM)
        // Before its signal handlers are in place the default action ends it (status 143 from
        // the shell's point of view), after that the runner does (0); either way it ends. How
        // fast is `scripts/bench-stop`'s to measure: in parallel runs with a core held busy this
        // took more than the 30 s waited before (passes came after 6–40 s), so the wait is 90 s.
        let status = await run.waitForExit(timeout: .seconds(90))
        #expect(status != nil, "still running after SIGTERM: \(run.stderr)")
    }

    /// The microphone is opening on the silent server (its connection waits for an answer) when
    /// the stop comes: the capture thread gives up at once instead of at the 5 s open limit.
    @Test func sigtermWhileTheMicrophoneWaitsForTheSoundServerEndsTheCapture() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let sound = try SilentSoundServer()
        let run = try RunningBinary(["run"], environment: Self.environment(home, sound: sound))
        defer { run.kill() }
        #expect(await run.waitForOutput("service.started"), "\(run.stderr)")
        // The device listing of the start-up (given up after 1 s) and the microphone's stream.
        #expect(await run.waitUntil { sound.connections >= 2 }, "\(run.stderr)")
        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0, "\(run.stderr)")
        // Said as what it is (mic.open.stopped), not as a microphone fault.
        #expect(run.stderr.contains("stopped while waiting for the sound server"), "\(run.stderr)")
        #expect(!run.stderr.contains("wake.microphone.unavailable"), "\(run.stderr)")
        #expect(!run.stderr.contains("ptt.capture.unavailable"), "\(run.stderr)")
        #expect(!run.stderr.contains("did not answer in time"), "\(run.stderr)")
    }
}
