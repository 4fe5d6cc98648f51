import ClawTalkGateway
package import ClawTalkProtocol
package import Foundation

/// What `clawtalk pair` was asked to do, validated before anything is sent or stored: the
/// endpoints to try (a setup code's primary URL, then its fallbacks; or `--gateway-url`), the
/// bootstrap token or shared secret, and the TLS pin. Not `CustomStringConvertible`: secrets.
package struct PairingPlan: Sendable {
    /// Endpoints in the order to try.
    var endpoints: [GatewayEndpoint]
    /// The setup code's bootstrap token.
    var bootstrapToken: String?
    /// The setup code's expiry.
    var expiresAtMs: Int64?
    /// Shared secret (`--token`/`--password`, or a legacy setup code's).
    var secret: GatewaySecret
    /// Pin for the primary endpoint.
    var pin: TLSFingerprint?
    /// Where the pin came from.
    var pinSource: ExplicitPinSource

    /// The `--tls-fingerprint` option's pin (nil without the option).
    /// - Throws: ``PairingError/invalidInput(_:)`` for a value that is not a SHA-256 fingerprint.
    package static func pin(option: String?) throws(PairingError) -> TLSFingerprint? {
        guard let option else { return nil }
        guard let pin = TLSFingerprint(option) else {
            throw .invalidInput(
                "--tls-fingerprint is not a SHA-256 fingerprint (64 hex digits; a sha256: prefix and colons are fine)")
        }
        return pin
    }

    /// Checks the input the way protocol.md §9 and §17 require.
    /// - Throws: ``PairingError/invalidInput(_:)`` (exit 64) for an invalid or expired setup code,
    ///   URL or fingerprint, or plaintext to a non-local host.
    package static func make(
        setupCode: String?, gatewayURL: String?, token: String?, password: String?, tlsFingerprint: String?,
        allowInsecureRemote: Bool, now: Date = Date()
    ) throws(PairingError) -> PairingPlan {
        let optionPin = try pin(option: tlsFingerprint)
        var plan: PairingPlan
        if let setupCode {
            let code: SetupCode
            do {
                code = try SetupCode.parse(setupCode, now: now)
            } catch {
                throw .invalidInput("\(error); nothing was sent")
            }
            plan = try fromSetupCode(code, optionPin: optionPin)
        } else if let gatewayURL {
            let endpoint: GatewayEndpoint
            do {
                endpoint = try GatewayEndpoint.parse(gatewayURL)
            } catch {
                throw .invalidInput("--gateway-url: \(error)")
            }
            plan = PairingPlan(
                endpoints: [endpoint], bootstrapToken: nil, expiresAtMs: nil,
                secret: GatewaySecret(token: token, password: password), pin: optionPin, pinSource: .commandLine)
        } else {
            throw .invalidInput("give a setup code (run 'openclaw qr' on the gateway host) or --gateway-url")
        }
        return try checked(plan, allowInsecureRemote: allowInsecureRemote)
    }

    /// The plan for the setup code a join URL stood for. `--tls-fingerprint` pinned the join
    /// fetch; it also pins the gateway when the payload's primary URL is `wss://` (the same
    /// rule as for a setup code), and is not applied to a `ws://` primary.
    package static func make(
        joined code: SetupCode, tlsFingerprint: TLSFingerprint?, allowInsecureRemote: Bool
    ) throws(PairingError) -> PairingPlan {
        let optionPin = code.endpoint.isSecure ? tlsFingerprint : nil
        return try checked(fromSetupCode(code, optionPin: optionPin), allowInsecureRemote: allowInsecureRemote)
    }

    private static func fromSetupCode(_ code: SetupCode, optionPin: TLSFingerprint?) throws(PairingError) -> PairingPlan
    {
        let codePin = code.tlsFingerprint.flatMap(TLSFingerprint.init)
        if let codePin, let optionPin, codePin != optionPin {
            throw .invalidInput("--tls-fingerprint differs from the fingerprint in the setup code")
        }
        return PairingPlan(
            endpoints: code.endpoints, bootstrapToken: code.bootstrapToken, expiresAtMs: code.expiresAtMs,
            secret: GatewaySecret(token: code.token, password: code.token == nil ? code.password : nil),
            pin: codePin ?? optionPin, pinSource: codePin != nil ? .setupCode : .commandLine)
    }

    /// The protocol.md §17 checks every plan passes.
    private static func checked(_ plan: PairingPlan, allowInsecureRemote: Bool) throws(PairingError) -> PairingPlan {
        let primary = plan.endpoints[0]
        if plan.pin != nil, !primary.isSecure {
            throw .invalidInput("--tls-fingerprint needs a wss:// gateway URL; \(primary.urlString) is plaintext")
        }
        for endpoint in plan.endpoints where !endpoint.isTransportAllowed && !allowInsecureRemote {
            throw .invalidInput(
                "ws:// to \(endpoint.host) is not on the local network; use a wss:// URL "
                    + "(or set gateway.allowInsecureRemote to accept plaintext)")
        }
        return plan
    }

    /// The connection target for endpoint number `index` (the pin applies to the primary only).
    func target(_ index: Int) -> GatewayTarget {
        GatewayTarget(
            endpoint: endpoints[index], source: .pairing, sharedToken: secret.token, password: secret.password,
            configuredPin: index == 0 ? pin : nil)
    }

    /// "setup code expires at 2025-08-08T08:10:00Z (in 9 min)" for a code with `expiresAtMs`
    /// (protocol.md §9), nil without one.
    func expiryText(nowMs: Int64) -> String? {
        guard let expiresAtMs else { return nil }
        let date = Date(timeIntervalSince1970: Double(expiresAtMs) / 1000)
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let seconds = max(0, (expiresAtMs - nowMs) / 1000)
        let remaining = seconds >= 120 ? "\(seconds / 60) min" : "\(seconds) s"
        return "setup code expires at \(formatter.string(from: date)) (in \(remaining))"
    }
}
