import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation

/// Shared fixtures: the spec's 0x00…0x1f identity and the protocol.md §6.4 inputs.
enum Fixture {
    /// protocol.md §6.4 seed.
    static let identity = try! DeviceIdentity(seed: Array(0...31), createdAtMs: 0)
    /// protocol.md §6.4 deviceId.
    static let deviceId = "56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c"
    /// protocol.md §6.4 challenge time.
    static let time: Int64 = 1_754_640_000_000
    /// protocol.md §6.4 nonce.
    static let nonce = "3f7b2c1e-9a4d-4c8e-b1f2-0d5e6a7b8c9d"
    /// The four PTT commands.
    static let talkCommands = TalkCommand.allCases.map(\.rawValue)

    /// Another identity (a different key, so a different deviceId).
    static func identity(_ byte: UInt8) -> DeviceIdentity {
        try! DeviceIdentity(seed: [UInt8](repeating: byte, count: 32), createdAtMs: 0)
    }

    /// A gateway on a manual clock at the protocol.md §6.4 time with short ticks off by default.
    static func gateway(
        _ configure: (inout TestGatewayConfiguration) -> Void = { _ in }, nonce: String? = nil,
        script: OperatorScript = OperatorScript()
    ) -> (TestGateway, ManualGatewayClock) {
        var configuration = TestGatewayConfiguration()
        configuration.automaticTicks = false
        configure(&configuration)
        let clock = ManualGatewayClock(startMs: time)
        let gateway: TestGateway
        if let nonce {
            gateway = TestGateway(configuration: configuration, script: script, clock: clock, nonce: { nonce })
        } else {
            gateway = TestGateway(configuration: configuration, script: script, clock: clock)
        }
        return (gateway, clock)
    }
}

/// Builds signed `connect` params like a real node (or operator) would.
struct ConnectBuilder {
    var identity = Fixture.identity
    var role = "node"
    var clientId = "node-host"
    var clientMode = "node"
    var platform = "linux"
    var deviceFamily: String? = "Linux"
    var instanceId: String?
    var scopes: [String] = []
    var caps: [String]? = ["talk"]
    var commands: [String]? = Fixture.talkCommands
    var auth: ConnectAuth?
    var minProtocol = 3
    var maxProtocol = 4
    var signatureVersion: DeviceAuthVersion = .v3
    /// Signed and sent `signedAt` (default: the challenge ts).
    var signedAt: Int64?
    /// Sent `device.nonce` (default: the challenge nonce); the signature uses the trimmed value.
    var nonce: String?
    /// Token signed instead of the one sent (to break the signature).
    var signedTokenOverride: String?

    static func `operator`(_ identity: DeviceIdentity = Fixture.identity, auth: ConnectAuth? = nil) -> ConnectBuilder {
        var builder = ConnectBuilder(identity: identity)
        builder.role = "operator"
        builder.clientId = "gateway-client"
        builder.clientMode = "backend"
        builder.scopes = ["operator.read", "operator.write"]
        builder.caps = nil
        builder.commands = nil
        builder.auth = auth
        return builder
    }

    func params(nonce challengeNonce: String, ts: Int64) throws -> WireJSON {
        let signedAt = signedAt ?? ts
        let sentNonce = nonce ?? challengeNonce
        let signedNonce = sentNonce.trimmingCharacters(in: .whitespaces)
        let payload = DeviceAuthPayload(
            version: signatureVersion, deviceId: identity.deviceId, clientId: clientId, clientMode: clientMode,
            role: role, scopes: scopes, signedAtMs: signedAt,
            token: signedTokenOverride ?? auth?.token, deviceToken: auth?.deviceToken,
            bootstrapToken: auth?.bootstrapToken, nonce: signedNonce, platform: platform, deviceFamily: deviceFamily)
        let proof = DeviceProof(
            id: identity.deviceId, publicKey: identity.publicKeyBase64URL,
            signature: try identity.sign(payload: payload.string), signedAt: signedAt, nonce: sentNonce)
        var client: WireObject = [
            "id": .string(clientId), "version": "0.1.0", "platform": .string(platform), "mode": .string(clientMode),
        ]
        if let deviceFamily { client["deviceFamily"] = .string(deviceFamily) }
        if let instanceId { client["instanceId"] = .string(instanceId) }
        var params: WireObject = [
            "minProtocol": .integer(Int64(minProtocol)), "maxProtocol": .integer(Int64(maxProtocol)),
            "client": .object(client), "role": .string(role), "scopes": .array(scopes.map(WireJSON.string)),
        ]
        if let caps { params["caps"] = .array(caps.map(WireJSON.string)) }
        if let commands { params["commands"] = .array(commands.map(WireJSON.string)) }
        params["device"] = try WireJSON(encoding: proof)
        if let auth, !auth.isEmpty { params["auth"] = try WireJSON(encoding: auth) }
        return .object(params)
    }
}

extension WireJSON {
    /// A copy with the member at `path` set (nil removes it); objects are created as needed.
    func setting(_ path: [String], to value: WireJSON?) -> WireJSON {
        guard let key = path.first else { return value ?? .null }
        var object = objectValue ?? WireObject()
        if path.count == 1 {
            object[key] = value
        } else {
            object[key] = (object[key] ?? .object(WireObject())).setting(Array(path.dropFirst()), to: value)
        }
        return .object(object)
    }
}

/// A connect attempt: the client and the connect response.
struct Attempt {
    let client: WireClient
    let response: WireJSON

    var ok: Bool { response["ok"]?.boolValue == true }
    var error: WireJSON? { response["error"] }
    var code: String? { error?["code"]?.stringValue }
    var message: String? { error?["message"]?.stringValue }
    var details: WireJSON? { error?["details"] }
    var detailCode: String? { details?["code"]?.stringValue }
    var hello: WireJSON? { response["payload"] }
}

/// Opens a connection, answers the challenge with `builder` (after `edit`), returns the response.
func attempt(
    _ gateway: TestGateway, _ builder: ConnectBuilder = ConnectBuilder(),
    edit: (WireJSON) -> WireJSON = { $0 }
) async throws -> Attempt {
    let client = await WireClient.open(gateway)
    let challenge = try await client.challenge()
    let params = edit(try builder.params(nonce: challenge.nonce, ts: challenge.ts))
    let id = try client.request("connect", params)
    return Attempt(client: client, response: try await client.response(id))
}

/// Pairs `builder`'s identity with its role (and, for nodes, its declared surface approved),
/// then connects; fails the test unless `hello-ok` arrives.
func connected(
    _ gateway: TestGateway, _ builder: ConnectBuilder = ConnectBuilder(), approveSurface: Bool = true
) async throws -> Attempt {
    await gateway.pairDevice(
        publicKey: builder.identity.publicKeyBase64URL, roles: [builder.role], scopes: Set(builder.scopes),
        platform: builder.platform, deviceFamily: builder.deviceFamily,
        approvedCaps: approveSurface ? Set(builder.caps ?? []) : [],
        approvedCommands: approveSurface ? Set(builder.commands ?? []) : [])
    let result = try await attempt(gateway, builder)
    guard result.ok else { throw ClientError(description: "connect failed: \(result.response.encodedString())") }
    return result
}
