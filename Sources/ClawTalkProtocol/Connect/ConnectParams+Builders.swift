extension ConnectParams {
    /// `userAgent` for a clawtalk version.
    public static func userAgent(version: String) -> String {
        "clawtalk/\(version)"
    }

    /// Node-connection params (protocol.md §7.2, §7.3): `node-host`/`node`, role `node`,
    /// scopes `[]`, `linux`/`Linux`, protocol 3–4, caps/commands/permissions as given.
    /// Empty optional strings are dropped; set ``device`` after signing.
    public static func node(
        version: String, displayName: String? = nil, modelIdentifier: String? = nil, instanceId: String? = nil,
        caps: [NodeCapability] = [.talk], commands: [String] = TalkCommand.allCases.map(\.rawValue),
        permissions: [NodePermission: Bool] = [:], auth: ConnectAuth? = nil, device: DeviceProof? = nil,
        locale: String? = nil
    ) -> ConnectParams {
        let client = ClientInfo(
            id: .nodeHost, displayName: nonEmpty(displayName), version: version,
            modelIdentifier: nonEmpty(modelIdentifier),
            mode: .node, instanceId: nonEmpty(instanceId))
        var permissionMap: [String: Bool] = [:]
        for (key, value) in permissions { permissionMap[key.rawValue] = value }
        return ConnectParams(
            client: client, caps: caps.map(\.rawValue), commands: commands,
            permissions: permissionMap.isEmpty ? nil : permissionMap, role: .node, scopes: [], device: device,
            auth: auth.flatMap { $0.isEmpty ? nil : $0 }, locale: nonEmpty(locale),
            userAgent: userAgent(version: version))
    }

    /// Scopes of the operator connection, in signing order (protocol.md §14). Never admin, pairing or
    /// talk secrets.
    public static let operatorScopes = ["operator.read", "operator.write"]

    /// Operator-connection params (protocol.md §14): `gateway-client`/`backend` (or the
    /// `cli`/`cli` fallback), role `operator`, scopes `["operator.read","operator.write"]`,
    /// no caps, commands or permissions.
    public static func `operator`(
        version: String, displayName: String? = nil, modelIdentifier: String? = nil, instanceId: String? = nil,
        clientPair: OperatorClientPair = .gatewayClient, auth: ConnectAuth? = nil, device: DeviceProof? = nil,
        locale: String? = nil
    ) -> ConnectParams {
        let client = ClientInfo(
            id: clientPair.id, displayName: nonEmpty(displayName), version: version,
            modelIdentifier: nonEmpty(modelIdentifier), mode: clientPair.mode, instanceId: nonEmpty(instanceId))
        return ConnectParams(
            client: client, role: .operator, scopes: operatorScopes, device: device,
            auth: auth.flatMap { $0.isEmpty ? nil : $0 }, locale: nonEmpty(locale),
            userAgent: userAgent(version: version))
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
