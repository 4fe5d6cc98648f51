public import Foundation

/// What the gateway's answer to a join-URL `GET` means (protocol.md §9.1). Pure.
///
/// Upstream facts (openclaw/openclaw, read for behaviour only):
/// - `src/gateway/device-pairing-join-http.ts` (`handleDevicePairingJoinHttpRequest`): only a
///   `GET` without a query redeems; the code is burnt atomically on the first fetch; success
///   is `200` with the setup payload as a JSON object (`sendJson`, `application/json`); an
///   unknown, used or expired code is `404 {"error":"not_found"}`; too many attempts are
///   `429 {"error":"rate_limited"}` with `Retry-After`; every answer has
///   `Cache-Control: no-store`.
/// - `src/infra/device-pairing-join-code.ts`: the payload is the setup-code JSON of protocol.md §9.2
///   (validated with `decodePairingSetupCode`), stored under a 16-byte random shortcode until
///   its `expiresAtMs`.
/// - `src/cli/connect-cli.ts` (`fetchJoinPayload`): no redirects, 15 s timeout, a non-2xx or
///   non-`application/json` answer means "not found or has expired", body read with a limit
///   (24 KiB there; 16 KiB here, since a setup payload is at most 4 KiB).
public enum JoinRedemption {
    /// Largest accepted response body.
    public static let maxBodyBytes = 16 * 1024

    /// The setup code in a response with `status`, `contentType` and `body`.
    /// - Parameter now: for the payload's `expiresAtMs`.
    public static func setupCode(
        status: Int, contentType: String?, body: [UInt8], now: Date
    ) throws(JoinRedemptionError) -> SetupCode {
        switch status {
        case 200..<300: break
        case 404, 410: throw .usedOrExpired
        case 429: throw .rateLimited
        case 300..<400: throw .redirected(status: status)
        default: throw .unexpectedStatus(status)
        }
        guard body.count <= maxBodyBytes else { throw .bodyTooLarge }
        let isJSONType = contentType?.lowercased().trimmingWhitespace().hasPrefix("application/json") ?? false
        guard isJSONType, let text = String(validating: body, as: UTF8.self) else { throw .notJSON }
        let trimmed = text.trimmingWhitespace()
        guard trimmed.hasPrefix("{") else { throw .notJSON }
        do {
            return try SetupCode.parse(trimmed, now: now)
        } catch .undecodable {
            throw .notJSON
        } catch .expired {
            throw .usedOrExpired
        } catch {
            throw .invalidPayload(error)
        }
    }
}

/// Why a join URL could not be redeemed. Messages never contain the shortcode or the payload.
public enum JoinRedemptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `404`: the code was already used, has expired, or never existed.
    case usedOrExpired
    /// `429`: too many attempts from this address.
    case rateLimited
    /// A `3xx` answer (redirects are not followed).
    case redirected(status: Int)
    /// Any other non-2xx status.
    case unexpectedStatus(Int)
    /// The body is larger than ``JoinRedemption/maxBodyBytes``.
    case bodyTooLarge
    /// Not `application/json`, not UTF-8, or not a JSON object.
    case notJSON
    /// A JSON object that is not a valid setup payload (protocol.md §9.2, §9.3).
    case invalidPayload(SetupCodeError)

    /// The hint shared by every "get a fresh code" message.
    public static let mintHint = "mint a new one with `openclaw devices join-code` on the gateway host"

    /// One line, no secrets.
    public var description: String {
        switch self {
        case .usedOrExpired:
            "the join code was already used or has expired; \(Self.mintHint)"
        case .rateLimited:
            "the gateway refused: too many join attempts from this address; wait a minute and try again"
        case .redirected(let status):
            "the gateway answered with a redirect (\(status)); redirects are not followed"
        case .unexpectedStatus(let status):
            "the gateway answered HTTP \(status) instead of a setup payload"
        case .bodyTooLarge:
            "the gateway's answer is larger than \(JoinRedemption.maxBodyBytes / 1024) KiB; not a setup payload"
        case .notJSON:
            "the gateway's answer is not a JSON setup payload (is this an OpenClaw gateway?)"
        case .invalidPayload(let error):
            "the gateway's setup payload is invalid: \(error)"
        }
    }
}
