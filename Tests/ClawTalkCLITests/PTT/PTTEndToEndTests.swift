import ClawTalkDesktop
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Testing

/// `clawtalk run` (the built binary) serves `talk.ptt.*` to the gateway and `clawtalk ptt …` on
/// its control socket. Only idle commands are used, so no sound server is needed.
@Suite("Push-to-talk end to end", .serialized, .timeLimit(.minutes(3)))
struct PTTEndToEndTests {
    @Test func pttWithoutARunningServiceExits69() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        for action in ["start", "stop", "toggle", "cancel", "once"] {
            let result = try await ClawTalkBinary.run(["ptt", action], environment: home.environment)
            #expect(result.status == 69)
            #expect(result.output.isEmpty)
            #expect(
                result.error
                    == "Error: no clawtalk service is listening on \(home.runtime)/clawtalk/control.sock: "
                    + "is 'clawtalk run' running?\n")
        }
    }

    @Test func runDeclaresAndAnswersTalkPTTAndServesTheControlSocket() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, environment) = try await EndToEnd.nodeOnlyGateway(for: home)
        defer { Task { await gateway.stopListening() } }
        let run = try RunningBinary(["run"], environment: environment)
        defer { run.kill() }

        let connection = try await EndToEnd.connected(gateway)
        let session = try #require(await gateway.session(connection: connection))
        #expect(session.caps == ["talk", "voiceWake"], "wake.enabled is on by default")
        #expect(session.declaredCommands == PTTCommandHandlers.commands)
        let outcome = await gateway.invoke(
            nodeId: session.deviceId, command: "talk.ptt.stop", params: .json("{}"), timeoutMs: 15_000,
            bypassPolicy: true)
        guard case .ok(let payloadJSON?, _) = outcome else {
            Issue.record("talk.ptt.stop: \(outcome)\n\(run.stderr)")
            return
        }
        let payload = try #require(try WireJSON(parsing: payloadJSON).objectValue)
        #expect(payload["status"] == "idle")
        #expect(payload["transcript"] == .null)
        #expect(payload["captureId"]?.stringValue?.count == 36)

        let local = try await ClawTalkBinary.run(["ptt", "cancel"], environment: environment)
        #expect(local.status == 0, "\(local.error)")
        #expect(local.output.hasPrefix("idle "))
        let json = try await ClawTalkBinary.run(["ptt", "stop", "--json"], environment: environment)
        #expect(json.status == 0)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(answer["ok"] as? Bool == true)
        #expect(answer["status"] as? String == "idle")
        #expect(answer.keys.contains("transcript"))

        let status = try await ClawTalkBinary.run(["talk", "status"], environment: environment)
        #expect(status.status == 0, "\(status.error)")
        #expect(status.output == "off\n")
        let off = try await ClawTalkBinary.run(["talk", "off", "--json"], environment: environment)
        #expect(off.output == #"{"enabled":false,"ok":true,"status":"idle"}"# + "\n")

        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: home.runtime + "/clawtalk/control.sock"))
    }

    @Test func talkWithoutARunningServiceExits69() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let result = try await ClawTalkBinary.run(["talk", "on"], environment: home.environment)
        #expect(result.status == 69)
        #expect(result.error.hasPrefix("Error: no clawtalk service is listening on "))
    }
}
