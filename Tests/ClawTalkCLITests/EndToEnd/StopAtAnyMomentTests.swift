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
        // fast is `scripts/bench-stop`'s to measure. In parallel runs this once took more than the
        // 30 s waited before (passes came after 6–40 s): the test process may have SIGTERM ignored
        // and the node inherited that (see the next test). The wait stays generous: 90 s.
        let status = await run.waitForExit(timeout: .seconds(90))
        #expect(status != nil, "still running after SIGTERM: \(run.stderr)")
    }

    /// Started with SIGTERM ignored (a parent that ignores it): a SIGTERM during the start, before
    /// the runner's signal sources are in place, still ends the node. It used to be discarded, and
    /// the node ran on.
    @Test func sigtermDuringTheStartEndsANodeThatInheritedItIgnored() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let sound = try SilentSoundServer()
        let run = try RunningBinary(
            ["run"], environment: Self.environment(home, sound: sound), ignoringStopSignals: true)
        defer { run.kill() }
        // Once sh has become clawtalk (the ignored disposition carries over the exec); its start
        // then takes a second or more (the device listing waits 1 s for the silent server).
        #expect(await run.waitUntil { run.command == "clawtalk" }, "\(run.stderr)")
        let started = run.stderr.contains("service.started")
        run.send(SIGTERM)
        let status = await run.waitForExit(timeout: .seconds(30))
        #expect(status != nil, "still running 30 s after SIGTERM: \(run.stderr)")
        #expect(!started, "the SIGTERM came after the start, not the moment this test is for: \(run.stderr)")
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
