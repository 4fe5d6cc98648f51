import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Synchronization

/// A private state directory for one test, removed when released.
final class TemporaryFolder: Sendable {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("ct-talk-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The project's test gateway with the real node and operator connections and sessions over
/// in-memory sockets. Nothing connects until ``startNode()`` / ``startOperator()``.
final class GatewayHarness: Sendable {
    static let url = "ws://127.0.0.1:18789"

    let gateway: TestGateway
    let folder = TemporaryFolder()
    let state: StateDirectory
    let store: GatewayStore
    let node: GatewayConnection
    let nodeSession: NodeSession
    let operatorConnection: GatewayConnection
    let operatorSession: OperatorSession
    private let tasks = Mutex<[Task<Void, Never>]>([])

    init(
        script: OperatorScript = OperatorScript(),
        configure: @Sendable (inout TestGatewayConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = TestGatewayConfiguration()
        configuration.auth = .token("shared")
        configuration.autoApproveLoopback = true
        configure(&configuration)
        gateway = TestGateway(configuration: configuration, script: script)
        state = try StateDirectory(path: folder.path)
        store = GatewayStore(directory: state)
        let identity = try DeviceIdentity.generate()
        let endpoint = try GatewayEndpoint.parse(Self.url)
        let client = ClientMetadata(version: "0.1.0", displayName: "Test Pi", instanceId: "inst-1", locale: "en-US")
        node = GatewayConnection(
            configuration: GatewayConnectionConfiguration(
                endpoint: endpoint, role: .node(NodeSurface()), client: client, sharedToken: "shared"),
            dialer: gateway.dialer(), identity: identity, store: store, jitter: .none)
        operatorConnection = GatewayConnection(
            configuration: GatewayConnectionConfiguration(
                endpoint: endpoint, role: .operator, client: client, sharedToken: "shared"),
            dialer: gateway.dialer(), identity: identity, store: store, jitter: .none)
        nodeSession = NodeSession(connection: node)
        operatorSession = OperatorSession(connection: operatorConnection)
        // The sessions follow their connections from the start.
        let nodeSession = nodeSession
        let operatorSession = operatorSession
        tasks.locked {
            $0.append(Task { await nodeSession.run() })
            $0.append(Task { await operatorSession.run() })
        }
    }

    /// The gateway key both connections use.
    var gatewayKey: String { node.gatewayKey }

    /// Runs the node connection and waits until the node session is connected.
    func startNode() async throws {
        let node = node
        tasks.locked { $0.append(Task { await node.run() }) }
        try await Self.wait("node session connected") { await self.nodeSession.isConnected }
    }

    /// Runs the operator connection and waits until the operator session is connected.
    func startOperator() async throws {
        let connection = operatorConnection
        tasks.locked { $0.append(Task { await connection.run() }) }
        try await Self.wait("operator session connected") { await self.operatorSession.isConnected }
    }

    /// Both, node first (as the service does).
    func startBoth() async throws {
        try await startNode()
        try await startOperator()
    }

    /// Stops both connections and the session loops.
    func stop() async {
        await node.stop()
        await operatorConnection.stop()
        for task in tasks.locked({ $0 }) { task.cancel() }
    }

    /// Params of every executed operator call of `method`, in order.
    func operatorCalls(_ method: String) async -> [WireJSON] {
        await gateway.observedEvents.compactMap { event in
            if case .operatorCall(_, method, let params) = event { return params ?? .null }
            return nil
        }
    }

    /// Payloads of every accepted node event named `name`, in order.
    func nodeEvents(_ name: String) async -> [WireJSON] {
        await gateway.observedEvents.compactMap { event in
            if case .nodeEvent(_, name, let payload) = event { return payload ?? .null }
            return nil
        }
    }

    /// Waits until `condition` holds (``eventually(within:_:)``); generous by default, since
    /// other suites may keep a busy machine's cores.
    static func wait(
        _ what: String, timeout: Duration = .seconds(30), _ condition: @Sendable () async -> Bool
    ) async throws {
        guard await eventually(within: timeout, condition) else {
            throw HarnessError(description: "timed out waiting for \(what)")
        }
    }
}

/// A harness step that did not happen in time.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
}

/// A wall clock the test moves by hand (milliseconds).
final class ManualWallClock: Sendable {
    private let value: Mutex<Int64>

    init(startMs: Int64 = 1_800_000_000_000) {
        value = Mutex(startMs)
    }

    var nowMs: Int64 { value.locked { $0 } }

    func advance(by duration: Duration) {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        value.locked { $0 += ms }
    }

    /// The closure components take as `now`.
    var now: @Sendable () -> Int64 { { self.nowMs } }
}

/// A value behind a lock, shareable between tasks and closures.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value { storage.locked { $0 } }

    func update(_ body: (inout Value) -> Void) {
        storage.locked { body(&$0) }
    }
}
