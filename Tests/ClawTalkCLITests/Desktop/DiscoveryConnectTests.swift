import ClawTalkCommand
import ClawTalkDesktop
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkCLI
@testable import ClawTalkNode

/// `clawtalk discover --connect` after the browse: a discovered record whose TXT hints point
/// elsewhere, a real TestGateway over wss:// with a self-signed certificate at the SRV port.
@Suite("Discovery connect: SRV over TXT, TLS-only, confirmed pins")
struct DiscoveryConnectTests {
    static let otherPin = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"

    /// A record for the gateway at `url` as Avahi would resolve it, with misleading TXT hints.
    static func record(url: String, advertised: String? = nil) throws -> DiscoveredGateway {
        let endpoint = try GatewayEndpoint.parse(url)
        var txt = ["role=gateway", "gatewayTls=1", "lanHost=bogus.invalid", "gatewayPort=1", "displayName=Test"]
        if let advertised { txt.append("gatewayTlsSha256=\(advertised)") }
        return DiscoveredGateway(
            instanceName: "Test gateway", domain: "local", hostName: "testhost.local.", port: endpoint.port,
            addresses: ["127.0.0.1"], txt: GatewayTXTRecord(strings: txt))
    }

    static func flow(_ gateway: DiscoveredGateway, confirm: String? = nil, answer: String? = nil)
        -> DiscoveryConnectFlow
    {
        DiscoveryConnectFlow(
            gateway: gateway, confirmedFingerprint: confirm, token: "s3cret", password: nil,
            interactive: answer != nil, readAnswer: { answer })
    }

    static func run(_ flow: DiscoveryConnectFlow, home: TemporaryHome) async -> (Int32?, String, String) {
        let capture = OutputCapture()
        let context = CommandContext(commandPath: [ClawTalk.self], io: capture.io, environment: home.environment)
        do {
            let status = try await DiscoverCommand.pair(flow: flow, configPath: nil, noWait: true, context: context)
            return (status, capture.output, capture.error)
        } catch {
            return (nil, capture.output, capture.error + "\(error)")
        }
    }

    @Test func aConfirmedFirstSeenCertificateIsPinnedAndTheSRVPortDialled() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let certificate = try EndToEnd.certificate(in: home.root)
        let (gateway, url) = try await EndToEnd.gateway(tls: (certificate.cert, certificate.key)) {
            $0.auth = .token("s3cret")
        }
        defer { Task { await gateway.stopListening() } }
        let record = try Self.record(url: url, advertised: Self.otherPin)
        #expect(record.directURL == "wss://127.0.0.1:\(record.port)")

        // Not confirmed: refused, the fingerprint shown, nothing stored.
        let (refused, _, refusal) = await Self.run(Self.flow(record), home: home)
        #expect(refused == nil)
        #expect(refusal.contains(certificate.pin), "\(refusal)")
        #expect(refusal.contains("DIFFERENT fingerprint"), "the TXT mismatch is pointed out: \(refusal)")
        let key = try GatewayEndpoint.parse(try #require(record.directURL)).gatewayKey
        #expect(try EndToEnd.store(home).pin(for: key) == nil)

        // Typing "yes" pins the observed certificate (not the advertised one) and pairs.
        let (status, output, error) = await Self.run(Self.flow(record, answer: "yes"), home: home)
        #expect(status == 0, "\(error)")
        #expect(output.contains("openclaw devices approve"), "\(output)")
        let pin = try #require(try EndToEnd.store(home).pin(for: key))
        #expect(pin.fingerprint.hex == certificate.pin)
        #expect(pin.source == .userConfirmed)
        #expect(await gateway.pendingPairingRequests.count == 1, "the SRV port reached the gateway")
    }

    @Test func aWrongConfirmationOrAnswerStoresNothing() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let certificate = try EndToEnd.certificate(in: home.root)
        let (gateway, url) = try await EndToEnd.gateway(tls: (certificate.cert, certificate.key))
        defer { Task { await gateway.stopListening() } }
        let record = try Self.record(url: url)
        let (wrong, _, message) = await Self.run(Self.flow(record, confirm: Self.otherPin), home: home)
        #expect(wrong == nil)
        #expect(message.contains("does not match"), "\(message)")
        let (declined, _, answer) = await Self.run(Self.flow(record, answer: "no"), home: home)
        #expect(declined == nil)
        #expect(answer.contains("not confirmed"), "\(answer)")
        #expect(try EndToEnd.store(home).list().isEmpty)
        #expect(await gateway.pendingPairingRequests.isEmpty)
    }

    @Test func aStoredPinStaysAndDecidesDespiteTheAdvertisement() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let certificate = try EndToEnd.certificate(in: home.root)
        let (gateway, url) = try await EndToEnd.gateway(tls: (certificate.cert, certificate.key)) {
            $0.auth = .token("s3cret")
        }
        defer { Task { await gateway.stopListening() } }
        let record = try Self.record(url: url, advertised: Self.otherPin)
        let key = try GatewayEndpoint.parse(try #require(record.directURL)).gatewayKey
        let store = try EndToEnd.store(home)
        let pinned = try #require(TLSFingerprint(certificate.pin))
        try store.register(try GatewayEndpoint.parse(try #require(record.directURL)), makeCurrent: false)
        try store.setPin(pinned, source: .commandLine, for: key)

        // Matching stored pin, conflicting TXT: no question asked, the pin and its source stay.
        let (status, _, error) = await Self.run(Self.flow(record), home: home)
        #expect(status == 0, "\(error)")
        #expect(error.contains("stored pin stays"), "\(error)")
        let kept = try #require(try store.pin(for: key))
        #expect(kept.fingerprint == pinned && kept.source == .commandLine)

        // A stored pin the certificate does not match: refused, even though TXT advertises that value.
        let stale = try #require(TLSFingerprint(Self.otherPin))
        try store.setPin(stale, source: .commandLine, for: key)
        let (refused, _, refusal) = await Self.run(Self.flow(record), home: home)
        #expect(refused == nil)
        #expect(refusal.contains("does not match the pin"), "\(refusal)")
        #expect(try store.pin(for: key)?.fingerprint == stale)
    }

    @Test func aGatewayWithoutTLSIsListedButNotDialled() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let record = DiscoveredGateway(
            instanceName: "plain", domain: "local", hostName: "plain.local", port: 18789, addresses: ["127.0.0.1"],
            txt: GatewayTXTRecord(strings: ["role=gateway", "gatewayPort=18789"]))
        let (status, _, error) = await Self.run(Self.flow(record, answer: "yes"), home: home)
        #expect(status == nil)
        #expect(error.contains("does not advertise TLS"), "\(error)")
        let text = DiscoverCommand.renderText([record], store: nil, domains: [nil, "openclaw.internal."])
        #expect(text.contains("not TLS"))
        #expect(throws: CLIError.self) { try DiscoverCommand.select("2", in: [record]) }
        #expect(try DiscoverCommand.select("PLAIN", in: [record]) == record)
    }

    @Test func withoutAvahiDiscoverExits69WithTheFix() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        var environment = home.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(home.root)/no-such-bus"
        let result = try await ClawTalkBinary.run(["discover", "--timeout", "1"], environment: environment)
        #expect(result.status == 69)
        #expect(result.error.contains("Avahi is not available"), "\(result.error)")
        #expect(result.error.contains("apt install avahi-daemon"))
    }
}
