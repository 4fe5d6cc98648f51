import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

/// The `clawtalk` binary against a real avahi-daemon on a private system bus (conformance
/// item 38): the gateway is advertised with an SRV target that resolves to loopback and an SRV
/// port that differs from TXT `gatewayPort`; `discover --connect` must reach the TestGateway at
/// the SRV port. Needs root, avahi-daemon and avahi-utils, and no other avahi-daemon running.
@Suite(
    "discover against a live Avahi daemon", .avahiDaemon,
    .enabled(if: ProcessInfo.processInfo.environment["CLAWTALK_AVAHI_TESTS"] == "1"))
struct DiscoverLiveTests {
    @Test func discoverListsAndConnectsToTheSRVTargetAndPort() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let certificate = try EndToEnd.certificate(in: home.root)
        let (gateway, url) = try await EndToEnd.gateway(tls: (certificate.cert, certificate.key)) {
            $0.auth = .token("s3cret")
        }
        defer { Task { await gateway.stopListening() } }
        let port = try GatewayEndpoint.parse(url).port
        let avahi = try PrivateAvahi()
        let host = "clawtalk-test-\(getpid()).local"
        try avahi.publishAddress(host: host, address: "127.0.0.1")
        try avahi.publish(
            name: "Loop Gateway", type: "_openclaw-gw._tcp", port: port,
            txt: [
                "role=gateway", "transport=gateway", "displayName=Loop", "lanHost=bogus.invalid", "gatewayPort=1",
                "gatewayTls=1",
                "gatewayTlsSha256=60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752",
            ],
            host: host)
        var environment = home.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = avahi.systemBusAddress

        var listed = try await ClawTalkBinary.run(["discover", "--json", "--timeout", "2"], environment: environment)
        for _ in 0..<5 where !listed.output.contains("Loop Gateway") {
            listed = try await ClawTalkBinary.run(["discover", "--json", "--timeout", "2"], environment: environment)
        }
        #expect(listed.status == 0, "\(listed.error) \(avahi.logs)")
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        let entry = try #require(entries.first { $0["instance"] as? String == "Loop Gateway" })
        #expect(entry["url"] as? String == "wss://127.0.0.1:\(port)")
        #expect(entry["host"] as? String == host)

        // No confirmation without a terminal: refused, nothing sent or stored.
        let refused = try await ClawTalkBinary.run(
            ["discover", "--connect", "Loop", "--token", "s3cret", "--no-wait"], environment: environment)
        #expect(refused.status == 1)
        #expect(refused.error.contains(certificate.pin), "\(refused.error)")
        #expect(await gateway.pendingPairingRequests.isEmpty)

        // Confirmed: dials the SRV target and port (not gatewayPort=1, not lanHost) and pins.
        let paired = try await ClawTalkBinary.run(
            ["discover", "--connect", "Loop", "--token", "s3cret", "--tls-fingerprint", certificate.pin, "--no-wait"],
            environment: environment)
        #expect(paired.status == 0, "\(paired.error)")
        #expect(paired.output.contains("openclaw devices approve"), "\(paired.output)")
        #expect(await gateway.pendingPairingRequests.count == 1)
        let key = try GatewayEndpoint.parse("wss://127.0.0.1:\(port)").gatewayKey
        let pin = try #require(try EndToEnd.store(home).pin(for: key))
        #expect(pin.fingerprint.hex == certificate.pin)
        #expect(pin.source == .userConfirmed)
    }
}
