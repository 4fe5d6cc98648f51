import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// Checklist items 29–30: command policy and capability approval (protocol.md §8.4, §13).
@Suite(.timeLimit(.minutes(1))) struct CapabilityTests {
    struct PolicyRow: Sendable, CustomStringConvertible {
        let caps: [String]
        let commands: [String]
        let allow: [String]
        let deny: [String]
        let command: String
        let refusal: String?
        var description: String { "\(command) caps=\(caps) commands=\(commands) allow=\(allow) deny=\(deny)" }
    }

    static let policyRows: [PolicyRow] = [
        PolicyRow(
            caps: ["talk"], commands: Fixture.talkCommands, allow: [], deny: [], command: "talk.ptt.start", refusal: nil
        ),
        PolicyRow(caps: [], commands: ["talk.ptt.once"], allow: [], deny: [], command: "talk.ptt.once", refusal: nil),
        PolicyRow(
            caps: ["talk"], commands: ["talk.ptt.start"], allow: [], deny: [], command: "talk.ptt.stop",
            refusal: "command not declared by the node"),
        PolicyRow(
            caps: ["camera"], commands: ["camera.snap"], allow: [], deny: [], command: "camera.snap",
            refusal: "command not allowlisted"),
        PolicyRow(
            caps: ["camera"], commands: ["camera.snap"], allow: ["camera.snap"], deny: [], command: "camera.snap",
            refusal: nil),
        PolicyRow(
            caps: ["talk"], commands: Fixture.talkCommands, allow: ["talk.ptt.once"], deny: ["talk.ptt.once"],
            command: "talk.ptt.once", refusal: "command not allowlisted"),
    ]

    @Test(arguments: policyRows)
    func onlyDeclaredApprovedAndAllowlistedCommandsAreDispatched(row: PolicyRow) async throws {  // 29
        let (gateway, _) = Fixture.gateway { config in
            config.allowCommands = row.allow
            config.denyCommands = row.deny
        }
        var builder = ConnectBuilder()
        builder.caps = row.caps
        builder.commands = row.commands
        let node = try await connected(gateway, builder)
        let invoke = Task { await gateway.invoke(nodeId: Fixture.deviceId, command: row.command, timeoutMs: 2_000) }
        if let refusal = row.refusal {
            #expect(
                await invoke.value
                    == .refused(
                        code: "INVALID_REQUEST", message: "node command not allowed: \(refusal) (\(row.command))"))
            let sent = await gateway.recordedFrames(connection: node.client.connection).contains {
                $0.event == "node.invoke.request"
            }
            #expect(!sent)
        } else {
            let request = try #require(try await node.client.event("node.invoke.request")["payload"])
            #expect(request["command"] == .string(row.command))
            _ = try await node.client.call(
                "node.invoke.result", ["id": request["id"] ?? .null, "nodeId": .string(Fixture.deviceId), "ok": true])
            #expect(await invoke.value == .ok(payloadJSON: nil, payload: nil))
        }
    }

    @Test func commandsStayFilteredUntilCapabilityApprovalAndAReconnect() async throws {  // 30
        let (gateway, _) = Fixture.gateway()
        let first = try await connected(gateway, approveSurface: false)
        let request = try #require(await gateway.pendingCapabilityRequests.first)
        #expect(request.nodeId == Fixture.deviceId)
        #expect(Set(request.commands) == Set(Fixture.talkCommands))
        #expect(request.caps == ["talk"])
        #expect(
            await gateway.invoke(nodeId: Fixture.deviceId, command: "talk.ptt.start")
                == .refused(
                    code: "INVALID_REQUEST", message: "node command not allowed: command not approved (talk.ptt.start)")
        )
        try await gateway.approveCapabilities(requestId: request.requestId)
        let resolved = try await first.client.event("node.pair.resolved")
        #expect(resolved["payload"]?["requestId"] == .string(request.requestId))
        #expect(resolved["payload"]?["decision"] == "approved")
        // Not applied to the live socket (the node must reconnect).
        #expect(await gateway.session(connection: first.client.connection)?.effectiveCommands == [])
        first.client.socket.close(code: 1000, reason: "reconnect")
        let second = try await attempt(gateway)
        #expect(
            await gateway.session(connection: second.client.connection)?.effectiveCommands == Set(Fixture.talkCommands))
        #expect(await gateway.pendingCapabilityRequests.isEmpty)
    }

    @Test func liveApprovalModeUpdatesTheOpenSocket() async throws {  // 30 (UNVERIFIED upstream variant)
        let (gateway, _) = Fixture.gateway { $0.capabilityApprovalAppliesLive = true }
        let node = try await connected(gateway, approveSurface: false)
        let request = try #require(await gateway.pendingCapabilityRequests.first)
        try await gateway.approveCapabilities(requestId: request.requestId)
        #expect(
            await gateway.session(connection: node.client.connection)?.effectiveCommands == Set(Fixture.talkCommands))
    }

    @Test func wideningTheSurfaceCreatesARequestWhileApprovedCommandsKeepWorking() async throws {  // 30
        let (gateway, _) = Fixture.gateway()
        var narrow = ConnectBuilder()
        narrow.commands = ["talk.ptt.start", "talk.ptt.stop"]
        _ = try await connected(gateway, narrow)
        #expect(await gateway.pendingCapabilityRequests.isEmpty)
        let wide = try await attempt(gateway)
        #expect(wide.ok)
        let request = try #require(await gateway.pendingCapabilityRequests.first)
        #expect(Set(request.commands) == Set(Fixture.talkCommands))
        #expect(
            await gateway.observedEvents.contains(
                .capabilityRequested(requestId: request.requestId, nodeId: Fixture.deviceId)))
        let start = Task { await gateway.invoke(nodeId: Fixture.deviceId, command: "talk.ptt.start") }
        let invoke = try #require(try await wide.client.event("node.invoke.request")["payload"])
        _ = try await wide.client.call(
            "node.invoke.result",
            [
                "id": invoke["id"] ?? .null, "nodeId": .string(Fixture.deviceId), "ok": true,
                "payloadJSON": #"{"captureId":"c"}"#,
            ])
        #expect(await start.value == .ok(payloadJSON: #"{"captureId":"c"}"#, payload: nil))
        guard case .refused = await gateway.invoke(nodeId: Fixture.deviceId, command: "talk.ptt.once") else {
            Issue.record("talk.ptt.once was dispatched before approval")
            return
        }
    }
}
