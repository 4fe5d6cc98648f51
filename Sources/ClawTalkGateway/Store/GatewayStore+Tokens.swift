public import ClawTalkProtocol

extension GatewayStore {
    /// The device token stored for (`key`, `deviceId`, `role`).
    public func deviceToken(for key: String, deviceId: String, role: GatewayRole) throws -> StoredDeviceToken? {
        try record(key).deviceTokens.first { $0.deviceId == deviceId && $0.role == role.rawValue }
    }

    /// Stores a token issued in `hello-ok` (protocol.md §11.2). The same token again keeps the stored scopes
    /// and issue time; a new token replaces the entry.
    public func saveDeviceToken(
        _ token: String, role: String, scopes: [String], issuedAtMs: Int64?, deviceId: String, for key: String
    ) throws {
        guard !token.isEmpty else { return }
        try update(key) { record in
            if let index = record.deviceTokens.firstIndex(where: { $0.deviceId == deviceId && $0.role == role }) {
                if record.deviceTokens[index].token == token {
                    if record.deviceTokens[index].issuedAtMs == nil {
                        record.deviceTokens[index].issuedAtMs = issuedAtMs
                    }
                    return
                }
                record.deviceTokens.remove(at: index)
            }
            record.deviceTokens.append(
                StoredDeviceToken(deviceId: deviceId, role: role, token: token, scopes: scopes, issuedAtMs: issuedAtMs))
        }
    }

    /// Persists `hello-ok.auth` after a successful connect (protocol.md §11.2): `deviceToken` under
    /// `auth.role`; `auth.deviceTokens[]` under their roles only when `includeAdditionalRoles`
    /// (bootstrap over wss:// or the local network, protocol.md §17.2.3).
    public func persist(_ auth: HelloOk.Auth, deviceId: String, for key: String, includeAdditionalRoles: Bool) throws {
        if let token = auth.deviceToken {
            try saveDeviceToken(
                token, role: auth.role, scopes: auth.scopes, issuedAtMs: auth.issuedAtMs, deviceId: deviceId, for: key)
        }
        guard includeAdditionalRoles else { return }
        for issued in auth.deviceTokens ?? [] where issued.role != auth.role || auth.deviceToken == nil {
            try saveDeviceToken(
                issued.deviceToken, role: issued.role, scopes: issued.scopes, issuedAtMs: issued.issuedAtMs,
                deviceId: deviceId, for: key)
        }
    }

    /// Deletes the token of `role` (for any deviceId when `deviceId` is nil) (protocol.md §11.3).
    public func removeDeviceToken(for key: String, role: GatewayRole, deviceId: String? = nil) throws {
        try update(key) { record in
            record.deviceTokens.removeAll { $0.role == role.rawValue && (deviceId == nil || $0.deviceId == deviceId) }
        }
    }

    /// Saves a setup code's bootstrap token for the next node connect of `key` (replacing any
    /// earlier one: a fresh setup code overrides stored tokens, protocol.md §7.4).
    public func setPendingBootstrapToken(_ token: String, expiresAtMs: Int64? = nil, for key: String) throws {
        guard !token.isEmpty else { return }
        try update(key) { record in
            record.bootstrap = PendingBootstrap(token: token, savedAtMs: nowMs, expiresAtMs: expiresAtMs)
        }
    }

    /// The pending bootstrap token of `key`, unless its setup code has expired.
    public func pendingBootstrapToken(for key: String) throws -> String? {
        guard let pending = try record(key).bootstrap else { return nil }
        if let expires = pending.expiresAtMs, expires <= nowMs { return nil }
        return pending.token
    }

    /// Deletes the pending bootstrap token (used or refused).
    public func clearPendingBootstrapToken(for key: String) throws {
        try update(key) { $0.bootstrap = nil }
    }
}
