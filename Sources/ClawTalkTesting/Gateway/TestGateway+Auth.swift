import ClawTalkProtocol

/// A failed credential check: the upstream `authReason` and, for rate limiting, the delay.
struct AuthFailure: Error {
    let reason: String
    var retryAfterMs: Int?
}

/// Credentials of protocol.md §7.4 and §11 (checklist 14–16, 35, 42): the shared secret
/// per auth mode, bootstrap tokens (single use, bound to the first device, 10-minute life) and
/// device tokens per (deviceId, role). Stricter than upstream in auth mode `none`: an explicit
/// `auth.deviceToken` or `auth.bootstrapToken` is always verified (a bad one fails the connect
/// unless a shared secret authenticated it).
extension TestGateway {
    func authenticate(
        _ connect: ParsedConnect, device: VerifiedDevice
    ) -> Result<TestGatewaySession.AuthMethod, AuthFailure> {
        if let retry = configuration.rateLimitRetryAfterMs {
            return .failure(AuthFailure(reason: "rate_limited", retryAfterMs: retry))
        }
        let token = Self.nonEmpty(connect.token)
        let password = Self.nonEmpty(connect.password)
        var method: TestGatewaySession.AuthMethod?
        var reason: String?
        switch configuration.auth {
        case .none:
            method = TestGatewaySession.AuthMethod.none
        case .token(let secret):
            (method, reason) = Self.sharedSecret(token, expected: secret, as: .token, name: "token")
        case .password(let secret):
            (method, reason) = Self.sharedSecret(password, expected: secret, as: .password, name: "password")
        }
        if let bootstrap = Self.nonEmpty(connect.bootstrapToken) {
            if redeemBootstrapToken(bootstrap, device: device, connect: connect) {
                method = .bootstrapToken
            } else if method == nil || method == TestGatewaySession.AuthMethod.none {
                return .failure(AuthFailure(reason: "bootstrap_token_invalid"))
            }
        }
        let explicit = Self.nonEmpty(connect.deviceToken)
        let authenticated = method != nil && method != TestGatewaySession.AuthMethod.none
        if !authenticated, let candidate = explicit ?? (method == nil ? token : nil) {
            switch checkDeviceToken(candidate, deviceId: device.deviceId, role: connect.role, scopes: connect.scopes) {
            case .valid:
                method = .deviceToken
            case .scopeMismatch:
                return .failure(AuthFailure(reason: "scope_mismatch"))
            case .mismatch:
                if explicit != nil { return .failure(AuthFailure(reason: "device_token_mismatch")) }
            }
        }
        if let method { return .success(method) }
        return .failure(AuthFailure(reason: reason ?? "unauthorized"))
    }

    /// The shared-secret check: `(method, nil)` on a match, else `(nil, "<name>_missing|_mismatch")`.
    static func sharedSecret(
        _ provided: String?, expected: String, as method: TestGatewaySession.AuthMethod, name: String
    ) -> (TestGatewaySession.AuthMethod?, String?) {
        guard let provided else { return (nil, "\(name)_missing") }
        return provided == expected ? (method, nil) : (nil, "\(name)_mismatch")
    }

    /// The protocol.md §3 auth rejection: `INVALID_REQUEST` with `details {code, authReason,
    /// canRetryWithDeviceToken, recommendedNextStep}`, close 1008.
    func rejectUnauthorized(_ id: Int, _ connect: ParsedConnect, _ failure: AuthFailure) {
        let provided = Self.authProvided(connect)
        let canRetry =
            failure.reason == "token_mismatch" && provided == "token" && Self.nonEmpty(connect.deviceToken) == nil
        let nextStep: RecommendedNextStep =
            switch failure.reason {
            case _ where canRetry: .retryWithDeviceToken
            case "token_missing", "token_missing_config", "password_missing", "password_missing_config":
                .updateAuthConfiguration
            case "token_mismatch", "password_mismatch", "device_token_mismatch": .updateAuthCredentials
            case "rate_limited": .waitThenRetry
            default: .reviewAuthConfiguration
            }
        let details: WireJSON = [
            "code": .string(Self.authDetailCode(failure.reason).rawValue), "authReason": .string(failure.reason),
            "canRetryWithDeviceToken": .bool(canRetry), "recommendedNextStep": .string(nextStep.rawValue),
        ]
        rejectConnect(
            id, connect.requestId, .invalidRequest, Self.authMessage(failure.reason, provided: provided),
            details: details, retryAfterMs: failure.retryAfterMs)
    }

    static func authDetailCode(_ reason: String) -> ConnectDetailCode {
        switch reason {
        case "token_missing": .authTokenMissing
        case "token_mismatch": .authTokenMismatch
        case "token_missing_config": .authTokenNotConfigured
        case "password_missing": .authPasswordMissing
        case "password_mismatch": .authPasswordMismatch
        case "password_missing_config": .authPasswordNotConfigured
        case "bootstrap_token_invalid": .authBootstrapTokenInvalid
        case "rate_limited": .authRateLimited
        case "device_token_mismatch": .authDeviceTokenMismatch
        case "scope_mismatch": .authScopeMismatch
        default: .authUnauthorized
        }
    }

    static func authMessage(_ reason: String, provided: String) -> String {
        switch reason {
        case "token_missing": "unauthorized: gateway token missing (provide gateway auth token)"
        case "token_mismatch": "unauthorized: gateway token mismatch (provide gateway auth token)"
        case "password_missing": "unauthorized: gateway password missing (provide gateway auth password)"
        case "password_mismatch": "unauthorized: gateway password mismatch (provide gateway auth password)"
        case "rate_limited": "unauthorized: too many failed authentication attempts (retry later)"
        case "device_token_mismatch": "unauthorized: device token mismatch (rotate/reissue device token)"
        case "bootstrap_token_invalid": "unauthorized: bootstrap token invalid or expired"
        case "scope_mismatch": "unauthorized: device token scope mismatch"
        default: "unauthorized"
        }
    }

    /// `password > token > bootstrap-token > device-token > none`, as upstream reports it.
    static func authProvided(_ connect: ParsedConnect) -> String {
        if nonEmpty(connect.password) != nil { return "password" }
        if nonEmpty(connect.token) != nil { return "token" }
        if nonEmpty(connect.bootstrapToken) != nil { return "bootstrap-token" }
        if nonEmpty(connect.deviceToken) != nil { return "device-token" }
        return "none"
    }

    static func nonEmpty(_ value: String?) -> String? {
        guard let value, !DeviceProofVerifier.jsTrim(value).isEmpty else { return nil }
        return value
    }

    // MARK: Device tokens

    enum DeviceTokenCheck {
        case valid, mismatch, scopeMismatch
    }

    static func tokenKey(_ deviceId: String, _ role: String) -> String { "\(deviceId)|\(role)" }

    func checkDeviceToken(_ token: String, deviceId: String, role: String, scopes: [String]) -> DeviceTokenCheck {
        guard let stored = deviceTokens[Self.tokenKey(deviceId, role)], stored.token == token else { return .mismatch }
        return Self.scopesAllow(scopes, granted: Set(stored.scopes)) ? .valid : .scopeMismatch
    }

    /// The token for (deviceId, role), minted when absent or too narrow for `scopes`.
    func ensureDeviceToken(deviceId: String, role: String, scopes: [String]) -> IssuedDeviceToken {
        let key = Self.tokenKey(deviceId, role)
        if let stored = deviceTokens[key], Self.scopesAllow(scopes, granted: Set(stored.scopes)) { return stored }
        let issued = IssuedDeviceToken(token: Self.randomToken("dtok_"), scopes: scopes, issuedAtMs: nowMs)
        deviceTokens[key] = issued
        return issued
    }

    /// Every requested scope is covered by `granted` (``scopeSatisfied(_:by:)``).
    static func scopesAllow(_ requested: [String], granted: Set<String>) -> Bool {
        requested.allSatisfy { scopeSatisfied($0, by: granted) }
    }

    /// Whether `granted` covers `scope`: `operator.admin` covers everything, and `operator.write`
    /// covers `operator.read` and `operator.talk` (protocol.md §14).
    static func scopeSatisfied(_ scope: String, by granted: Set<String>) -> Bool {
        granted.contains(scope) || granted.contains("operator.admin")
            || (["operator.read", "operator.talk"].contains(scope) && granted.contains("operator.write"))
    }

    /// Issues (or replaces) the device token for (deviceId, role); `token` fixes its value (e.g.
    /// the protocol.md §6.4 fixture `dtok_example_0123456789`).
    @discardableResult
    public func issueDeviceToken(deviceId: String, role: String, scopes: [String] = [], token: String? = nil) -> String
    {
        let issued = IssuedDeviceToken(token: token ?? Self.randomToken("dtok_"), scopes: scopes, issuedAtMs: nowMs)
        deviceTokens[Self.tokenKey(deviceId, role)] = issued
        return issued.token
    }

    /// The current device token for (deviceId, role).
    public func deviceToken(deviceId: String, role: String) -> String? {
        deviceTokens[Self.tokenKey(deviceId, role)]?.token
    }

    /// Revokes the token of (deviceId, role) and closes its live sockets with 4001
    /// `client invalidated: <reason>` (checklist 35).
    public func revokeDeviceToken(deviceId: String, role: String, reason: String = "device token revoked") {
        deviceTokens.removeValue(forKey: Self.tokenKey(deviceId, role))
        for connection in connections.values
        where connection.session?.deviceId == deviceId && connection.session?.role == role {
            closeConnection(connection.id, code: 4001, reason: "client invalidated: \(reason)")
        }
    }

    // MARK: Bootstrap tokens

    /// Mints a node-profile bootstrap token (`{roles:["node"], scopes:[]}`), valid 10 minutes.
    public func mintBootstrapToken(_ token: String? = nil) -> String {
        let value = token ?? Self.randomToken("boot_")
        bootstrapTokens[value] = BootstrapToken(issuedAtMs: nowMs, roles: ["node"], scopes: [])
        return value
    }

    /// True while `token` can still be redeemed by some device.
    public func bootstrapTokenIsLive(_ token: String) -> Bool {
        guard let entry = bootstrapTokens[token] else { return false }
        return !entry.revoked && nowMs < entry.issuedAtMs + configuration.bootstrapTokenLifetimeMs
    }

    /// Checks a bootstrap token and binds it to the first device that presents it.
    func redeemBootstrapToken(_ token: String, device: VerifiedDevice, connect: ParsedConnect) -> Bool {
        guard bootstrapTokenIsLive(token), var entry = bootstrapTokens[token] else { return false }
        if let bound = entry.boundDeviceId, bound != device.deviceId || entry.boundPublicKey != device.publicKey {
            return false
        }
        guard entry.roles.contains(connect.role), Set(connect.scopes).isSubset(of: entry.scopes) else { return false }
        entry.boundDeviceId = device.deviceId
        entry.boundPublicKey = device.publicKey
        bootstrapTokens[token] = entry
        return true
    }
}
