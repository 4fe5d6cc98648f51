internal import ClawTalkProtocol

extension ConnectionStateMachine {
    /// Decides on a failed `connect` (protocol.md §6.2, §7.4, §8.2, §11.3, §14, §15). Uses `details.code`
    /// and the hints only, never message text.
    mutating func rejected(_ rejection: ConnectRejection) -> [Action] {
        let attempt = lastAttempt
        if rejection.isStartingUp {
            return wait(backoff.startup(retryAfterMs: rejection.retryAfterMs), cause: "gateway starting")
        }
        if rejection.isRateLimited {
            return wait(
                backoff.rateLimited(retryAfterMs: rejection.error.retryAfterMs),
                cause: "rate limited (AUTH_RATE_LIMITED)")
        }
        switch rejection.detail {
        case .deviceAuthSignatureInvalid:
            return signatureRejected(rejection, attempt: attempt)
        case .authDeviceTokenMismatch:
            var actions: [Action] = [.clearDeviceToken(configuration.role)]
            let next = CredentialSelector.first(in: (attempt?.available ?? []).subtracting([.deviceToken]))
            if attempt?.credential == .deviceToken, next != .none, !tokenClearedRetryUsed {
                tokenClearedRetryUsed = true
                actions += wait(backoff.singleRetry, cause: "device token rejected, retrying with \(next)")
                return actions
            }
            return actions + pause(rejection)
        case .authTokenMismatch:
            if let attempt, attempt.credential == .sharedToken, rejection.canRetryWithDeviceToken,
                attempt.available.contains(.deviceToken), attempt.endpointTrusted, !deviceTokenRetryUsed
            {
                deviceTokenRetryUsed = true
                prefersDeviceToken = true
                return [.retryWithDeviceToken]
                    + wait(backoff.singleRetry, cause: "shared token rejected, retrying with the device token")
            }
            return pause(rejection)
        case .authBootstrapTokenInvalid:
            return [.clearBootstrapToken] + pause(rejection)
        default:
            break
        }
        if configuration.role == .operator, rejection.gatewayCode == .invalidRequest, rejection.detailCodeRaw == nil,
            (attempt?.clientPair ?? clientPair) == .gatewayClient, !clientPairFallbackUsed
        {
            clientPairFallbackUsed = true
            clientPair = .cli
            return [.useOperatorClientPair(.cli)]
                + wait(backoff.singleRetry, cause: "client gateway-client/backend refused, retrying as cli/cli")
        }
        if rejection.isPairingRequired || rejection.detail == .pairingExpired {
            let pairing = PairingRequest(
                requestId: rejection.requestId, deviceId: configuration.deviceId, reason: rejection.error.reason)
            let actions: [Action] = [.reportPairingRequired(pairing)]
            // protocol.md §8.2 lists `retryable` among the pairing details; the top-level flag counts too.
            let detailsRetryable = rejection.error.details?["retryable"]?.boolValue == true
            guard rejection.pausesReconnect, !detailsRetryable else {
                return actions + retry(cause: pairing.description)
            }
            var reprobe: Duration?
            if rejection.isPairingRequired, pairingReprobes < configuration.pairingReprobeLimit {
                pairingReprobes += 1
                reprobe = configuration.pairingReprobeInterval
            }
            return actions + pause(pauseInfo(rejection, pairing: pairing), reprobeAfter: reprobe)
        }
        if rejection.pausesReconnect { return pause(rejection) }
        return retry(cause: rejection.description)
    }

    /// v3 → v2 once; a remembered v2 that fails → v3 once; both tried → pause (protocol.md §6.2).
    private mutating func signatureRejected(_ rejection: ConnectRejection, attempt: ConnectAttempt?) -> [Action] {
        let used = attempt?.signatureVersion ?? signatureVersion
        let other: DeviceAuthVersion = used == .v3 ? .v2 : .v3
        guard !signaturesTried.contains(other) else { return pause(rejection) }
        var actions: [Action] = []
        if other == .v3, remembered != nil {
            remembered = nil
            actions.append(.forgetSignatureVersion)
        }
        signatureVersion = other
        actions.append(.useSignatureVersion(other))
        return actions
            + wait(backoff.singleRetry, cause: "signature \(used.rawValue) rejected, retrying with \(other.rawValue)")
    }

    private mutating func pause(_ rejection: ConnectRejection) -> [Action] {
        pause(pauseInfo(rejection, pairing: nil), reprobeAfter: nil)
    }

    private func pauseInfo(_ rejection: ConnectRejection, pairing: PairingRequest?) -> PauseInfo {
        PauseInfo(
            code: rejection.detailCodeRaw ?? rejection.code, message: Self.oneLine(rejection.error.message),
            nextStep: pairing.map { "approve on the gateway host: \($0.approvalCommand)" }
                ?? Self.nextStep(for: rejection.detail),
            pairing: pairing)
    }

    /// The user's next step for a pause on `code`.
    static func nextStep(for code: ConnectDetailCode?) -> String {
        let reconnect = "then run clawtalk reconnect (or send SIGHUP)"
        switch code {
        case .authTokenMissing, .authTokenNotConfigured, .authTokenMismatch:
            return "set gateway.token to the gateway's token (or pair with a setup code), \(reconnect)"
        case .authPasswordMissing, .authPasswordMismatch, .authPasswordNotConfigured:
            return "set gateway.password to the gateway's password, \(reconnect)"
        case .authBootstrapTokenInvalid:
            return
                "the setup code is used or expired: create a new one on the gateway (openclaw qr) and run clawtalk pair"
        case .authDeviceTokenMismatch:
            return "the device token was revoked: pair again with a new setup code or configure gateway.token"
        case .authScopeMismatch, .authVerifiedUserRequired:
            return "review the gateway's auth configuration for this device, \(reconnect)"
        case .pairingRejected, .pairingExpired, .pairingRequired:
            return "pair again: approve the device on the gateway host or use a new setup code"
        case .deviceIdentityRequired, .deviceAuthSignatureInvalid:
            return
                "the gateway did not accept this device's signature: check clawtalk and gateway versions, \(reconnect)"
        case .protocolMismatch, .clientVersionMismatch:
            return "update clawtalk or the gateway so their protocol versions overlap"
        default:
            return "check the gateway configuration, \(reconnect)"
        }
    }
}
