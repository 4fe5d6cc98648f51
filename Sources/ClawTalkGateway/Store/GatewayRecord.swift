internal import ClawTalkProtocol

/// The JSON file of one gateway key (protocol.md §11.1): tokens, pin, signature
/// version, operator client pair, last trigger list, pending bootstrap token, display URL.
struct GatewayRecord: Sendable, Hashable, Codable {
    /// File format version.
    var version = 1
    /// The key this file belongs to.
    var gatewayKey: String
    /// Display URL.
    var url: String?
    /// Device tokens per (deviceId, role).
    var deviceTokens: [StoredDeviceToken] = []
    /// TLS leaf pin.
    var tlsPin: StoredPin?
    /// Signature version that worked after a fallback.
    var signature: RememberedSignature?
    /// Operator client pair that worked.
    var operatorClientPair: OperatorClientPair?
    /// Last `voicewake` trigger list.
    var voiceWakeTriggers: [String]?
    /// Pending setup-code bootstrap token.
    var bootstrap: PendingBootstrap?

    init(gatewayKey: String) {
        self.gatewayKey = gatewayKey
    }
}
