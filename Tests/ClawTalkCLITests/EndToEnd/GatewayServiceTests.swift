import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkCLI
@testable import ClawTalkNode

/// ``GatewayService`` in process, with the production ``WebSocketDialer``, against the test
/// gateway on a real loopback WebSocket: stalled ticks, revocation, oversized frames.
@Suite("Gateway service", .serialized, .timeLimit(.minutes(1)))
struct GatewayServiceTests {
    /// A running service and what it runs against.
    struct Running {
        let service: GatewayService
        let task: Task<Void, Never>
        let store: GatewayStore
        let identity: DeviceIdentity
        let key: String

        /// Waits for a status snapshot matching `predicate`.
        func status(
            timeout: Duration = .seconds(30), _ predicate: @escaping @Sendable (ServiceStatus) -> Bool
        ) async throws -> ServiceStatus {
            let updates = await service.statusUpdates()
            let found = await withTaskGroup(of: ServiceStatus?.self) { group in
                group.addTask {
                    for await status in updates where predicate(status) { return status }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let found else { throw EndToEndError("status not reached within \(timeout)") }
            return found
        }

        func stop() async {
            task.cancel()
            await task.value
        }
    }

    /// Starts a service for the gateway at `url` (operator off unless asked) in a temp state dir.
    func start(url: String, sharedToken: String? = nil, operatorEnabled: Bool = false, home: TemporaryHome) throws
        -> Running
    {
        var settings = Settings()
        settings.gateway.url = url
        settings.gateway.token = sharedToken
        settings.gateway.operator.enabled = operatorEnabled
        let state = try StateDirectory(path: home.state + "/clawtalk")
        let identity = try DeviceIdentity.generate()
        let store = GatewayStore(directory: state)
        var factory = GatewayConnectionFactory(
            settings: settings, identity: identity, store: store, logger: .discarding,
            surface: NodeSurface(caps: [.talk], commands: [], permissions: [.microphone: false]))
        factory.backoff = Backoff.Configuration(initial: .milliseconds(200), maximum: .seconds(1))
        let service = GatewayService(
            factory: factory, statusFile: StatusFile(paths: XDGPaths(environment: home.environment)),
            logger: .discarding, reloadSignals: [])
        let task = Task { await service.run() }
        return Running(
            service: service, task: task, store: store, identity: identity,
            key: try GatewayEndpoint.parse(url).gatewayKey)
    }

    @Test func aStalledGatewayTripsTheWatchdogAndTheNodeReconnects() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await EndToEnd.gateway { configuration in
            configuration.autoApproveLoopback = true
            configuration.policy.tickIntervalMs = 150
        }
        defer { Task { await gateway.stopListening() } }
        let running = try start(url: url, home: home)
        let first = try await EndToEnd.connected(gateway)
        let connected = try await running.status { $0.node.state == "connected" }
        #expect(connected.gateway?.url == url + "/")

        await gateway.stall(connection: first)
        let stalledAt = ContinuousClock.now
        // protocol.md §4.3.2: the node writes 4000 "tick timeout" before it drops the socket, and the stalled
        // gateway still reads it. A bare TCP drop would be recorded without a code (1006).
        let close = try await EndToEnd.close(gateway, connection: first)
        #expect(close.code == 4000, "close code \(close.code.map(String.init) ?? "none (a bare drop)")")
        #expect(close.reason == "tick timeout")
        // 2 × tickIntervalMs (0.3 s) normally; the bound only has to tell it from the 60 s default.
        #expect(ContinuousClock.now - stalledAt < .seconds(30), "2 × tickIntervalMs, not the 60 s default")
        let second = try await EndToEnd.connected(gateway, number: 2)
        #expect(second != first)
        let back = try await running.status { $0.node.state == "connected" && $0.node.connId != connected.node.connId }
        #expect(back.lastError?.contains("tick watchdog") == true, "\(back.lastError ?? "nil")")
        await running.stop()
        // The connection `stop` closes: a node starved on a busy machine can miss more 150 ms ticks
        // after the reconnect, and rightly reconnect again.
        let last =
            await gateway.observedEvents.compactMap { event -> Int? in
                if case .connected(let id, "node", _) = event { return id }
                return nil
            }.last ?? second
        #expect(try await EndToEnd.closeCode(gateway, connection: last) == 1000)
    }

    @Test func aRevokedTokenIsClearedAndTheNodePausesWithANextStep() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await EndToEnd.gateway { $0.autoApproveLoopback = true }
        defer { Task { await gateway.stopListening() } }
        let running = try start(url: url, home: home)
        let first = try await EndToEnd.connected(gateway)
        _ = try await running.status { $0.node.state == "connected" }
        let deviceId = running.identity.deviceId
        #expect(try running.store.deviceToken(for: running.key, deviceId: deviceId, role: .node) != nil)

        await gateway.revokeDeviceToken(deviceId: deviceId, role: "node")
        #expect(try await EndToEnd.closeCode(gateway, connection: first) == 4001)
        _ = try await EndToEnd.event(gateway) {
            if case .rejected(_, _, "AUTH_DEVICE_TOKEN_MISMATCH") = $0 { return true }
            return false
        }
        let paused = try await running.status { $0.node.state == "paused" }
        #expect(paused.node.pause?.code == "AUTH_DEVICE_TOKEN_MISMATCH")
        #expect(paused.node.pause?.nextStep.contains("pair again") == true)
        #expect(try running.store.deviceToken(for: running.key, deviceId: deviceId, role: .node) == nil)
        let text = StatusReport.gather(service: paused, deviceId: nil, configuredURL: nil, store: nil).text
        #expect(text.contains("paused (AUTH_DEVICE_TOKEN_MISMATCH)"), "\(text)")
        #expect(text.contains("the device token was revoked: pair again"), "\(text)")
        #expect(text.contains("last error:"))
        await running.stop()
    }

    @Test func anOversizedFrameClosesWith1009AndTheNodeReconnects() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await EndToEnd.gateway { $0.autoApproveLoopback = true }
        defer { Task { await gateway.stopListening() } }
        let running = try start(url: url, home: home)
        let first = try await EndToEnd.connected(gateway)
        let connected = try await running.status { $0.node.state == "connected" }
        let limit = 26_214_400  // policy.maxPayload: the node's receive limit after hello-ok
        await gateway.send(
            event: "test.oversized", payload: .string(String(repeating: "x", count: limit + 1024)), connection: first)
        #expect(try await EndToEnd.closeCode(gateway, connection: first) == 1009)
        _ = try await EndToEnd.connected(gateway, number: 2)
        _ = try await running.status { $0.node.state == "connected" && $0.node.connId != connected.node.connId }
        await running.stop()
    }

    @Test func withoutAGatewayTheServiceWaitsAndReportsIt() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let state = try StateDirectory(path: home.state + "/clawtalk")
        let factory = GatewayConnectionFactory(
            settings: Settings(), identity: try DeviceIdentity.generate(), store: GatewayStore(directory: state),
            logger: .discarding, surface: NodeSurface(caps: [.talk], commands: []))
        let file = StatusFile(paths: XDGPaths(environment: home.environment))
        let service = GatewayService(factory: factory, statusFile: file, logger: .discarding, reloadSignals: [])
        let task = Task { await service.run() }
        let running = Running(
            service: service, task: task, store: factory.store, identity: factory.identity, key: "")
        let status = try await running.status { $0.node.state == "unconfigured" }
        #expect(status.gateway == nil)
        #expect(status.node.summary.contains("clawtalk pair"))
        #expect(try file.read()?.node.state == "unconfigured")
        await running.stop()
        #expect(try file.read() == nil, "removed on stop")
    }
}
