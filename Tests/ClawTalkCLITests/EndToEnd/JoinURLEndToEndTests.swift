import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// `clawtalk pair <join URL>` (the built binary) against the test gateway's `/j/<code>`
/// endpoint on its listening port: loopback http, https with a pin, a used code, an
/// untrusted certificate and plain http to a remote host.
@Suite("Join URL end to end", .serialized, .timeLimit(.minutes(3)))
struct JoinURLEndToEndTests {
    @Test func aLoopbackHTTPJoinURLPairsOnceAndASecondUseSaysToMintANewOne() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let (gateway, url) = try await EndToEnd.gateway()
        defer { Task { await gateway.stopListening() } }
        let joinURL = await gateway.mintJoinURL()
        #expect(joinURL.hasPrefix("http://127.0.0.1:"))

        let paired = try await ClawTalkBinary.run(["pair", joinURL], environment: home.environment)
        #expect(paired.status == 0, "stderr: \(paired.error)")
        let identity = try EndToEnd.identity(home)
        #expect(paired.output.contains("paired with \(url)/ as device \(identity.deviceId); token stored"))
        let connection = try await EndToEnd.connected(gateway)
        #expect(await gateway.session(connection: connection)?.authMethod == .bootstrapToken)
        let key = try GatewayEndpoint.parse(url).gatewayKey
        #expect(try EndToEnd.store(home).current() == key)
        let shortcode = String(joinURL.suffix(JoinURL.shortcodeLength))
        #expect(!paired.output.contains(shortcode) && !paired.error.contains(shortcode))

        let again = try await ClawTalkBinary.run(["pair", joinURL], environment: home.environment)
        #expect(again.status == 64)
        #expect(again.error.contains("mint a new one with `openclaw devices join-code`"), "\(again.error)")
        #expect(!again.error.contains(shortcode))
        #expect(gateway.joinCodes.redeemedCount == 1)
    }

    @Test func httpsPairsWithTheCertificatePinAndAnUntrustedCertificateOffersIt() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let certificate = try EndToEnd.certificate(in: home.root)
        let (gateway, url) = try await EndToEnd.gateway(tls: (certificate.cert, certificate.key))
        defer { Task { await gateway.stopListening() } }
        let joinURL = await gateway.mintJoinURL()
        #expect(joinURL.hasPrefix("https://127.0.0.1:"))

        // No pin: the self-signed certificate is refused before the request; the code survives.
        let untrusted = try await ClawTalkBinary.run(["pair", joinURL], environment: home.environment)
        #expect(untrusted.status == 1)
        #expect(untrusted.error.contains("not trusted"), "\(untrusted.error)")
        #expect(untrusted.error.contains("--tls-fingerprint <sha256>"))
        #expect(gateway.joinCodes.redeemedCount == 0)
        #expect(EndToEnd.gatewayFiles(home).isEmpty)

        // With the pin: fetched, then the gateway (same certificate) is pinned and paired.
        let paired = try await ClawTalkBinary.run(
            ["pair", joinURL, "--tls-fingerprint", "sha256:" + certificate.pin], environment: home.environment)
        #expect(paired.status == 0, "stderr: \(paired.error)")
        #expect(gateway.joinCodes.redeemedCount == 1)
        let key = try GatewayEndpoint.parse(url).gatewayKey
        #expect(try EndToEnd.store(home).pin(for: key)?.fingerprint.hex == certificate.pin)
        let connection = try await EndToEnd.connected(gateway)
        #expect(await gateway.session(connection: connection)?.authMethod == .bootstrapToken)

        let again = try await ClawTalkBinary.run(
            ["pair", joinURL, "--tls-fingerprint", certificate.pin], environment: home.environment)
        #expect(again.status == 64)
        #expect(again.error.contains("mint a new one with `openclaw devices join-code`"), "\(again.error)")
    }

    @Test func plainHTTPToARemoteHostIsRefusedBeforeAnyRequest() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let refused = try await ClawTalkBinary.run(
            ["pair", "http://gateway.example.com:18789/j/AbCdEfGhIjKlMnOpQrStUv"], environment: home.environment)
        #expect(refused.status == 64)
        #expect(refused.error.contains("refusing plain http:// to gateway.example.com"), "\(refused.error)")
        #expect(refused.error.contains("nothing was sent"))
        #expect(try EndToEnd.store(home).list().isEmpty)
    }
}
