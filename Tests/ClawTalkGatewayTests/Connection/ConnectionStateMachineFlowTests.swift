import ClawTalkGateway
import ClawTalkProtocol
import Testing

@Suite("Connection state machine: signatures, closes, hello-ok, user actions")
struct ConnectionStateMachineFlowTests {
    @Test("v3 → v2 once; success remembers v2 for the server version; v2 failing too pauses")
    func signatureFallback() {
        var harness = MachineHarness()
        #expect(harness.machine.signatureVersion == .v3)
        let invalid = rejection("DEVICE_AUTH_SIGNATURE_INVALID")
        #expect(harness.reject(invalid) == [.useSignatureVersion(.v2), .reconnect(after: .milliseconds(250))])
        #expect(harness.machine.signatureVersion == .v2)
        let remembered = RememberedSignature(version: .v2, serverVersion: "2026.7.1")
        #expect(harness.connect(serverVersion: "2026.7.1").contains(.rememberSignatureVersion(remembered)))

        var failing = MachineHarness()
        _ = failing.reject(invalid)
        #expect(failing.reject(invalid).pause?.info.code == "DEVICE_AUTH_SIGNATURE_INVALID")
    }

    @Test("remembered v2: kept for the same server version, forgotten when it changes")
    func rememberedSignature() {
        let remembered = RememberedSignature(version: .v2, serverVersion: "1.0")
        var same = MachineHarness(remembered: remembered)
        #expect(same.machine.signatureVersion == .v2)
        let kept = same.connect(serverVersion: "1.0")
        #expect(!kept.contains(.forgetSignatureVersion))
        #expect(same.machine.signatureVersion == .v2)

        var changed = MachineHarness(remembered: remembered)
        #expect(changed.connect(serverVersion: "2.0").contains(.forgetSignatureVersion))
        #expect(changed.machine.signatureVersion == .v3)
    }

    @Test("remembered v2 rejected: forget it and try v3 once")
    func rememberedRejected() {
        var harness = MachineHarness(remembered: RememberedSignature(version: .v2, serverVersion: "1.0"))
        let actions = harness.reject(rejection("DEVICE_AUTH_SIGNATURE_INVALID"))
        #expect(actions == [.forgetSignatureVersion, .useSignatureVersion(.v3), .reconnect(after: .milliseconds(250))])
        #expect(harness.reject(rejection("DEVICE_AUTH_SIGNATURE_INVALID")).pause != nil)
    }

    @Test("hello-ok persists tokens, clears a used bootstrap token and resets the backoff")
    func helloOk() {
        var harness = MachineHarness(bootstrapRouteTrusted: true)
        _ = harness.reject(rejection(nil))
        _ = harness.reject(rejection(nil))
        let auth = HelloOk.Auth(role: "node", scopes: [], deviceToken: "dt", issuedAtMs: 5)
        let actions = harness.connect(.bootstrapToken, auth: auth)
        #expect(actions.contains(.persistDeviceTokens(auth, additionalRoles: true)))
        #expect(actions.contains(.clearBootstrapToken))
        #expect(harness.machine.state.isConnected)
        #expect(harness.handle(.closed(code: 1006, reason: "")) == [.reconnect(after: .seconds(1))])

        var untrustedRoute = MachineHarness(bootstrapRouteTrusted: false)
        #expect(
            untrustedRoute.connect(.bootstrapToken, auth: auth).contains(
                .persistDeviceTokens(auth, additionalRoles: false)))
        var deviceToken = MachineHarness()
        let plain = deviceToken.connect(.deviceToken, auth: auth)
        #expect(plain.contains(.persistDeviceTokens(auth, additionalRoles: false)))
        #expect(!plain.contains(.clearBootstrapToken))
    }

    @Test(
        "close codes after a live socket",
        arguments: [
            (1013, Duration.milliseconds(500)), (4001, .milliseconds(250)), (1012, .milliseconds(500)),
            (1006, .seconds(1)), (1011, .seconds(1)), (1000, .seconds(1)), (4000, .seconds(1)),
        ])
    func closeCodes(code: Int, delay: Duration) {
        var harness = MachineHarness()
        _ = harness.connect()
        #expect(harness.handle(.closed(code: code, reason: "x")) == [.reconnect(after: delay)])
    }

    @Test("1002 pauses (protocol mismatch)")
    func protocolClose() {
        var harness = MachineHarness()
        _ = harness.connect()
        #expect(
            harness.handle(.closed(code: 1002, reason: "protocol mismatch")).pause?.info.code == "PROTOCOL_MISMATCH")
    }

    @Test("4001 reconnects once quickly, then normal backoff")
    func invalidated() {
        var harness = MachineHarness()
        _ = harness.connect()
        #expect(
            harness.handle(.closed(code: 4001, reason: "client invalidated")) == [.reconnect(after: .milliseconds(250))]
        )
        _ = harness.connect()
        #expect(harness.handle(.closed(code: 4001, reason: "client invalidated")) == [.reconnect(after: .seconds(1))])
    }

    @Test("1009 reconnects; a second consecutive 1009 pauses; anything between resets")
    func oversize() {
        var harness = MachineHarness()
        harness.attempt()
        #expect(harness.handle(.closed(code: 1009, reason: "")).reconnectDelay != nil)
        harness.attempt()
        #expect(harness.handle(.closed(code: 1009, reason: "")).pause?.info.code == "FRAME_TOO_LARGE")

        var reset = MachineHarness()
        reset.attempt()
        _ = reset.handle(.closed(code: 1009, reason: ""))
        reset.attempt()
        _ = reset.handle(.transportFailed("reset"))
        reset.attempt()
        #expect(reset.handle(.closed(code: 1009, reason: "")).pause == nil)
    }

    @Test(
        "shutdown: first attempt after max(restartExpectedMs ?? 0, 500 ms), whatever the close",
        arguments: [
            (Int?.some(3000), 1012, Duration.seconds(3)), (nil, 1012, .milliseconds(500)),
            (100, 1006, .milliseconds(500)),
        ])
    func shutdown(restart: Int?, code: Int, delay: Duration) {
        var harness = MachineHarness()
        _ = harness.connect()
        #expect(harness.handle(.shutdownAnnounced(restartExpectedMs: restart)) == [])
        #expect(harness.handle(.closed(code: code, reason: "service restart")) == [.reconnect(after: delay)])
        harness.attempt()
        #expect(harness.handle(.transportFailed("refused")) == [.reconnect(after: .seconds(1))])
    }

    @Test(
        "watchdog, handshake timeout, transport failure, pin mismatch, protocol violation: normal backoff",
        arguments: [
            ConnectionStateMachine.Event.watchdogExpired, .handshakeTimedOut("no challenge"),
            .transportFailed("refused"),
            .pinMismatch("leaf differs"), .protocolViolation("bad hello"),
        ])
    func transientEnds(event: ConnectionStateMachine.Event) {
        var harness = MachineHarness()
        harness.attempt()
        #expect(harness.handle(event) == [.reconnect(after: .seconds(1))])
        harness.attempt()
        #expect(harness.handle(event) == [.reconnect(after: .seconds(2))])
    }

    @Test("a local failure pauses with its own info")
    func localFailure() {
        var harness = MachineHarness()
        let info = PauseInfo(code: "INSECURE_TRANSPORT", message: "ws:// remote", nextStep: "use wss://")
        #expect(harness.handle(.localFailure(info)) == [.pause(info, reprobeAfter: nil)])
        #expect(harness.machine.state == .paused(info))
    }

    @Test("resume leaves a pause or a wait and resets the backoff; ignored while connected")
    func resume() {
        var harness = MachineHarness()
        _ = harness.reject(rejection("AUTH_TOKEN_MISSING"))
        #expect(harness.handle(.userResumed) == [.connect])
        _ = harness.reject(rejection(nil))
        _ = harness.reject(rejection(nil))
        #expect(harness.handle(.userResumed) == [.connect])
        #expect(harness.reject(rejection(nil)) == [.reconnect(after: .seconds(1))])
        _ = harness.connect()
        #expect(harness.handle(.userResumed) == [])
    }

    @Test("stop closes with 1000 and finishes; afterwards everything finishes")
    func stop() {
        var harness = MachineHarness()
        _ = harness.connect()
        #expect(harness.handle(.stopRequested) == [.closeSocket(code: 1000, reason: "client stopping"), .finish])
        #expect(harness.machine.state == .stopped)
        #expect(harness.handle(.closed(code: 1000, reason: "")) == [.finish])
        #expect(harness.handle(.userResumed) == [.finish])
    }

    @Test("attempts count in the connecting state and reset on hello-ok")
    func attemptCount() {
        var harness = MachineHarness()
        harness.attempt()
        #expect(harness.machine.state == .connecting(attempt: 1))
        _ = harness.handle(.transportFailed("x"))
        harness.attempt()
        #expect(harness.machine.state == .connecting(attempt: 2))
        _ = harness.handle(.helloOk(MachineHarness.hello()))
        harness.attempt()
        #expect(harness.machine.state == .connecting(attempt: 1))
    }
}
