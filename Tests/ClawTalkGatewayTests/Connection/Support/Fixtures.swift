import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation

/// Shared test inputs: the spec's fixture identity, temporary state directories, connections.
enum Fixtures {
    /// The protocol.md §6.4 identity (seed 0x00…0x1f).
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

    /// A connection with the spec's timeouts on `clock`: a manual clock, so no timeout, backoff
    /// or re-probe runs out unless the test advances it (a test that never advances it sees none).
    static func connection(
        role: ConnectionRole = .node(NodeSurface()), endpoint: GatewayEndpoint = localEndpoint,
        dialer: ScriptedDialer, store: GatewayStore, sharedToken: String? = nil, password: String? = nil,
        timeouts: ConnectionTimeouts = ConnectionTimeouts(), clock: ManualClock = ManualClock(),
        logger: Logger = .discarding
    ) throws -> GatewayConnection {
        let configuration = GatewayConnectionConfiguration(
            endpoint: endpoint, role: role,
            client: ClientMetadata(version: "0.1.0", displayName: "Kitchen Pi", instanceId: "inst-1", locale: "en-US"),
            sharedToken: sharedToken, password: password, timeouts: timeouts)
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

    /// A wait for a state that did not come.
    struct StateNotReached: Error, CustomStringConvertible {
        let description: String
    }

    /// Lets the tick watchdog of a socket that went live at time 0 fire: until live it looks
    /// every 250 ms; live, it sleeps until `window` (2 × `tickIntervalMs`) of silence.
    static func expireWatchdog(after window: Duration, on clock: ManualClock) async throws {
        try await clock.waitForSleeper(until: .milliseconds(250))
        clock.advance(by: .milliseconds(250))
        try await clock.waitForSleeper(until: window)
        clock.advance(by: window - .milliseconds(250))
    }

    /// Lets the connection's reconnect wait run out: waits until its state is
    /// `waiting(retryIn: delay)` (by then the socket that ended, and its timers, are gone), then
    /// until its run loop sleeps `delay` on `clock`, and advances `clock` by `delay`.
    static func reconnect(
        _ connection: GatewayConnection, after delay: Duration, on clock: ManualClock
    ) async throws {
        do {
            try await waitForState(connection) { state in
                guard case .waiting(let retryIn, _) = state else { return false }
                return retryIn == delay
            }
        } catch is TimeoutError {
            let state = await connection.state
            throw StateNotReached(description: "not waiting \(delay) to reconnect; state: \(state)")
        }
        try await clock.advanceToSleeper(in: delay)
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
