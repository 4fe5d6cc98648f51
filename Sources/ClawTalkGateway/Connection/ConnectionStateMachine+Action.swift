public import ClawTalkProtocol

extension ConnectionStateMachine {
    /// What the connection actor must do. Flow actions (`connect`, `reconnect`, `pause`,
    /// `finish`) decide the next step of the run loop; the others are effects to perform now.
    public enum Action: Sendable, Hashable {
        /// Dial now.
        case connect
        /// Dial after `after`.
        case reconnect(after: Duration)
        /// Stop reconnecting and show `info`; with `reprobeAfter`, try once more after that long
        /// (pairing re-probe, protocol.md §8.2), otherwise wait for the user.
        case pause(PauseInfo, reprobeAfter: Duration?)
        /// Close the live socket.
        case closeSocket(code: Int, reason: String)
        /// End the run loop.
        case finish
        /// Persist `hello-ok.auth` (protocol.md §11.2); `additionalRoles`: also store `auth.deviceTokens[]`.
        case persistDeviceTokens(HelloOk.Auth, additionalRoles: Bool)
        /// Delete the stored device token of `role` (protocol.md §11.3).
        case clearDeviceToken(GatewayRole)
        /// Delete the pending setup-code bootstrap token (used or invalid).
        case clearBootstrapToken
        /// Sign the next `connect` with this layout.
        case useSignatureVersion(DeviceAuthVersion)
        /// Store the version that worked for this gateway key.
        case rememberSignatureVersion(RememberedSignature)
        /// Delete the remembered version.
        case forgetSignatureVersion
        /// The next `connect` sends the stored device token (protocol.md §7.4 single retry).
        case retryWithDeviceToken
        /// The next operator `connect` uses this client pair.
        case useOperatorClientPair(OperatorClientPair)
        /// Store the operator client pair that worked for this gateway key.
        case rememberOperatorClientPair(OperatorClientPair)
        /// Show and log a pairing request (status output and journal).
        case reportPairingRequired(PairingRequest)
    }
}
