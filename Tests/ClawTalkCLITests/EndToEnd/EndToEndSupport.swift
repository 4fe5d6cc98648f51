import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

/// Shared pieces of the end-to-end tests: a ``TestGateway`` listening on a real loopback
/// WebSocket, the state files the binary writes, and a self-signed certificate.
enum EndToEnd {
    /// A gateway on real time (signatures are checked against the wall clock), listening on a free
    /// loopback port; returns it and its `ws://` (or `wss://` with `tls`) URL.
    static func gateway(
        tls: (certificatePath: String, keyPath: String)? = nil,
        _ configure: @Sendable (inout TestGatewayConfiguration) -> Void = { _ in }
    ) async throws -> (TestGateway, String) {
        var configuration = TestGatewayConfiguration()
        configure(&configuration)
        let gateway = TestGateway(configuration: configuration)
        let url = try await gateway.listen(tls: tls)
        return (gateway, url)
    }

    /// A listening gateway with token `s3cret` that approves loopback pairing, and `home`'s
    /// environment pointed at it in node-only mode (no operator connection).
    static func nodeOnlyGateway(for home: TemporaryHome) async throws -> (TestGateway, [String: String]) {
        let (gateway, url) = try await gateway { configuration in
            configuration.auth = .token("s3cret")
            configuration.autoApproveLoopback = true
        }
        var environment = home.environment
        environment["CLAWTALK_GATEWAY_URL"] = url
        environment["CLAWTALK_GATEWAY_TOKEN"] = "s3cret"
        environment["CLAWTALK_GATEWAY_OPERATOR_ENABLED"] = "false"
        return (gateway, environment)
    }

    /// The first harness event matching `predicate`, or a test failure after `timeout`.
    static func event(
        _ gateway: TestGateway, timeout: Duration = .seconds(30),
        _ predicate: @escaping @Sendable (TestGatewayEvent) -> Bool
    ) async throws -> TestGatewayEvent {
        try await gateway.waitForEvent(timeout: timeout, where: predicate)
    }

    /// The connection id of the `n`-th `hello-ok` sent for `role` (1-based).
    static func connected(
        _ gateway: TestGateway, role: String = "node", number: Int = 1, timeout: Duration = .seconds(30)
    ) async throws -> Int {
        try await gateway.connection(role: role, number: number, timeout: timeout)
    }

    /// The close the gateway saw for `connection`.
    static func closeCode(_ gateway: TestGateway, connection: Int, timeout: Duration = .seconds(30)) async throws
        -> Int?
    {
        try await close(gateway, connection: connection, timeout: timeout).code
    }

    /// The close code (nil: the connection ended without a close frame) and reason the gateway
    /// saw for `connection`.
    static func close(_ gateway: TestGateway, connection: Int, timeout: Duration = .seconds(30)) async throws
        -> (code: Int?, reason: String)
    {
        let event = try await self.event(gateway, timeout: timeout) {
            if case .closed(connection, _, _) = $0 { return true }
            return false
        }
        if case .closed(_, let code, let reason) = event { return (code, reason) }
        return (nil, "")
    }

    /// The device identity the binary created in `home`.
    static func identity(_ home: TemporaryHome) throws -> DeviceIdentity {
        try IdentityStore(fileURL: URL(fileURLWithPath: home.state + "/clawtalk/identity.json")).load()
    }

    /// The gateway store in `home`.
    static func store(_ home: TemporaryHome) throws -> GatewayStore {
        GatewayStore(directory: try StateDirectory(path: home.state + "/clawtalk"))
    }

    /// Names of the per-gateway files in `home`'s state directory.
    static func gatewayFiles(_ home: TemporaryHome) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: home.state + "/clawtalk")) ?? []
        return names.filter { $0.hasPrefix("gateway-") }.sorted()
    }

    /// Permission bits of `path`.
    static func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    /// `status.json` of the service running in `home`, parsed.
    static func status(_ home: TemporaryHome) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: home.runtime + "/clawtalk/status.json") else {
            return nil
        }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// `status.json`'s `role` object field `key`.
    static func roleField(_ status: [String: Any]?, _ role: String, _ key: String) -> String? {
        (status?[role] as? [String: Any])?[key] as? String
    }

    /// A self-signed certificate for `localhost`/127.0.0.1 and its SHA-256 pin, in `directory`.
    static func certificate(in directory: String) throws -> (cert: String, key: String, pin: String) {
        let cert = directory + "/cert.pem"
        let key = directory + "/key.pem"
        try shellOutput(
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost"
                + " -addext subjectAltName=IP:127.0.0.1,DNS:localhost -days 1 -keyout \(key) -out \(cert)")
        let pin = String(try shellOutput("openssl x509 -in \(cert) -outform DER | sha256sum").prefix(64))
        return (cert, key, pin)
    }
}

/// A failure of the end-to-end harness itself.
struct EndToEndError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
