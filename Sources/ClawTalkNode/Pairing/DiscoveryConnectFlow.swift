package import ClawTalkDesktop
package import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import Foundation

/// `clawtalk discover --connect`: pairs with a discovered gateway by its resolved SRV target and
/// port (never the TXT `lanHost`/`gatewayPort`), over TLS only (protocol.md §17.3). The
/// certificate's fingerprint is read with a TLS probe; a stored pin for the gateway key must
/// match it (a TXT fingerprint never replaces a stored pin, protocol.md §17.1.4), and a first-seen
/// fingerprint is pinned only after the user confirms it: on a terminal by typing `yes`, or by
/// passing the same value with `--tls-fingerprint`.
package struct DiscoveryConnectFlow: Sendable {
    /// The chosen gateway.
    var gateway: DiscoveredGateway
    /// `--tls-fingerprint` (a confirmation of the probed fingerprint).
    var confirmedFingerprint: String?
    /// `--token` / `--password`.
    var token: String?
    /// `--password`.
    var password: String?
    /// Ask on the terminal when no confirmation was passed.
    var interactive: Bool
    /// Reads the typed answer (tests pass a canned one).
    var readAnswer: @Sendable () -> String?

    /// A flow for `gateway` with the command line's options.
    package init(
        gateway: DiscoveredGateway, confirmedFingerprint: String?, token: String?, password: String?,
        interactive: Bool, readAnswer: @escaping @Sendable () -> String?
    ) {
        self.gateway = gateway
        self.confirmedFingerprint = confirmedFingerprint
        self.token = token
        self.password = password
        self.interactive = interactive
        self.readAnswer = readAnswer
    }

    /// The outcome before pairing: the plan to pair with, or a refusal.
    package func plan(store: GatewayStore, console: PairingConsole, allowInsecureRemote: Bool) async throws
        -> PairingPlan
    {
        guard let url = gateway.directURL else {
            throw PairingError.failed(
                "\(gateway.displayName) does not advertise TLS (gatewayTls=1), so discovery does not connect to it; "
                    + "pair with a setup code ('openclaw qr' on the gateway host) or --gateway-url")
        }
        let endpoint: GatewayEndpoint
        do {
            endpoint = try GatewayEndpoint.parse(url)
        } catch {
            throw PairingError.failed("discovered endpoint \(url) is not usable: \(error)")
        }
        console.progress("probing the TLS certificate of \(url) (SRV target \(gateway.targetHost):\(gateway.port))\n")
        let observed: TLSFingerprint
        do {
            observed = try await TLSFingerprintProbe.fingerprint(url: url)
        } catch {
            throw PairingError.unavailable("cannot reach \(url): \(error)")
        }
        let stored = try store.pin(for: endpoint.gatewayKey)?.fingerprint
        switch DiscoveryDecision.decide(gateway: gateway, storedPin: stored, observed: observed) {
        case .needsExplicitURL:
            throw PairingError.failed("\(gateway.displayName) is not a TLS gateway")
        case .pinMismatch(let stored, let observed):
            throw PairingError.failed(
                "refusing \(url): its certificate \(observed) does not match the pin stored for "
                    + "\(endpoint.gatewayKey) (\(stored)); if the certificate really changed, run "
                    + "'clawtalk gateways forget \(endpoint.gatewayKey)' and pair again")
        case .connectPinned(_, let conflict):
            if conflict {
                console.progress(
                    "note: the advertised gatewayTlsSha256 differs from the stored pin; the stored pin stays in force\n"
                )
            }
            return try makePlan(url: url, pin: nil, allowInsecureRemote: allowInsecureRemote)
        case .confirmFirstSeen(let observed, let advertisedMatches):
            console.progress(Self.firstSeenText(observed: observed, advertisedMatches: advertisedMatches))
            try confirm(observed)
            return try makePlan(url: url, pin: observed, allowInsecureRemote: allowInsecureRemote)
        }
    }

    /// Requires the explicit confirmation of `observed`.
    private func confirm(_ observed: TLSFingerprint) throws {
        if let confirmedFingerprint {
            guard TLSFingerprint(confirmedFingerprint) == observed else {
                throw PairingError.failed(
                    "--tls-fingerprint does not match the certificate the gateway presents (\(observed)); nothing was stored"
                )
            }
            return
        }
        guard interactive else {
            throw PairingError.failed(
                "a first-seen certificate must be confirmed: check \(observed) on the gateway host "
                    + "(openssl x509 -in <certificate> -outform DER | sha256sum) and pass it with --tls-fingerprint")
        }
        let answer = readAnswer()?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "yes" else { throw PairingError.failed("certificate not confirmed; nothing was stored") }
    }

    private func makePlan(url: String, pin: TLSFingerprint?, allowInsecureRemote: Bool) throws -> PairingPlan {
        var plan = try PairingPlan.make(
            setupCode: nil, gatewayURL: url, token: token, password: password, tlsFingerprint: nil,
            allowInsecureRemote: allowInsecureRemote)
        plan.pin = pin
        plan.pinSource = .userConfirmed
        return plan
    }

    /// What the user is asked to check.
    static func firstSeenText(observed: TLSFingerprint, advertisedMatches: Bool?) -> String {
        var text = "first connection to this gateway: its TLS certificate has the SHA-256 fingerprint\n  \(observed)\n"
        switch advertisedMatches {
        case true?: text += "(the same as its DNS-SD advertisement, which is unauthenticated)\n"
        case false?:
            text += "WARNING: the DNS-SD advertisement names a DIFFERENT fingerprint; someone may be intercepting\n"
        case nil: break
        }
        text += "Compare it on the gateway host (openssl x509 -in <certificate> -outform DER | sha256sum).\n"
        text += "Trust and pin this certificate? Type 'yes' to continue: "
        return text
    }
}
