import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// `clawtalk run`, `status` and `gateways` (the built binary) against test gateways over real
/// loopback WebSockets: restart, pairing approval with SIGHUP, switching gateways.
@Suite("Service end to end", .serialized, .timeLimit(.minutes(3)))
struct ServiceEndToEndTests {
    /// A gateway that admits loopback devices silently (shared token), like a local gateway does.
    func localGateway() async throws -> (TestGateway, String) {
        try await EndToEnd.gateway { configuration in
            configuration.auth = .token("s3cret")
            configuration.autoApproveLoopback = true
        }
    }

    @Test func runReconnectsAfterAGatewayRestartAndStatusShowsIt() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await localGateway()
        defer { Task { await gateway.stopListening() } }
        var environment = home.environment
        environment["CLAWTALK_GATEWAY_URL"] = url
        environment["CLAWTALK_GATEWAY_TOKEN"] = "s3cret"
        let run = try RunningBinary(["run"], environment: environment)
        defer { run.kill() }

        let first = try await EndToEnd.connected(gateway)
        let session = try #require(await gateway.session(connection: first))
        #expect(session.caps == ["talk", "voiceWake"], "wake.enabled is on by default")
        #expect(
            session.declaredCommands == ["talk.ptt.start", "talk.ptt.stop", "talk.ptt.cancel", "talk.ptt.once"],
            "run registers the talk.ptt.* handlers")
        #expect(await run.waitUntil { EndToEnd.roleField(EndToEnd.status(home), "node", "state") == "connected" })
        #expect(await run.waitUntil { EndToEnd.roleField(EndToEnd.status(home), "operator", "state") == "connected" })
        let firstConnId = EndToEnd.roleField(EndToEnd.status(home), "node", "connId")

        // `clawtalk status` reads the snapshot.
        let status = try await ClawTalkBinary.run(["status"], environment: environment)
        #expect(status.status == 0)
        #expect(status.output.contains("running (pid \(run.pid)"), "\(status.output)")
        #expect(status.output.contains("\(url)/ (key 127.0.0.1:"), "\(status.output)")
        #expect(status.output.contains("device:      \(session.deviceId)"), "\(status.output)")
        #expect(status.output.contains("node:        connected as node (protocol 4"), "\(status.output)")
        let json = try await ClawTalkBinary.run(["status", "--json"], environment: environment)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(report["running"] as? Bool == true)
        #expect(EndToEnd.roleField(report["service"] as? [String: Any], "node", "state") == "connected")

        // Restart: shutdown + 1012; the node comes back on a new connection.
        await gateway.shutdown(reason: "test restart", restartExpectedMs: .ms(500))
        #expect(try await EndToEnd.closeCode(gateway, connection: first) == 1012)
        let again = try await EndToEnd.connected(gateway, number: 2)
        #expect(again != first)
        #expect(await gateway.session(connection: again)?.authMethod == .deviceToken)
        #expect(
            await run.waitUntil {
                let status = EndToEnd.status(home)
                return EndToEnd.roleField(status, "node", "state") == "connected"
                    && EndToEnd.roleField(status, "node", "connId") != firstConnId
            })
        let snapshot = EndToEnd.status(home)
        #expect((snapshot?["lastError"] as? String)?.contains("restart") == true, "\(snapshot ?? [:])")

        // SIGTERM: both sockets close with 1000, exit 0, snapshot removed.
        let operatorConnection = try await EndToEnd.connected(gateway, role: "operator", number: 2)
        // The stop itself is bounded by the runner's 300 ms grace (work still running then is
        // abandoned); how fast it is belongs in `clawtalk bench`. Here: it stops, not hangs.
        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
        #expect(try await EndToEnd.closeCode(gateway, connection: again) == 1000)
        #expect(try await EndToEnd.closeCode(gateway, connection: operatorConnection) == 1000)
        #expect(EndToEnd.status(home) == nil)
        let offline = try await ClawTalkBinary.run(["status"], environment: environment)
        #expect(offline.output.hasPrefix("clawtalk is not running"))
    }

    @Test func runShowsAPendingPairingAndSighupConnectsAfterApproval() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await EndToEnd.gateway { $0.auth = .token("s3cret") }
        defer { Task { await gateway.stopListening() } }
        var environment = home.environment
        environment["CLAWTALK_GATEWAY_URL"] = url
        environment["CLAWTALK_GATEWAY_TOKEN"] = "s3cret"
        let run = try RunningBinary(["run"], environment: environment)
        defer { run.kill() }

        #expect(await run.waitUntil { EndToEnd.roleField(EndToEnd.status(home), "node", "state") == "paused" })
        let request = try #require(await gateway.pendingPairingRequests.first)
        let approve = "openclaw devices approve \(request.requestId)"
        #expect(await run.waitForOutput(approve), "the journal names the approval command")
        let node = EndToEnd.status(home)?["node"] as? [String: Any]
        #expect((node?["pairing"] as? [String: Any])?["approvalCommand"] as? String == approve)
        #expect(EndToEnd.roleField(EndToEnd.status(home), "operator", "state") == "waiting-for-node")
        let status = try await ClawTalkBinary.run(["status"], environment: environment)
        #expect(status.output.contains("node request \(request.requestId) pending"), "\(status.output)")
        #expect(status.output.contains(approve))

        try await gateway.approve(requestId: request.requestId)
        run.send(SIGHUP)
        #expect(
            await run.waitUntil(timeout: .seconds(20)) {
                EndToEnd.roleField(EndToEnd.status(home), "node", "state") == "connected"
            }, "SIGHUP resumes the paused connection at once (the re-probe would take 60 s)")
        #expect(run.isRunning)
        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
    }

    @Test func statusWatchPrintsEachChangeUntilStopped() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let watch = try RunningBinary(["status", "--watch"], environment: home.environment)
        defer { watch.kill() }
        #expect(await watch.waitForOutput("clawtalk is not running"))
        // A service without a gateway: the watcher prints the new state (not a terminal: appended).
        let run = try RunningBinary(["run"], environment: home.environment)
        defer { run.kill() }
        #expect(await watch.waitForOutput("node:        no gateway configured"), "\(watch.stdout)")
        #expect(watch.stdout.hasPrefix("clawtalk is not running"), "the first rendering stays")
        #expect(!watch.stdout.contains("\u{1B}["), "no screen control codes without a terminal")
        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
        #expect(
            await watch.waitUntil { watch.stdout.components(separatedBy: "clawtalk is not running").count >= 3 },
            "\(watch.stdout)")
        #expect(
            watch.stdout.components(separatedBy: "clawtalk is not running").count == 3,
            "the stop printed once: \(watch.stdout)")
        watch.send(SIGTERM)
        #expect(await watch.waitForExit() == 0)
    }

    @Test func gatewaysListUseAndForget() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (first, firstURL) = try await localGateway()
        let (second, secondURL) = try await localGateway()
        defer {
            Task {
                await first.stopListening()
                await second.stopListening()
            }
        }
        // Register both as `clawtalk pair --gateway-url … --token …` would, the second current.
        for url in [firstURL, secondURL] {
            let paired = try await ClawTalkBinary.run(
                ["pair", "--gateway-url", url, "--token", "s3cret"], environment: home.environment)
            #expect(paired.status == 0, "stderr: \(paired.error)")
        }
        let firstKey = try GatewayEndpoint.parse(firstURL).gatewayKey
        let secondKey = try GatewayEndpoint.parse(secondURL).gatewayKey
        let list = try await ClawTalkBinary.run(["gateways", "list"], environment: home.environment)
        #expect(list.output.contains("  \(firstKey)\n    url:    \(firstURL)/\n    tokens: node\n"), "\(list.output)")
        #expect(list.output.contains("* \(secondKey)\n"), "\(list.output)")

        // The service follows `gateways use` (SIGHUP): the old socket closes, the new one opens.
        let run = try RunningBinary(
            ["run"], environment: home.environment.merging(["CLAWTALK_GATEWAY_OPERATOR_ENABLED": "false"]) { $1 })
        defer { run.kill() }
        let onSecond = try await EndToEnd.connected(second, number: 2)
        #expect(await run.waitUntil { EndToEnd.roleField(EndToEnd.status(home), "node", "state") == "connected" })
        let use = try await ClawTalkBinary.run(
            ["gateways", "use", firstURL], environment: home.environment)
        #expect(use.status == 0)
        #expect(use.output.contains("\(firstKey) is now the current gateway"))
        #expect(use.output.contains("told the running clawtalk service (pid \(run.pid)) to switch"))
        #expect(try await EndToEnd.closeCode(second, connection: onSecond) == 1000)
        _ = try await EndToEnd.connected(first, number: 2)
        #expect(
            await run.waitUntil {
                let status = EndToEnd.status(home)
                return (status?["gateway"] as? [String: Any])?["key"] as? String == firstKey
                    && EndToEnd.roleField(status, "node", "state") == "connected"
            })
        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)

        // forget needs --yes without a terminal; with it, the gateway's files are gone.
        let unconfirmed = try await ClawTalkBinary.run(
            ["gateways", "forget", secondKey], environment: home.environment)
        #expect(unconfirmed.status == 64)
        #expect(unconfirmed.error.contains("pass --yes"))
        #expect(
            EndToEnd.gatewayFiles(home).filter { $0.contains(secondKey.replacingOccurrences(of: ":", with: "%3A")) }
                .count == 2)
        let forgot = try await ClawTalkBinary.run(
            ["gateways", "forget", "--yes", secondKey], environment: home.environment)
        #expect(forgot.status == 0)
        #expect(forgot.output.contains("forgot \(secondKey)"))
        let remaining = EndToEnd.gatewayFiles(home)
        #expect(
            !remaining.contains { $0.contains(secondKey.replacingOccurrences(of: ":", with: "%3A")) }, "\(remaining)")
        #expect(remaining.count == 2, "the first gateway's record and secret stay: \(remaining)")
        let after = try await ClawTalkBinary.run(
            ["gateways", "list", "--json"], environment: home.environment)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(after.output.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["key"] as? String } == [firstKey])
        #expect(entries.first?["current"] as? Bool == true)
        let unknown = try await ClawTalkBinary.run(
            ["gateways", "use", secondKey], environment: home.environment)
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("unknown gateway"))
    }
}
