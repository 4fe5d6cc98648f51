import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// `clawtalk pair` (the built binary) against the project's test gateway over real loopback
/// WebSockets: setup-code bootstrap, shared token with manual approval, TLS pinning.
@Suite("Pairing end to end", .serialized, .timeLimit(.minutes(3)))
struct PairingEndToEndTests {
    @Test func aBootstrapSetupCodePairsAndRunConnectsWithTheStoredToken() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await EndToEnd.gateway()
        defer { Task { await gateway.stopListening() } }
        let code = await gateway.setupCode(.validURL, url: url)

        let paired = try await ClawTalkBinary.run(["pair", code], environment: home.environment)
        #expect(paired.status == 0, "stderr: \(paired.error)")
        let identity = try EndToEnd.identity(home)
        #expect(paired.output.contains("paired with \(url)/ as device \(identity.deviceId); token stored"))
        let first = try await EndToEnd.connected(gateway)
        #expect(await gateway.session(connection: first)?.authMethod == .bootstrapToken)

        // The device token is stored 0600 under the gateway key; the registry makes it current.
        let store = try EndToEnd.store(home)
        let key = try GatewayEndpoint.parse(url).gatewayKey
        let issued = try #require(await gateway.deviceToken(deviceId: identity.deviceId, role: "node"))
        #expect(try store.deviceToken(for: key, deviceId: identity.deviceId, role: .node)?.token == issued)
        #expect(try store.current() == key)
        #expect(try store.pendingBootstrapToken(for: key) == nil)
        let files = EndToEnd.gatewayFiles(home)
        #expect(files.count == 1)
        for file in files { #expect(try EndToEnd.mode(home.state + "/clawtalk/" + file) == 0o600) }

        // `run` needs no second pair: it connects with the device token.
        let run = try RunningBinary(["run"], environment: home.environment)
        defer { run.kill() }
        let second = try await EndToEnd.connected(gateway, number: 2)
        #expect(await gateway.session(connection: second)?.authMethod == .deviceToken)
        #expect(await run.waitUntil { EndToEnd.roleField(EndToEnd.status(home), "node", "state") == "connected" })
        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
        #expect(try await EndToEnd.closeCode(gateway, connection: second) == 1000)
        #expect(EndToEnd.status(home) == nil, "the status file is removed on exit")
    }

    @Test func anUnknownDeviceWaitsForApprovalAndShowsTheCommand() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await EndToEnd.gateway { $0.auth = .token("s3cret") }
        defer { Task { await gateway.stopListening() } }

        let pair = try RunningBinary(
            ["pair", "--gateway-url", url, "--token", "s3cret", "--timeout", "20"], environment: home.environment)
        defer { pair.kill() }
        _ = try await EndToEnd.event(gateway) {
            if case .pairingRequested = $0 { return true }
            return false
        }
        let request = try #require(await gateway.pendingPairingRequests.first)
        #expect(await pair.waitForOutput("openclaw devices approve \(request.requestId)"))
        #expect(pair.stdout.contains("pairing request \(request.requestId) for device \(request.deviceId)"))
        #expect(pair.isRunning, "pair waits for the approval")
        #expect(await pair.waitForOutput("waiting for approval of request \(request.requestId)"))

        try await gateway.approve(requestId: request.requestId)
        #expect(await pair.waitForExit() == 0, "stderr: \(pair.stderr)")
        #expect(pair.stdout.contains("paired with \(url)/ as device \(request.deviceId); token stored"))
        #expect(await gateway.pendingPairingRequests.isEmpty)

        // The shared token is kept for this gateway only, mode 0600.
        let secret = EndToEnd.gatewayFiles(home).first { $0.hasSuffix(".secret") }
        let file = try #require(secret)
        #expect(try EndToEnd.mode(home.state + "/clawtalk/" + file) == 0o600)
        let store = try EndToEnd.store(home)
        let key = try GatewayEndpoint.parse(url).gatewayKey
        #expect(try store.deviceToken(for: key, deviceId: request.deviceId, role: .node) != nil)
    }

    @Test func aPendingBootstrapKeepsRetryingUntilApproved() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        // The gateway does not auto-approve bootstrap devices: PAIRING_REQUIRED with
        // wait_then_retry, so the connection retries on its own backoff while pair waits.
        let (gateway, url) = try await EndToEnd.gateway { $0.bootstrapApprovesNodeProfile = false }
        defer { Task { await gateway.stopListening() } }
        let pair = try RunningBinary(
            ["pair", await gateway.setupCode(.valid, url: url), "--timeout", "20"], environment: home.environment)
        defer { pair.kill() }
        _ = try await EndToEnd.event(gateway) {
            if case .pairingRequested = $0 { return true }
            return false
        }
        let request = try #require(await gateway.pendingPairingRequests.first)
        #expect(request.viaBootstrap)
        #expect(await pair.waitForOutput("openclaw devices approve \(request.requestId)"))
        #expect(pair.isRunning)
        try await gateway.approve(requestId: request.requestId)
        #expect(await pair.waitForExit() == 0, "stderr: \(pair.stderr)")
        #expect(pair.stdout.contains("token stored"))
        let connection = try await EndToEnd.connected(gateway)
        #expect(await gateway.session(connection: connection)?.authMethod == .bootstrapToken)
    }

    @Test func noWaitReportsThePendingRequestAndKeepsTheRegistration() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await EndToEnd.gateway { $0.auth = .token("s3cret") }
        defer { Task { await gateway.stopListening() } }
        let result = try await ClawTalkBinary.run(
            ["pair", "--gateway-url", url, "--token", "s3cret", "--no-wait"], environment: home.environment)
        #expect(result.status == 0, "stderr: \(result.error)")
        let request = try #require(await gateway.pendingPairingRequests.first)
        #expect(result.output.contains("openclaw devices approve \(request.requestId)"))
        #expect(result.output.contains("not waiting (--no-wait)"))
        #expect(try EndToEnd.store(home).current() == (try GatewayEndpoint.parse(url).gatewayKey))
    }

    @Test func invalidSetupCodesExit64WithoutConnecting() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await EndToEnd.gateway()
        defer { Task { await gateway.stopListening() } }
        let cases: [(TestSetupCodeVariant, String)] = [
            (.expired, "setup code expired"), (.fingerprintWithPlaintext, "plaintext ws://"),
            (.oversize, "too long"), (.nonLocalPlaintext, "non-local host"),
        ]
        for (variant, message) in cases {
            let code = await gateway.setupCode(variant, url: url)
            let result = try await ClawTalkBinary.run(["pair", code], environment: home.environment)
            #expect(result.status == 64, "\(variant)")
            #expect(result.error.contains(message), "\(variant): \(result.error)")
            #expect(result.error.contains("nothing was sent"))
        }
        #expect(await gateway.observedEvents.isEmpty, "no connection was opened")
        #expect(EndToEnd.gatewayFiles(home).isEmpty)
    }

    @Test func wssPairsOnlyWithTheMatchingPin() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let certificate = try EndToEnd.certificate(in: home.root)
        let (gateway, url) = try await EndToEnd.gateway(tls: (certificate.cert, certificate.key))
        defer { Task { await gateway.stopListening() } }
        #expect(url.hasPrefix("wss://"))

        // A wrong pin: refused with a clear message, nothing stored.
        let wrong = String(repeating: "ab", count: 32)
        let refused = try await ClawTalkBinary.run(
            ["pair", await gateway.setupCode(.valid, url: url), "--tls-fingerprint", wrong],
            environment: home.environment)
        #expect(refused.status == 1)
        #expect(refused.error.contains("does not match the pinned fingerprint"), "\(refused.error)")
        #expect(refused.error.contains(certificate.pin), "names the presented certificate")
        #expect(refused.error.contains("--tls-fingerprint"))
        #expect(EndToEnd.gatewayFiles(home).isEmpty)
        #expect(try EndToEnd.store(home).list().isEmpty)

        // No pin: the self-signed certificate is not trusted; the message says how to pin.
        let untrusted = try await ClawTalkBinary.run(
            ["pair", await gateway.setupCode(.valid, url: url)], environment: home.environment)
        #expect(untrusted.status == 1)
        #expect(untrusted.error.contains("not trusted"), "\(untrusted.error)")
        #expect(untrusted.error.contains("--tls-fingerprint"))
        #expect(EndToEnd.gatewayFiles(home).isEmpty)

        // The right pin (any accepted spelling) connects and is stored for the gateway.
        let spelled =
            "SHA256:"
            + stride(from: 0, to: 64, by: 2).map { index in
                let start = certificate.pin.index(certificate.pin.startIndex, offsetBy: index)
                return certificate.pin[start..<certificate.pin.index(start, offsetBy: 2)].uppercased()
            }.joined(separator: ":")
        let paired = try await ClawTalkBinary.run(
            ["pair", await gateway.setupCode(.valid, url: url), "--tls-fingerprint", spelled],
            environment: home.environment)
        #expect(paired.status == 0, "stderr: \(paired.error)")
        let key = try GatewayEndpoint.parse(url).gatewayKey
        let pin = try #require(try EndToEnd.store(home).pin(for: key))
        #expect(pin.fingerprint.hex == certificate.pin)
        #expect(pin.source == .commandLine)
        let connection = try await EndToEnd.connected(gateway)
        #expect(await gateway.session(connection: connection)?.authMethod == .bootstrapToken)
    }
}
