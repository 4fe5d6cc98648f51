import ClawTalkDesktop
import ClawTalkProtocol
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

@Suite("DNS-SD discovery: TXT decoding, SRV over TXT, pin decisions")
struct DiscoveryTests {
    static let certificate = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    static let other = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"

    /// The TXT strings a current gateway advertises (protocol.md §17.3), as avahi-browse shows them.
    static let advertised = [
        "role=gateway", "transport=gateway", "displayName=Studio Mac", "lanHost=studio.local", "gatewayPort=18789",
        "gatewayTls=1", "gatewayTlsSha256=\(certificate)", "canvasPort=18789", "tailnetDns=studio.tail1234.ts.net",
        "sshPort=22", "cliPath=/usr/local/bin/openclaw",
    ]

    @Test func txtKeysDecodeCaseInsensitivelyWithTheFirstOccurrenceWinning() {
        let txt = GatewayTXTRecord(strings: Self.advertised + ["ROLE=other", "=ignored", "flag", "gatewayPort=1"])
        #expect(txt.role == "gateway")
        #expect(txt.transport == "gateway")
        #expect(txt.displayName == "Studio Mac")
        #expect(txt.lanHost == "studio.local")
        #expect(txt.gatewayPort == 18789)
        #expect(txt.tailnetDns == "studio.tail1234.ts.net")
        #expect(txt.sshPort == 22)
        #expect(txt.cliPath == "/usr/local/bin/openclaw")
        #expect(txt.canvasPort == 18789)
        #expect(txt.advertisedFingerprint?.hex == Self.certificate)
        #expect(txt.usesTLS)
        #expect(txt.pairs["flag"] == .some(nil), "a bare attribute is present without a value")
        #expect(txt.pairs[""] == nil)
        #expect(GatewayTXTRecord(strings: ["gatewayTls=0"]).usesTLS == false)
        #expect(GatewayTXTRecord(strings: ["gatewayTlsSha256=nonsense"]).usesTLS == false)
        #expect(GatewayTXTRecord(strings: ["gatewayPort=99999"]).gatewayPort == nil)
    }

    @Test func directURLUsesTheSRVTargetAndPortNeverTheTXTHints() {
        let gateway = DiscoveredGateway(
            instanceName: "OpenClaw (studio)", domain: "local", hostName: "studio-2.local.", port: 4443,
            addresses: ["fe80::1", "192.168.1.20"], txt: GatewayTXTRecord(strings: Self.advertised))
        #expect(gateway.directURL == "wss://192.168.1.20:4443")
        #expect(gateway.displayName == "Studio Mac")
        #expect(gateway.targetHost == "studio-2.local")
        var unresolved = gateway
        unresolved.addresses = []
        #expect(unresolved.directURL == "wss://studio-2.local:4443")
        unresolved.addresses = ["fe80::1", "fd00::5"]
        #expect(unresolved.directURL == "wss://[fd00::5]:4443")
        var plain = gateway
        plain.txt = GatewayTXTRecord(strings: ["role=gateway", "gatewayPort=18789"])
        #expect(plain.directURL == nil, "discovery connects over TLS only")
        #expect(plain.displayName == "OpenClaw (studio)")
    }

    @Test func aStoredPinIsNeverReplacedByTheAdvertisedFingerprint() throws {
        let certificate = try #require(TLSFingerprint(Self.certificate))
        let other = try #require(TLSFingerprint(Self.other))
        let gateway = DiscoveredGateway(
            instanceName: "gw", domain: "local", hostName: "gw.local", port: 4443, addresses: ["10.0.0.2"],
            txt: GatewayTXTRecord(strings: ["gatewayTls=1", "gatewayTlsSha256=\(Self.other)"]))
        // Stored pin matches the certificate; TXT advertises another: connect on the stored pin.
        #expect(
            DiscoveryDecision.decide(gateway: gateway, storedPin: certificate, observed: certificate)
                == .connectPinned(certificate, advertisedConflict: true))
        // The certificate equals the TXT value but not the stored pin: refused.
        #expect(
            DiscoveryDecision.decide(gateway: gateway, storedPin: certificate, observed: other)
                == .pinMismatch(stored: certificate, observed: other))
        // No stored pin: the observed fingerprint must be confirmed, with the TXT comparison shown.
        #expect(
            DiscoveryDecision.decide(gateway: gateway, storedPin: nil, observed: certificate)
                == .confirmFirstSeen(observed: certificate, advertisedMatches: false))
        #expect(
            DiscoveryDecision.decide(gateway: gateway, storedPin: nil, observed: other)
                == .confirmFirstSeen(observed: other, advertisedMatches: true))
        var plain = gateway
        plain.txt = GatewayTXTRecord(strings: ["role=gateway"])
        #expect(DiscoveryDecision.decide(gateway: plain, storedPin: nil, observed: other) == .needsExplicitURL)
    }

    @Test(
        "A real avahi-daemon on a private bus: the browser resolves SRV port and TXT",
        .enabled(if: ProcessInfo.processInfo.environment["CLAWTALK_AVAHI_TESTS"] == "1"), .avahiDaemon)
    func liveBrowseThroughAvahi() throws {
        let avahi = try PrivateAvahi()
        try avahi.publish(
            name: "Gateway One", type: AvahiBrowser.serviceType, port: 4443,
            txt: [
                "role=gateway", "gatewayTls=1", "gatewayPort=18789", "lanHost=bogus.local", "displayName=One",
                "DISPLAYNAME=Two",
            ])
        try avahi.publish(name: "Other Service", type: "_http._tcp", port: 80, txt: [])
        var found: [DiscoveredGateway] = []
        for _ in 0..<20 where found.isEmpty {
            found = try AvahiBrowser().browse(domains: [nil], timeout: .seconds(2))
        }
        let gateway = try #require(found.first, "nothing found; \(avahi.logs)")
        #expect(found.count == 1, "only _openclaw-gw._tcp is listed: \(found.map(\.instanceName))")
        #expect(gateway.instanceName == "Gateway One")
        #expect(gateway.port == 4443)
        #expect(gateway.txt.gatewayPort == 18789)
        #expect(gateway.displayName == "One", "the first of two equal keys (in wire order) wins")
        #expect(!gateway.addresses.isEmpty)
        #expect(gateway.directURL == "wss://\(gateway.addresses[0]):4443")
        #expect(gateway.directURL?.contains("18789") == false)
    }

    /// In a process of its own (an exit test): libdbus reads `DBUS_SYSTEM_BUS_ADDRESS` once per
    /// process, at its first system-bus connection, and keeps it. Run in the test process, this
    /// test's address of no bus stayed for the live browse above whenever it ran first (in a
    /// parallel run: "Avahi is not available: Daemon not running").
    @Test func noAvahiDaemonIsAClearError() async {
        await #expect(processExitsWith: .success) {
            setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/clawtalk-test-bus", 1)
            do {
                _ = try AvahiBrowser()
                exit(1)
            } catch is DiscoveryError {
                exit(0)
            } catch {
                exit(2)
            }
        }
    }
}
