import ClawTalkGateway
package import ClawTalkProtocol
package import Foundation

/// `clawtalk pair <join URL>`: turns a join URL into the setup code it stands for with one
/// `GET` (protocol.md §9.1; upstream facts in ``JoinRedemption``). The parsing is pure
/// (``JoinURL``, ``JoinRedemption``); this type only adds the request and the messages.
/// The fetched payload holds a bootstrap token: it never reaches a message or a log.
package struct JoinURLRedeemer: Sendable {
    /// Performs the request (the real HTTP client by default; tests inject answers).
    var fetch: @Sendable (HTTPGetClient.Request) async throws(HTTPGetClient.Failure) -> HTTPResponse = {
        request throws(HTTPGetClient.Failure) in try await HTTPGetClient.get(request)
    }

    /// A redeemer over the real HTTP client.
    package init() {}

    /// A redeemer whose requests `fetch` answers.
    init(fetch: @escaping @Sendable (HTTPGetClient.Request) async throws(HTTPGetClient.Failure) -> HTTPResponse) {
        self.fetch = fetch
    }

    /// Checks `input` as a join URL before any request.
    /// - Throws: ``PairingError/invalidInput(_:)`` for a malformed URL, plain `http://` to a
    ///   non-loopback host, or a pin with `http://`.
    package static func parse(_ input: String, pin: TLSFingerprint?) throws(PairingError) -> JoinURL {
        let url: JoinURL
        do {
            url = try JoinURL.parse(input)
        } catch {
            throw .invalidInput("\(error); nothing was sent")
        }
        if pin != nil, !url.isSecure {
            throw .invalidInput("--tls-fingerprint needs an https:// join URL; nothing was sent")
        }
        return url
    }

    /// Redeems `url` (pinned to `pin` when given) and returns its setup code.
    /// - Throws: ``PairingError/invalidInput(_:)`` (exit 64) for a used or expired code,
    ///   ``PairingError/unavailable(_:)`` (exit 69) when the gateway cannot be reached, and
    ///   ``PairingError/failed(_:)`` (exit 1) for an untrusted certificate, a pin mismatch or an
    ///   answer that is not a setup payload.
    package func redeem(_ url: JoinURL, pin: TLSFingerprint?, now: @Sendable () -> Date = { Date() })
        async throws(PairingError)
        -> SetupCode
    {
        let request = HTTPGetClient.Request(
            useTLS: url.isSecure, host: url.host, port: url.port, path: url.path, pin: pin,
            maxBodyBytes: JoinRedemption.maxBodyBytes)
        let place = url.redactedString
        let response: HTTPResponse
        do {
            response = try await fetch(request)
        } catch {
            throw Self.failure(error, place: place)
        }
        do {
            return try JoinRedemption.setupCode(
                status: response.status, contentType: response.header("content-type"), body: response.body,
                now: now())
        } catch .usedOrExpired {
            throw .invalidInput(
                "\(place): \(JoinRedemptionError.usedOrExpired); nothing was stored")
        } catch {
            throw .failed("\(place): \(error); nothing was stored")
        }
    }

    private static func failure(_ error: HTTPGetClient.Failure, place: String) -> PairingError {
        switch error {
        case .unreachable(let why):
            return .unavailable("cannot reach \(place): \(why); the join code was not used")
        case .tlsUntrusted(let why):
            return .failed(
                "refusing \(place): its TLS certificate is not trusted (\(why)); the join code was not used. "
                    + "For a self-signed gateway certificate, get its SHA-256 on the gateway host "
                    + "(openssl x509 -in <certificate> -outform DER | sha256sum) and pass it with "
                    + "--tls-fingerprint <sha256>")
        case .pinMismatch(let why):
            return .failed(
                "refusing \(place): the TLS certificate does not match --tls-fingerprint (\(why)); "
                    + "the join code was not used")
        case .badResponse(let why):
            return .failed("\(place): \(why); not a setup payload, nothing was stored")
        }
    }
}
