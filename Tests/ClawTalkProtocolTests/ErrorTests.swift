import Testing

@testable import ClawTalkProtocol

@Suite("Errors")
struct ErrorTests {
    @Test("ErrorShape reads details accessors")
    func accessors() throws {
        let shape = try ErrorShape(
            json: [
                "code": "INVALID_REQUEST", "message": "unauthorized",
                "details": [
                    "code": "AUTH_TOKEN_MISMATCH", "canRetryWithDeviceToken": true,
                    "recommendedNextStep": "retry_with_device_token", "authReason": "token_mismatch", "reason": "r",
                    "requestId": "req-1", "pauseReconnect": false, "waitForResolution": true,
                ],
                "retryable": false, "retryAfterMs": 250, "unknown": 1,
            ])
        #expect(shape.gatewayCode == .invalidRequest)
        #expect(shape.detailCode == "AUTH_TOKEN_MISMATCH")
        #expect(shape.connectDetail == .authTokenMismatch)
        #expect(shape.canRetryWithDeviceToken == true)
        #expect(shape.recommendedNextStep == .retryWithDeviceToken)
        #expect(shape.authReason == "token_mismatch")
        #expect(shape.reason == "r")
        #expect(shape.requestId == "req-1")
        #expect(shape.pauseReconnect == false)
        #expect(shape.waitForResolution == true)
        #expect(shape.retryable == false)
        #expect(shape.retryAfterMs == 250)
    }

    @Test("unknown codes stay raw")
    func unknownCodes() throws {
        let shape = try ErrorShape(
            json: [
                "code": "BRAND_NEW", "message": "m",
                "details": ["code": "AUTH_FUTURE", "recommendedNextStep": "dance"],
            ])
        #expect(shape.gatewayCode == nil)
        #expect(shape.code == "BRAND_NEW")
        #expect(shape.detailCode == "AUTH_FUTURE")
        #expect(shape.connectDetail == nil)
        #expect(shape.recommendedNextStep == nil)
        #expect(shape.recommendedNextStepRaw == "dance")
        let rejection = ConnectRejection(shape)
        #expect(rejection.detailCodeRaw == "AUTH_FUTURE")
        #expect(rejection.detail == nil)
        #expect(!rejection.pausesReconnect)
    }

    @Test("missing scope")
    func missingScope() throws {
        let shape = try ErrorShape(
            json: [
                "code": "FORBIDDEN", "message": "missing scope: operator.write",
                "details": [
                    "code": "MISSING_SCOPE", "missingScope": "operator.write", "requiredScopes": ["operator.write"],
                ],
            ])
        #expect(shape.isMissingScope)
        #expect(shape.missingScope == "operator.write")
        #expect(shape.requiredScopes == ["operator.write"])
        #expect(shape.gatewayCode == .forbidden)
    }

    @Test("every protocol.md §3 connect detail code is known")
    func allDetailCodes() {
        let spec = [
            "AUTH_REQUIRED", "AUTH_UNAUTHORIZED", "AUTH_TOKEN_MISSING", "AUTH_TOKEN_MISMATCH",
            "AUTH_TOKEN_NOT_CONFIGURED",
            "AUTH_PASSWORD_MISSING", "AUTH_PASSWORD_MISMATCH", "AUTH_PASSWORD_NOT_CONFIGURED",
            "AUTH_BOOTSTRAP_TOKEN_INVALID",
            "AUTH_DEVICE_TOKEN_MISMATCH", "AUTH_SCOPE_MISMATCH", "AUTH_RATE_LIMITED", "AUTH_TAILSCALE_IDENTITY_MISSING",
            "AUTH_TAILSCALE_PROXY_MISSING", "AUTH_TAILSCALE_WHOIS_FAILED", "AUTH_TAILSCALE_IDENTITY_MISMATCH",
            "AUTH_IDENTITY_HEADER_REQUIRED", "AUTH_VERIFIED_USER_REQUIRED", "AUTHENTICATED_PROFILE_UNAVAILABLE",
            "OPERATOR_ACCESS_DENIED", "CONTROL_UI_BUILD_MISMATCH", "CONTROL_UI_ORIGIN_NOT_ALLOWED", "PROTOCOL_MISMATCH",
            "CONTROL_UI_DEVICE_IDENTITY_REQUIRED", "DEVICE_IDENTITY_REQUIRED", "DEVICE_AUTH_INVALID",
            "DEVICE_AUTH_DEVICE_ID_MISMATCH", "DEVICE_AUTH_SIGNATURE_EXPIRED", "DEVICE_AUTH_NONCE_REQUIRED",
            "DEVICE_AUTH_NONCE_MISMATCH", "DEVICE_AUTH_SIGNATURE_INVALID", "DEVICE_AUTH_PUBLIC_KEY_INVALID",
            "PAIRING_REQUIRED", "PAIRING_REJECTED", "PAIRING_EXPIRED", "CLIENT_VERSION_MISMATCH",
        ]
        #expect(Set(ConnectDetailCode.allCases.map(\.rawValue)) == Set(spec))
        #expect(ConnectDetailCode.allCases.filter(\.isTailscale).count == 4)
        #expect(
            Set(GatewayErrorCode.allCases.map(\.rawValue))
                == [
                    "NOT_LINKED", "NOT_PAIRED", "AGENT_TIMEOUT", "AGENT_RESULT_NOT_FOUND", "INVALID_REQUEST",
                    "FORBIDDEN",
                    "APPROVAL_NOT_FOUND", "UNAVAILABLE",
                ])
    }

    static let pauseSet: Set<String> = [
        "AUTH_TOKEN_MISSING", "AUTH_TOKEN_NOT_CONFIGURED", "AUTH_PASSWORD_MISSING", "AUTH_PASSWORD_MISMATCH",
        "AUTH_PASSWORD_NOT_CONFIGURED", "AUTH_BOOTSTRAP_TOKEN_INVALID", "AUTH_DEVICE_TOKEN_MISMATCH",
        "AUTH_TOKEN_MISMATCH",
        "AUTH_SCOPE_MISMATCH", "AUTH_VERIFIED_USER_REQUIRED", "PAIRING_REQUIRED", "PAIRING_EXPIRED", "PAIRING_REJECTED",
        "DEVICE_IDENTITY_REQUIRED", "DEVICE_AUTH_SIGNATURE_INVALID", "PROTOCOL_MISMATCH", "CLIENT_VERSION_MISMATCH",
    ]

    @Test("protocol.md §15 pause set, code by code", arguments: ConnectDetailCode.allCases)
    func pauseSet(code: ConnectDetailCode) {
        let rejection = ConnectRejection(
            ErrorShape(code: "INVALID_REQUEST", message: "m", details: ["code": .string(code.rawValue)]))
        #expect(rejection.pausesReconnect == Self.pauseSet.contains(code.rawValue), "\(code.rawValue)")
        #expect(rejection.detail == code)
    }

    struct PairingCase: Sendable, CustomTestStringConvertible {
        var details: WireJSON
        var retryable: Bool?
        var pauses: Bool
        var testDescription: String { "\(details.encodedString()) retryable=\(String(describing: retryable))" }
    }

    @Test(
        "PAIRING_REQUIRED pauses unless a retry hint is present",
        arguments: [
            PairingCase(details: ["code": "PAIRING_REQUIRED", "requestId": "r-1"], retryable: nil, pauses: true),
            PairingCase(
                details: ["code": "PAIRING_REQUIRED", "recommendedNextStep": "wait_then_retry"], retryable: nil,
                pauses: false),
            PairingCase(details: ["code": "PAIRING_REQUIRED"], retryable: true, pauses: false),
            PairingCase(details: ["code": "PAIRING_REQUIRED", "pauseReconnect": false], retryable: nil, pauses: false),
            PairingCase(details: ["code": "PAIRING_REQUIRED", "pauseReconnect": true], retryable: nil, pauses: true),
            PairingCase(details: ["code": "PAIRING_REQUIRED"], retryable: false, pauses: true),
            PairingCase(
                details: ["code": "PAIRING_EXPIRED", "recommendedNextStep": "wait_then_retry"], retryable: nil,
                pauses: false),
            PairingCase(details: ["code": "PAIRING_EXPIRED"], retryable: nil, pauses: true),
            PairingCase(
                details: ["code": "PAIRING_REJECTED", "recommendedNextStep": "wait_then_retry"], retryable: nil,
                pauses: true),
        ])
    func pairing(testCase: PairingCase) {
        let rejection = ConnectRejection(
            ErrorShape(
                code: "NOT_PAIRED", message: "pairing required", details: testCase.details,
                retryable: testCase.retryable))
        #expect(rejection.pausesReconnect == testCase.pauses)
    }

    @Test("the protocol.md §8.2 pairing response: request id, approval command, reason")
    func pairingResponse() throws {
        let frame = try GatewayFrame.decode(Fixture.data("pairing-required"))
        guard case .response(let response) = frame, let error = response.error else {
            Issue.record("expected an error response")
            return
        }
        let rejection = ConnectRejection(error)
        #expect(rejection.isPairingRequired)
        #expect(rejection.pairingReason == .notPaired)
        #expect(rejection.requestId == "r-9c1f0a")
        #expect(rejection.approvalCommand == "openclaw devices approve r-9c1f0a")
        #expect(rejection.pausesReconnect)
        #expect(!rejection.isRetryable)
        #expect(rejection.description.contains("openclaw devices approve r-9c1f0a"))
    }

    @Test("NOT_PAIRED without a detail code is treated as pairing required")
    func legacyNotPaired() {
        let rejection = ConnectRejection(ErrorShape(code: "NOT_PAIRED", message: "m", details: ["requestId": "abc"]))
        #expect(rejection.isPairingRequired)
        #expect(rejection.pausesReconnect)
        #expect(rejection.approvalCommand == "openclaw devices approve abc")
    }

    @Test(
        "request ids are validated before building a command",
        arguments: [
            ("r-9c1", true), ("A", true), ("a.b_c:d-e", true), (String(repeating: "a", count: 128), true),
            (String(repeating: "a", count: 129), false), ("", false), ("-r", false), ("r 1", false),
            ("r;rm -rf /", false),
            ("r$(x)", false), ("é", false),
        ])
    func requestIdValidation(id: String, valid: Bool) {
        #expect(ConnectRejection.isValidRequestId(id) == valid)
        let rejection = ConnectRejection(
            ErrorShape(
                code: "NOT_PAIRED", message: "m", details: ["code": "PAIRING_REQUIRED", "requestId": .string(id)]))
        #expect((rejection.approvalCommand != nil) == valid)
    }

    @Test(
        "gateway starting: retryAfterMs clamped to 100–2000, default 500",
        arguments: [
            (Int?.none, 500), (50, 100), (100, 100), (750, 750), (2000, 2000), (9000, 2000),
        ])
    func startup(hint: Int?, expected: Int) {
        let rejection = ConnectRejection(
            ErrorShape(
                code: "UNAVAILABLE", message: "gateway starting", details: ["reason": "startup-sidecars"],
                retryable: true,
                retryAfterMs: hint))
        #expect(rejection.isStartingUp)
        #expect(rejection.isRetryable)
        #expect(!rejection.pausesReconnect)
        #expect(rejection.retryAfterMs == expected)
    }

    @Test("startup is recognized by retryable alone or by the reason alone")
    func startupVariants() {
        let byFlag = ConnectRejection(ErrorShape(code: "UNAVAILABLE", message: "m", retryable: true))
        #expect(byFlag.isStartingUp)
        let byReason = ConnectRejection(
            ErrorShape(code: "UNAVAILABLE", message: "m", details: ["reason": "startup-sidecars"]))
        #expect(byReason.isStartingUp)
        let neither = ConnectRejection(ErrorShape(code: "UNAVAILABLE", message: "m"))
        #expect(!neither.isStartingUp)
        #expect(neither.retryAfterMs == nil)
    }

    @Test("rate limit: never pauses, passes the hint through unclamped")
    func rateLimited() {
        let rejection = ConnectRejection(
            ErrorShape(
                code: "INVALID_REQUEST", message: "m", details: ["code": "AUTH_RATE_LIMITED"], retryAfterMs: 90_000))
        #expect(rejection.isRateLimited)
        #expect(!rejection.pausesReconnect)
        #expect(rejection.isRetryable)
        #expect(rejection.retryAfterMs == 90_000)
    }

    @Test("device-token retry hint")
    func deviceTokenRetry() {
        let rejection = ConnectRejection(
            ErrorShape(
                code: "INVALID_REQUEST", message: "m",
                details: [
                    "code": "AUTH_TOKEN_MISMATCH", "canRetryWithDeviceToken": true,
                    "recommendedNextStep": "retry_with_device_token",
                ]))
        #expect(rejection.canRetryWithDeviceToken)
        #expect(rejection.recommendedNextStep == .retryWithDeviceToken)
        #expect(rejection.pausesReconnect)  // after the single retry, per protocol.md §15
        #expect(!ConnectRejection(ErrorShape(code: "INVALID_REQUEST", message: "m")).canRetryWithDeviceToken)
    }

    @Test("descriptions are one line and carry codes")
    func descriptions() {
        let rejection = ConnectRejection(
            ErrorShape(code: "INVALID_REQUEST", message: "protocol mismatch", details: ["code": "PROTOCOL_MISMATCH"]))
        #expect(rejection.description == "connect rejected: INVALID_REQUEST/PROTOCOL_MISMATCH: protocol mismatch")
        #expect(!ProtocolError.malformedFrame("x").description.contains("\n"))
    }
}
