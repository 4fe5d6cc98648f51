/// A failed `connect`, classified for the reconnect policy (protocol.md §8.2, §15,
/// §5 close 1013). Pure: decisions use `code`, `details.code` and the hints, never message
/// text. Unknown detail codes are kept raw and treated as transient.
public struct ConnectRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// Default `retryAfterMs` for "gateway starting".
    public static let defaultStartupRetryMs = 500
    /// Clamp for the startup `retryAfterMs` hint.
    public static let startupRetryRange = 100...2000

    /// The error as received.
    public let error: ErrorShape

    /// Classifies the error of an `ok:false` connect response.
    public init(_ error: ErrorShape) {
        self.error = error
    }

    /// Top-level code, raw.
    public var code: String { error.code }

    /// ``code`` as a known top-level code.
    public var gatewayCode: GatewayErrorCode? { error.gatewayCode }

    /// `details.code`, raw (kept even when unknown).
    public var detailCodeRaw: String? { error.detailCode }

    /// `details.code` as a known connect-failure code.
    public var detail: ConnectDetailCode? { error.connectDetail }

    /// `details.recommendedNextStep` as a known value.
    public var recommendedNextStep: RecommendedNextStep? { error.recommendedNextStep }

    /// `details.canRetryWithDeviceToken` (false when absent).
    public var canRetryWithDeviceToken: Bool { error.canRetryWithDeviceToken ?? false }

    /// True for `PAIRING_REQUIRED`, or `NOT_PAIRED` from a gateway that sent no detail code.
    public var isPairingRequired: Bool {
        detail == .pairingRequired || (detailCodeRaw == nil && gatewayCode == .notPaired)
    }

    /// `details.reason` of a pairing failure as a known reason.
    public var pairingReason: PairingReason? {
        guard isPairingRequired || detail == .pairingExpired else { return nil }
        return error.reason.flatMap(PairingReason.init(rawValue:))
    }

    /// `details.requestId` when it matches `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`, else nil
    /// (never echo an unvalidated id into a shell command).
    public var requestId: String? {
        guard let id = error.requestId, Self.isValidRequestId(id) else { return nil }
        return id
    }

    /// The approval command to show for a pairing request, e.g.
    /// `openclaw devices approve r-9c1`.
    public var approvalCommand: String? {
        guard isPairingRequired || detail == .pairingExpired, let requestId else { return nil }
        return "openclaw devices approve \(requestId)"
    }

    /// `AUTH_RATE_LIMITED`: use the long backoff of protocol.md §15 (30, 60, 120, then 300 s, or
    /// ``retryAfterMs`` if larger), never pause.
    public var isRateLimited: Bool {
        detail == .authRateLimited
    }

    /// "Gateway starting" (close 1013): `UNAVAILABLE` marked retryable or with
    /// `details.reason:"startup-sidecars"`.
    public var isStartingUp: Bool {
        gatewayCode == .unavailable && (error.retryable == true || error.reason == "startup-sidecars")
    }

    /// The Gateway marked the failure as transient: `retryable:true`,
    /// `recommendedNextStep:"wait_then_retry"`, `pauseReconnect:false`, startup or rate limit.
    public var isRetryable: Bool {
        error.retryable == true || recommendedNextStep == .waitThenRetry || error.pauseReconnect == false
            || isStartingUp || isRateLimited
    }

    /// The connection stops reconnecting until the user acts (protocol.md §15 pause set). Pairing
    /// failures pause unless the details say `wait_then_retry`, `retryable:true` or
    /// `pauseReconnect:false` (protocol.md §8.2). Unknown and unlisted codes do not pause.
    public var pausesReconnect: Bool {
        if isPairingRequired || detail == .pairingExpired {
            let keepRetrying =
                recommendedNextStep == .waitThenRetry || error.retryable == true || error.pauseReconnect == false
            return !keepRetrying
        }
        guard let detail else { return false }
        return ConnectDetailCode.pauseSet.contains(detail)
    }

    /// Delay hint in milliseconds: for startup the hint clamped to 100–2000 (default 500);
    /// otherwise the Gateway's `retryAfterMs` as sent, or nil.
    public var retryAfterMs: Int? {
        if isStartingUp {
            let hint = error.retryAfterMs ?? Self.defaultStartupRetryMs
            return min(max(hint, Self.startupRetryRange.lowerBound), Self.startupRetryRange.upperBound)
        }
        return error.retryAfterMs
    }

    /// One line: codes, message and, for pairing, the approval command.
    public var description: String {
        var text = "connect rejected: \(code)"
        if let detailCodeRaw { text += "/\(detailCodeRaw.clipped(64))" }
        text += ": \(error.message.clipped(200))"
        if let approvalCommand { text += " (approve with: \(approvalCommand))" }
        return text
    }

    /// `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`.
    public static func isValidRequestId(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (1...128).contains(bytes.count) else { return false }
        func alnum(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard alnum(bytes[0]) else { return false }
        return bytes.dropFirst().allSatisfy {
            alnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ":")
                || $0 == UInt8(ascii: "-")
        }
    }
}
