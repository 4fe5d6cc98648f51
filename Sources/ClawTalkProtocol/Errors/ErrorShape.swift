/// `ErrorShape {code, message, details?, retryable?, retryAfterMs?}` of a failed response
/// (protocol.md §3). `details` is kept as raw JSON; typed accessors read the fields
/// this project acts on. Policy must use `code`/`details`, never `message` text.
public struct ErrorShape: Error, Sendable, Hashable, Encodable, CustomStringConvertible {
    /// Top-level code, raw (see ``gatewayCode``).
    public var code: String
    /// Human-readable message.
    public var message: String
    /// Structured details, raw.
    public var details: WireJSON?
    /// The Gateway's transient-failure hint.
    public var retryable: Bool?
    /// Suggested delay before retrying, milliseconds.
    public var retryAfterMs: Int?

    /// An error with the given fields.
    public init(
        code: String, message: String, details: WireJSON? = nil, retryable: Bool? = nil, retryAfterMs: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.details = details
        self.retryable = retryable
        self.retryAfterMs = retryAfterMs
    }

    /// Reads an error object leniently: a missing `code` reads as `""`, a missing `message`
    /// as `""`, malformed optional fields as absent.
    public init(json: WireJSON) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "error")
        self.init(
            code: reader.string("code") ?? "", message: reader.string("message") ?? "",
            details: reader["details"].nonNull, retryable: reader.bool("retryable"),
            retryAfterMs: reader.int("retryAfterMs").flatMap { $0 >= 0 ? $0 : nil })
    }

    /// The error as JSON, keys in order `code, message, details, retryable, retryAfterMs`.
    public var wireJSON: WireJSON {
        var object: WireObject = ["code": .string(code), "message": .string(message)]
        if let details { object["details"] = details }
        if let retryable { object["retryable"] = .bool(retryable) }
        if let retryAfterMs { object["retryAfterMs"] = .integer(Int64(retryAfterMs)) }
        return .object(object)
    }

    /// `code: message`, clipped.
    public var description: String {
        "\(code): \(message.clipped(200))"
    }

    /// ``code`` as a known top-level code.
    public var gatewayCode: GatewayErrorCode? {
        GatewayErrorCode(rawValue: code)
    }

    /// `details.code`, raw.
    public var detailCode: String? {
        details?["code"]?.stringValue
    }

    /// `details.code` as a known connect-failure code.
    public var connectDetail: ConnectDetailCode? {
        detailCode.flatMap(ConnectDetailCode.init(rawValue:))
    }

    /// `details.canRetryWithDeviceToken`.
    public var canRetryWithDeviceToken: Bool? {
        details?["canRetryWithDeviceToken"]?.boolValue
    }

    /// `details.recommendedNextStep`, raw.
    public var recommendedNextStepRaw: String? {
        details?["recommendedNextStep"]?.stringValue
    }

    /// `details.recommendedNextStep` as a known value.
    public var recommendedNextStep: RecommendedNextStep? {
        recommendedNextStepRaw.flatMap(RecommendedNextStep.init(rawValue:))
    }

    /// `details.reason`: device-proof reason, pairing reason, startup reason or a
    /// `talk.speak` failure reason, depending on the error.
    public var reason: String? {
        details?["reason"]?.stringValue
    }

    /// `details.authReason`.
    public var authReason: String? {
        details?["authReason"]?.stringValue
    }

    /// `details.requestId` (pairing request), raw and unvalidated.
    public var requestId: String? {
        details?["requestId"]?.stringValue
    }

    /// `details.pauseReconnect`.
    public var pauseReconnect: Bool? {
        details?["pauseReconnect"]?.boolValue
    }

    /// `details.waitForResolution`.
    public var waitForResolution: Bool? {
        details?["waitForResolution"]?.boolValue
    }

    /// `details.missingScope` of a `FORBIDDEN` / `MISSING_SCOPE` error.
    public var missingScope: String? {
        details?["missingScope"]?.stringValue
    }

    /// `details.requiredScopes` of a `MISSING_SCOPE` error.
    public var requiredScopes: [String]? {
        details?["requiredScopes"]?.stringArrayValue
    }

    /// True for `FORBIDDEN` with `details.code:"MISSING_SCOPE"` (disables that method for the
    /// socket's lifetime, protocol.md §14).
    public var isMissingScope: Bool {
        detailCode == "MISSING_SCOPE"
    }

    /// `details.fallbackEligible` of a `talk.speak` failure (talk.md §7.1).
    public var fallbackEligible: Bool? {
        details?["fallbackEligible"]?.boolValue
    }
}
