import ClawTalkGateway
import ClawTalkProtocol
import Testing

@Suite("Connection state machine: rejections (protocol.md §6.2, §7.4, §8.2, §11.3, §14, §15)")
struct ConnectionStateMachineTests {
    static let plainPauseCodes = [
        "AUTH_TOKEN_MISSING", "AUTH_TOKEN_NOT_CONFIGURED", "AUTH_PASSWORD_MISSING", "AUTH_PASSWORD_MISMATCH",
        "AUTH_PASSWORD_NOT_CONFIGURED", "AUTH_SCOPE_MISMATCH", "AUTH_VERIFIED_USER_REQUIRED", "PAIRING_REJECTED",
        "DEVICE_IDENTITY_REQUIRED", "PROTOCOL_MISMATCH", "CLIENT_VERSION_MISMATCH",
    ]

    @Test("protocol.md §15 pause set: no reconnect, status paused with the code", arguments: plainPauseCodes)
    func pauseSet(code: String) throws {
        var harness = MachineHarness()
        let actions = harness.reject(rejection(code), credential: .sharedToken)
        let pause = try #require(actions.pause)
        #expect(pause.info.code == code)
        #expect(pause.reprobe == nil)
        #expect(actions.reconnectDelay == nil)
        #expect(harness.machine.state.pause?.code == code)
        #expect(!pause.info.nextStep.isEmpty)
    }

    static let transientCodes: [String?] = [
        "DEVICE_AUTH_SIGNATURE_EXPIRED", "DEVICE_AUTH_NONCE_MISMATCH", "AUTH_UNAUTHORIZED", "SOMETHING_NEW", nil,
    ]

    @Test("unlisted and unknown codes: normal backoff", arguments: transientCodes)
    func transient(code: String?) {
        var harness = MachineHarness()
        let actions = harness.reject(rejection(code))
        #expect(actions == [.reconnect(after: .seconds(1))])
        #expect(harness.reject(rejection(code)) == [.reconnect(after: .seconds(2))])
        guard case .waiting(let retryIn, _) = harness.machine.state else {
            Issue.record("state \(harness.machine.state)")
            return
        }
        #expect(retryIn == .seconds(2))
    }

    @Test(
        "gateway starting: retry after the clamped hint",
        arguments: [(Int?.none, 500), (700, 700), (50, 100), (9000, 2000)])
    func startingUp(hint: Int?, expected: Int) {
        var harness = MachineHarness()
        let startup = rejection(
            nil, code: "UNAVAILABLE", details: ["reason": "startup-sidecars"], retryable: true, retryAfterMs: hint)
        #expect(harness.reject(startup) == [.reconnect(after: .milliseconds(expected))])
    }

    @Test("AUTH_RATE_LIMITED: 30, 60, 120, 300, 300 s, or a larger retryAfterMs; never pauses")
    func rateLimited() {
        var harness = MachineHarness()
        let limited = rejection("AUTH_RATE_LIMITED")
        let delays = (0..<5).map { _ in harness.reject(limited).reconnectDelay }
        #expect(delays == [.seconds(30), .seconds(60), .seconds(120), .seconds(300), .seconds(300)])
        var hinted = MachineHarness()
        #expect(hinted.reject(rejection("AUTH_RATE_LIMITED", retryAfterMs: 45_000)).reconnectDelay == .seconds(45))
    }

    @Test("PAIRING_REQUIRED with a top-level retryable:true keeps normal backoff")
    func pairingRetryTopLevel() {
        var harness = MachineHarness()
        let pending = rejection(
            "PAIRING_REQUIRED", code: "NOT_PAIRED", details: ["requestId": "r-1"], retryable: true)
        let actions = harness.reject(pending, credential: .bootstrapToken)
        #expect(actions.reconnectDelay == .seconds(1))
        #expect(actions.pairing?.requestId == "r-1")
    }

    @Test(
        "PAIRING_REQUIRED with a retry hint in details keeps normal backoff",
        arguments: [
            ["recommendedNextStep": "wait_then_retry"] as WireObject, ["pauseReconnect": false], ["retryable": true],
        ])
    func pairingRetry(hint: WireObject) throws {
        var harness = MachineHarness()
        var details = hint
        details["requestId"] = "r-9c1"
        details["reason"] = "not-paired"
        let actions = harness.reject(rejection("PAIRING_REQUIRED", code: "NOT_PAIRED", details: details))
        #expect(actions.pairing?.requestId == "r-9c1")
        #expect(actions.reconnectDelay == .seconds(1))
        #expect(actions.pause == nil)
    }

    @Test("PAIRING_REQUIRED: pause with requestId and approval command, re-probe every 60 s for 30 tries")
    func pairingPause() throws {
        var harness = MachineHarness(reprobeLimit: 3)
        let pairing = rejection(
            "PAIRING_REQUIRED", code: "NOT_PAIRED", details: ["requestId": "r-9c1", "reason": "not-paired"])
        let actions = harness.reject(pairing)
        let report = try #require(actions.pairing)
        #expect(report.deviceId == "dev-1")
        #expect(report.approvalCommand == "openclaw devices approve r-9c1")
        let pause = try #require(actions.pause)
        #expect(pause.reprobe == .seconds(60))
        #expect(pause.info.requestId == "r-9c1")
        #expect(pause.info.nextStep.contains("openclaw devices approve r-9c1"))
        #expect(harness.handle(.reprobeDue) == [.connect])
        #expect(harness.reject(pairing).pause?.reprobe == .seconds(60))
        #expect(harness.handle(.reprobeDue) == [.connect])
        #expect(harness.reject(pairing).pause?.reprobe == .seconds(60))
        #expect(harness.handle(.reprobeDue) == [.connect])
        let last = harness.reject(pairing)
        #expect(last.pause != nil)
        #expect(last.pause?.reprobe == nil)
    }

    @Test("a pairing re-probe is ignored when not paused on pairing")
    func reprobeIgnored() {
        var harness = MachineHarness()
        _ = harness.reject(rejection("AUTH_TOKEN_MISSING"))
        #expect(harness.handle(.reprobeDue) == [])
    }

    @Test("an invalid pairing request id is never shown in a command")
    func invalidRequestId() throws {
        var harness = MachineHarness()
        let actions = harness.reject(
            rejection("PAIRING_REQUIRED", code: "NOT_PAIRED", details: ["requestId": "; rm -rf /"]))
        let report = try #require(actions.pairing)
        #expect(report.requestId == nil)
        #expect(report.approvalCommand == "openclaw devices list")
    }

    @Test("AUTH_BOOTSTRAP_TOKEN_INVALID: clear the bootstrap token and pause")
    func bootstrapInvalid() {
        var harness = MachineHarness()
        let actions = harness.reject(rejection("AUTH_BOOTSTRAP_TOKEN_INVALID"), credential: .bootstrapToken)
        #expect(actions.first == .clearBootstrapToken)
        #expect(actions.pause?.info.code == "AUTH_BOOTSTRAP_TOKEN_INVALID")
    }

    @Test("AUTH_DEVICE_TOKEN_MISMATCH: delete the role's token, retry once with the next credential, then pause")
    func deviceTokenMismatch() {
        var harness = MachineHarness()
        let mismatch = rejection("AUTH_DEVICE_TOKEN_MISMATCH")
        let first = harness.reject(mismatch, credential: .deviceToken, available: [.deviceToken, .sharedToken])
        #expect(first == [.clearDeviceToken(.node), .reconnect(after: .milliseconds(250))])
        let second = harness.reject(mismatch, credential: .sharedToken, available: [.sharedToken])
        #expect(second.first == .clearDeviceToken(.node))
        #expect(second.pause?.info.code == "AUTH_DEVICE_TOKEN_MISMATCH")
    }

    @Test("AUTH_DEVICE_TOKEN_MISMATCH without another credential: delete and pause")
    func deviceTokenMismatchAlone() {
        var harness = MachineHarness(role: .operator)
        let actions = harness.reject(rejection("AUTH_DEVICE_TOKEN_MISMATCH"), credential: .deviceToken)
        #expect(actions.first == .clearDeviceToken(.operator))
        #expect(actions.pause != nil)
    }

    @Test("AUTH_TOKEN_MISMATCH + canRetryWithDeviceToken: one device-token retry, trusted endpoints only")
    func tokenMismatchRetry() {
        let mismatch = rejection("AUTH_TOKEN_MISMATCH", details: ["canRetryWithDeviceToken": true])
        var trusted = MachineHarness()
        let actions = trusted.reject(mismatch, credential: .sharedToken, available: [.sharedToken, .deviceToken])
        #expect(actions == [.retryWithDeviceToken, .reconnect(after: .milliseconds(250))])
        #expect(trusted.machine.prefersDeviceToken)
        let again = trusted.reject(mismatch, credential: .sharedToken, available: [.sharedToken, .deviceToken])
        #expect(again.pause?.info.code == "AUTH_TOKEN_MISMATCH")
        #expect(!trusted.machine.prefersDeviceToken)

        var untrusted = MachineHarness()
        let refused = untrusted.reject(
            mismatch, credential: .sharedToken, available: [.sharedToken, .deviceToken], trusted: false)
        #expect(refused.pause != nil)

        var noHint = MachineHarness()
        let plain = noHint.reject(
            rejection("AUTH_TOKEN_MISMATCH"), credential: .sharedToken, available: [.sharedToken, .deviceToken])
        #expect(plain.pause != nil)

        var noToken = MachineHarness()
        #expect(noToken.reject(mismatch, credential: .sharedToken, available: [.sharedToken]).pause != nil)
    }

    @Test(
        "protocol.md §14: operator INVALID_REQUEST for gateway-client/backend retries once as cli/cli and remembers it"
    )
    func operatorClientPair() {
        var harness = MachineHarness(role: .operator)
        #expect(harness.machine.clientPair == .gatewayClient)
        let invalid = rejection(nil, message: "invalid connect params: client/id")
        #expect(harness.reject(invalid) == [.useOperatorClientPair(.cli), .reconnect(after: .milliseconds(250))])
        #expect(harness.machine.clientPair == .cli)
        #expect(harness.connect().contains(.rememberOperatorClientPair(.cli)))
        #expect(MachineHarness(role: .operator, rememberedPair: .cli).machine.clientPair == .cli)

        var twice = MachineHarness(role: .operator)
        _ = twice.reject(invalid)
        #expect(twice.reject(invalid) == [.reconnect(after: .seconds(1))])

        var node = MachineHarness(role: .node)
        #expect(node.reject(invalid) == [.reconnect(after: .seconds(1))])

        var authFailure = MachineHarness(role: .operator)
        #expect(authFailure.reject(rejection("AUTH_TOKEN_MISSING")).pause != nil)
    }
}
