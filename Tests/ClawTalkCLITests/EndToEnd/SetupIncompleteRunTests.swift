import ClawTalkTesting
import Foundation
import Testing

/// `clawtalk run` with nothing installed in the data directory says, once at start, which speech
/// pieces are missing and which command installs them, and still runs.
@Suite("clawtalk run without the speech pieces")
struct SetupIncompleteRunTests {
    @Test func runNamesTheMissingPiecesAndTheFixAndKeepsRunning() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        var environment = home.environment
        environment["CLAWTALK_WAKE_ENABLED"] = "false"
        let run = try RunningBinary(["run"], environment: environment)
        defer { run.kill() }
        #expect(await run.waitForOutput("service.started"), "\(run.stderr)")
        let line = try #require(run.stderr.split(separator: "\n").first { $0.contains("setup.incomplete") })
        // The test binary is built in the clone (.build), so the fix is the clone's script.
        #expect(line.contains("fix=scripts/setup"), "\(line)")
        #expect(line.contains("Whisper base model (models/whisper-base/model.bin)"), "\(line)")
        #expect(line.contains("keyword scorer (venv/bin/clawtalk-wake)"), "\(line)")
        #expect(run.isRunning)
        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
    }
}
