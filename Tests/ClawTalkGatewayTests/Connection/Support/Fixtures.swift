import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import Foundation

/// Shared test inputs: the spec's fixture identity, temporary state directories, connections.
enum Fixtures {
    /// The §6.4 identity (seed 0x00…0x1f).
    static func identity() throws -> DeviceIdentity {
        try DeviceIdentity(seed: Array(0..<32), createdAtMs: 1_700_000_000_000)
    }

    static let localEndpoint = try! GatewayEndpoint.parse("ws://127.0.0.1:18789")

    /// A store in a fresh temporary state directory; call `remove()` on the directory when done.
    static func store() throws -> (store: GatewayStore, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let state = try StateDirectory(path: directory.path + "/state")
        return (GatewayStore(directory: state), directory)
    }

    static func connection(
        role: ConnectionRole = .node(NodeSurface()), endpoint: GatewayEndpoint = localEndpoint,
        dialer: ScriptedDialer, store: GatewayStore, sharedToken: String? = nil, password: String? = nil,
        timeouts: ConnectionTimeouts = ConnectionTimeouts(), clock: FastClock = FastClock(),
        logger: Logger = .discarding, reprobeInterval: Duration = .seconds(60)
    ) throws -> GatewayConnection {
        let configuration = GatewayConnectionConfiguration(
            endpoint: endpoint, role: role,
            client: ClientMetadata(version: "0.1.0", displayName: "Kitchen Pi", instanceId: "inst-1", locale: "en-US"),
            sharedToken: sharedToken, password: password, timeouts: timeouts, pairingReprobeInterval: reprobeInterval)
        return GatewayConnection(
            configuration: configuration, dialer: dialer, identity: try identity(), store: store, clock: clock,
            logger: logger, jitter: .none)
    }

    /// Waits (real time) until the connection's state satisfies `predicate`.
    @discardableResult
    static func waitForState(
        _ connection: GatewayConnection, within timeout: Duration = .seconds(30),
        _ predicate: @escaping @Sendable (ConnectionState) -> Bool
    ) async throws -> ConnectionState {
        let states = await connection.states()
        return try await withTimeout(timeout) {
            for await state in states where predicate(state) { return state }
            throw CancellationError()
        }
    }
}

/// A directory under the system temp dir.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("clawtalk-conn-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
