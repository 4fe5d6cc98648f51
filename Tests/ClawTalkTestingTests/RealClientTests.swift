import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

/// Cross-check: the project's real ``GatewayConnection`` against the test gateway. A correct
/// client must get through every rule the gateway enforces (closed schemas, signatures, pairing).
@Suite(.timeLimit(.minutes(1))) struct RealClientTests {
    final class StateFolder: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ct-tg-\(UUID().uuidString)").path
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    func makeConnection(
        _ gateway: TestGateway, role: ConnectionRole, folder: StateFolder, sharedToken: String? = "shared"
    ) throws -> GatewayConnection {
        let store = GatewayStore(directory: try StateDirectory(path: folder.path))
        let configuration = GatewayConnectionConfiguration(
            endpoint: try GatewayEndpoint.parse("ws://127.0.0.1:18789"), role: role,
            client: ClientMetadata(version: "0.1.0", displayName: "Kitchen Pi", instanceId: "inst-1", locale: "en-US"),
            sharedToken: sharedToken)
        return GatewayConnection(
            configuration: configuration, dialer: gateway.dialer(), identity: Fixture.identity, store: store,
            jitter: .none)
    }

    func waitFor(
        _ connection: GatewayConnection, _ predicate: @escaping @Sendable (ConnectionState) -> Bool
    ) async throws -> ConnectionState {
        let states = await connection.states()
        let deadline = ContinuousClock.now + .seconds(30)
        for await state in states {
            if predicate(state) { return state }
            if ContinuousClock.now > deadline { break }
        }
        throw ClientError(description: "state not reached")
    }

    @Test func theRealNodeAndOperatorConnectionsPassEveryHandshakeRule() async throws {
        let (gateway, _) = Fixture.gateway { config in
            config.auth = .token("shared")
            config.autoApproveLoopback = true
        }
        let folder = StateFolder()
        let node = try makeConnection(gateway, role: .node(NodeSurface()), folder: folder)
        let runner = Task { await node.run() }
        defer { runner.cancel() }
        _ = try await waitFor(node) { $0.isConnected }
        let session = try #require(await gateway.sessions.first { $0.isNode })
        #expect(session.deviceId == Fixture.deviceId)
        #expect(Set(session.declaredCommands) == Set(Fixture.talkCommands))
        #expect(session.signatureVersion == .v3)
        #expect(
            await node.hello?.auth?.deviceToken == (await gateway.deviceToken(deviceId: Fixture.deviceId, role: "node"))
        )
        let answer = try await node.request(
            method: "node.event", params: try WireJSON(encoding: try NodeEventParams.chatSubscribe(sessionKey: "main")))
        #expect(answer == ["ok": true, "event": "chat.subscribe", "handled": true])

        let op = try makeConnection(gateway, role: .operator, folder: folder)
        let opRunner = Task { await op.run() }
        defer { opRunner.cancel() }
        _ = try await waitFor(op) { $0.isConnected }
        #expect(await gateway.pairedRoles(deviceId: Fixture.deviceId) == ["node", "operator"])
        let config = try await op.request(method: "talk.config")
        #expect(try TalkConfig(json: config).hasAPIKey == false)
        await op.stop()
        await node.stop()
        await runner.value
        await opRunner.value
    }

    @Test func theRealNodeRecoversFromRevocationWithTheSharedSecret() async throws {  // 35
        let (gateway, _) = Fixture.gateway { config in
            config.auth = .token("shared")
            config.autoApproveLoopback = true
        }
        let folder = StateFolder()
        let node = try makeConnection(gateway, role: .node(NodeSurface()), folder: folder)
        let runner = Task { await node.run() }
        _ = try await waitFor(node) { $0.isConnected }
        let firstToken = try #require(await gateway.deviceToken(deviceId: Fixture.deviceId, role: "node"))
        // Reconnect once so the stored device token is what the node sends.
        await gateway.close(
            connection: try #require(await gateway.sessions.first?.connection), code: 4002,
            reason: "bounce")
        _ = try await gateway.waitForEvent {
            if case .connected(2, _, _) = $0 { return true }; return false
        }
        #expect(await gateway.session(connection: 2)?.authMethod == .deviceToken)
        await gateway.revokeDeviceToken(deviceId: Fixture.deviceId, role: "node")
        let rejected = try await gateway.waitForEvent {
            if case .rejected(3, _, _) = $0 { return true }; return false
        }
        #expect(rejected == .rejected(connection: 3, code: "INVALID_REQUEST", detailCode: "AUTH_DEVICE_TOKEN_MISMATCH"))
        _ = try await gateway.waitForEvent {
            if case .connected(4, _, _) = $0 { return true }; return false
        }
        #expect(await gateway.session(connection: 4)?.authMethod == .token)
        #expect(await gateway.deviceToken(deviceId: Fixture.deviceId, role: "node") != firstToken)
        await node.stop()
        await runner.value
    }
}
