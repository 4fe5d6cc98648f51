/// `error.details.code` of a failed `connect` (protocol.md §3,
/// `connect-error-details.ts`). Unknown codes stay available as raw strings
/// (``ErrorShape/detailCode``, ``ConnectRejection/detailCodeRaw``).
public enum ConnectDetailCode: String, Sendable, Hashable, CaseIterable {
    /// `AUTH_REQUIRED`.
    case authRequired = "AUTH_REQUIRED"
    /// `AUTH_UNAUTHORIZED`.
    case authUnauthorized = "AUTH_UNAUTHORIZED"
    /// `AUTH_TOKEN_MISSING`.
    case authTokenMissing = "AUTH_TOKEN_MISSING"
    /// `AUTH_TOKEN_MISMATCH`.
    case authTokenMismatch = "AUTH_TOKEN_MISMATCH"
    /// `AUTH_TOKEN_NOT_CONFIGURED`.
    case authTokenNotConfigured = "AUTH_TOKEN_NOT_CONFIGURED"
    /// `AUTH_PASSWORD_MISSING`.
    case authPasswordMissing = "AUTH_PASSWORD_MISSING"
    /// `AUTH_PASSWORD_MISMATCH`.
    case authPasswordMismatch = "AUTH_PASSWORD_MISMATCH"
    /// `AUTH_PASSWORD_NOT_CONFIGURED`.
    case authPasswordNotConfigured = "AUTH_PASSWORD_NOT_CONFIGURED"
    /// `AUTH_BOOTSTRAP_TOKEN_INVALID`.
    case authBootstrapTokenInvalid = "AUTH_BOOTSTRAP_TOKEN_INVALID"
    /// `AUTH_DEVICE_TOKEN_MISMATCH`.
    case authDeviceTokenMismatch = "AUTH_DEVICE_TOKEN_MISMATCH"
    /// `AUTH_SCOPE_MISMATCH`.
    case authScopeMismatch = "AUTH_SCOPE_MISMATCH"
    /// `AUTH_RATE_LIMITED`.
    case authRateLimited = "AUTH_RATE_LIMITED"
    /// `AUTH_TAILSCALE_IDENTITY_MISSING`.
    case authTailscaleIdentityMissing = "AUTH_TAILSCALE_IDENTITY_MISSING"
    /// `AUTH_TAILSCALE_PROXY_MISSING`.
    case authTailscaleProxyMissing = "AUTH_TAILSCALE_PROXY_MISSING"
    /// `AUTH_TAILSCALE_WHOIS_FAILED`.
    case authTailscaleWhoisFailed = "AUTH_TAILSCALE_WHOIS_FAILED"
    /// `AUTH_TAILSCALE_IDENTITY_MISMATCH`.
    case authTailscaleIdentityMismatch = "AUTH_TAILSCALE_IDENTITY_MISMATCH"
    /// `AUTH_IDENTITY_HEADER_REQUIRED`.
    case authIdentityHeaderRequired = "AUTH_IDENTITY_HEADER_REQUIRED"
    /// `AUTH_VERIFIED_USER_REQUIRED`.
    case authVerifiedUserRequired = "AUTH_VERIFIED_USER_REQUIRED"
    /// `AUTHENTICATED_PROFILE_UNAVAILABLE`.
    case authenticatedProfileUnavailable = "AUTHENTICATED_PROFILE_UNAVAILABLE"
    /// `OPERATOR_ACCESS_DENIED`.
    case operatorAccessDenied = "OPERATOR_ACCESS_DENIED"
    /// `CONTROL_UI_BUILD_MISMATCH`.
    case controlUIBuildMismatch = "CONTROL_UI_BUILD_MISMATCH"
    /// `CONTROL_UI_ORIGIN_NOT_ALLOWED`.
    case controlUIOriginNotAllowed = "CONTROL_UI_ORIGIN_NOT_ALLOWED"
    /// `PROTOCOL_MISMATCH`.
    case protocolMismatch = "PROTOCOL_MISMATCH"
    /// `CONTROL_UI_DEVICE_IDENTITY_REQUIRED`.
    case controlUIDeviceIdentityRequired = "CONTROL_UI_DEVICE_IDENTITY_REQUIRED"
    /// `DEVICE_IDENTITY_REQUIRED`.
    case deviceIdentityRequired = "DEVICE_IDENTITY_REQUIRED"
    /// `DEVICE_AUTH_INVALID`.
    case deviceAuthInvalid = "DEVICE_AUTH_INVALID"
    /// `DEVICE_AUTH_DEVICE_ID_MISMATCH`.
    case deviceAuthDeviceIdMismatch = "DEVICE_AUTH_DEVICE_ID_MISMATCH"
    /// `DEVICE_AUTH_SIGNATURE_EXPIRED`.
    case deviceAuthSignatureExpired = "DEVICE_AUTH_SIGNATURE_EXPIRED"
    /// `DEVICE_AUTH_NONCE_REQUIRED`.
    case deviceAuthNonceRequired = "DEVICE_AUTH_NONCE_REQUIRED"
    /// `DEVICE_AUTH_NONCE_MISMATCH`.
    case deviceAuthNonceMismatch = "DEVICE_AUTH_NONCE_MISMATCH"
    /// `DEVICE_AUTH_SIGNATURE_INVALID`.
    case deviceAuthSignatureInvalid = "DEVICE_AUTH_SIGNATURE_INVALID"
    /// `DEVICE_AUTH_PUBLIC_KEY_INVALID`.
    case deviceAuthPublicKeyInvalid = "DEVICE_AUTH_PUBLIC_KEY_INVALID"
    /// `PAIRING_REQUIRED`.
    case pairingRequired = "PAIRING_REQUIRED"
    /// `PAIRING_REJECTED`.
    case pairingRejected = "PAIRING_REJECTED"
    /// `PAIRING_EXPIRED`.
    case pairingExpired = "PAIRING_EXPIRED"
    /// `CLIENT_VERSION_MISMATCH`.
    case clientVersionMismatch = "CLIENT_VERSION_MISMATCH"

    /// The protocol.md §15 pause set: codes after which the connection stops reconnecting until the user
    /// acts. `PAIRING_REQUIRED`/`PAIRING_EXPIRED` pause only without a retry hint (see
    /// ``ConnectRejection/pausesReconnect``); the one-shot retries (v3→v2 signature,
    /// device-token retry, token cleared) happen before this applies.
    public static let pauseSet: Set<ConnectDetailCode> = [
        .authTokenMissing, .authTokenNotConfigured, .authPasswordMissing, .authPasswordMismatch,
        .authPasswordNotConfigured, .authBootstrapTokenInvalid, .authDeviceTokenMismatch, .authTokenMismatch,
        .authScopeMismatch, .authVerifiedUserRequired, .pairingRequired, .pairingExpired, .pairingRejected,
        .deviceIdentityRequired, .deviceAuthSignatureInvalid, .protocolMismatch, .clientVersionMismatch,
    ]

    /// One of the four `AUTH_TAILSCALE_*` codes.
    public var isTailscale: Bool {
        rawValue.hasPrefix("AUTH_TAILSCALE_")
    }

    /// A device-proof failure (`DEVICE_AUTH_*`), which adds `details.reason`.
    public var isDeviceProofFailure: Bool {
        rawValue.hasPrefix("DEVICE_AUTH_")
    }
}
