import ClawTalkProtocol

/// The closed `connect` params schema of protocol.md §7.2–§7.3, at every level
/// (`params`, `client`, `device`, `auth`), with the case-sensitive client id and mode enums.
enum ConnectSchema {
    /// `GATEWAY_CLIENT_IDS` (newest list).
    static let clientIds: Set<String> = Set(GatewayClientID.allCases.map(\.rawValue))
    /// `GATEWAY_CLIENT_MODES`.
    static let clientModes: Set<String> = Set(GatewayClientMode.allCases.map(\.rawValue))

    /// `client` (closed).
    static let client = WireSchema.closed(
        [
            "id": .string(minLength: 1, oneOf: clientIds),
            "displayName": .string(),
            "version": .nonEmptyString,
            "platform": .nonEmptyString,
            "deviceFamily": .string(),
            "modelIdentifier": .string(),
            "mode": .string(minLength: 1, oneOf: clientModes),
            "instanceId": .string(),
        ], required: ["id", "version", "platform", "mode"])

    /// `device` (closed, every field required and non-empty).
    static let device = WireSchema.closed(
        [
            "id": .nonEmptyString,
            "publicKey": .nonEmptyString,
            "signature": .nonEmptyString,
            "signedAt": .integer(minimum: 0),
            "nonce": .nonEmptyString,
        ], required: ["id", "publicKey", "signature", "signedAt", "nonce"])

    /// `auth` (closed; the runtime tokens exist on newest gateways only).
    static let auth = WireSchema.closed([
        "token": .string(),
        "bootstrapToken": .string(),
        "deviceToken": .string(),
        "password": .string(),
        "approvalRuntimeToken": .string(),
        "agentRuntimeIdentityToken": .string(),
    ])

    /// The whole params object (closed).
    static let params = WireSchema.closed(
        [
            "minProtocol": .integer(minimum: 1),
            "maxProtocol": .integer(minimum: 1),
            "client": client,
            "caps": .array(.string()),
            "commands": .array(.string()),
            "permissions": .record(.boolean),
            "pathEnv": .string(),
            "role": .string(),
            "scopes": .array(.string()),
            "device": device,
            "auth": auth,
            "locale": .string(),
            "userAgent": .string(),
        ], required: ["minProtocol", "maxProtocol", "client"])
}

/// Connect params after schema validation, with the fields the later phases read.
struct ParsedConnect: Sendable {
    let requestId: String
    let raw: WireObject
    let minProtocol: Int64
    let maxProtocol: Int64
    let clientId: String
    let clientMode: String
    let clientVersion: String
    let platform: String
    let deviceFamily: String?
    let displayName: String?
    let instanceId: String?
    let role: String
    let scopes: [String]
    let caps: [String]
    let commands: [String]
    let device: WireObject?
    let token: String?
    let deviceToken: String?
    let bootstrapToken: String?
    let password: String?

    /// Reads params that already passed ``ConnectSchema/params``.
    init(requestId: String, params: WireObject) {
        self.requestId = requestId
        raw = params
        let client = params["client"]?.objectValue ?? WireObject()
        minProtocol = params["minProtocol"]?.int64Value ?? 0
        maxProtocol = params["maxProtocol"]?.int64Value ?? 0
        clientId = client["id"]?.stringValue ?? ""
        clientMode = client["mode"]?.stringValue ?? ""
        clientVersion = client["version"]?.stringValue ?? ""
        platform = client["platform"]?.stringValue ?? ""
        deviceFamily = client["deviceFamily"]?.stringValue
        displayName = client["displayName"]?.stringValue
        instanceId = client["instanceId"]?.stringValue
        role = params["role"]?.stringValue ?? "operator"
        scopes = params["scopes"]?.stringArrayValue ?? []
        caps = params["caps"]?.stringArrayValue ?? []
        commands = params["commands"]?.stringArrayValue ?? []
        device = params["device"]?.objectValue
        let auth = params["auth"]?.objectValue
        token = auth?["token"]?.stringValue
        deviceToken = auth?["deviceToken"]?.stringValue
        bootstrapToken = auth?["bootstrapToken"]?.stringValue
        password = auth?["password"]?.stringValue
    }
}
