import ClawTalkGateway
import Foundation
import Testing

@Suite("WebSocket TLS pinning", .timeLimit(.minutes(1)))
struct WebSocketTLSTests {
    @Test func correctPinConnectsToASelfSignedServer() async throws {
        let certificate = try SelfSignedCertificate()
        defer { certificate.remove() }
        let server = try LoopbackServer(
            echo: true, tls: (certificate.certificatePath, certificate.keyPath))
        // 127.0.0.1 does not match CN=localhost: with a pin only the fingerprint counts.
        let client = try ConnectedClient(.init(url: server.url(secure: true), tlsPinSHA256: certificate.sha256))
        try await client.connect()
        #expect(client.client.observedCertificateSHA256 == certificate.sha256)
        try client.client.send(text: "over tls")
        #expect(try await client.message().data == Data("over tls".utf8))
        client.client.close()
        _ = try await client.closed()
    }

    @Test func pinIsNormalisedBeforeUse() async throws {
        let certificate = try SelfSignedCertificate()
        defer { certificate.remove() }
        let server = try LoopbackServer(tls: (certificate.certificatePath, certificate.keyPath))
        var colons = ""
        for (i, character) in certificate.sha256.uppercased().enumerated() {
            if i > 0 && i % 2 == 0 { colons.append(":") }
            colons.append(character)
        }
        let client = try ConnectedClient(.init(url: server.url(secure: true), tlsPinSHA256: "sha256:" + colons))
        try await client.connect()
        #expect(client.client.observedCertificateSHA256 == certificate.sha256)
    }

    @Test func wrongPinFailsWithPinMismatchAndNeverConnects() async throws {
        let certificate = try SelfSignedCertificate()
        defer { certificate.remove() }
        let server = try LoopbackServer(tls: (certificate.certificatePath, certificate.keyPath))
        let wrong = String(certificate.sha256.reversed())
        let client = try ConnectedClient(.init(url: server.url(secure: true), tlsPinSHA256: wrong))
        await #expect(throws: TransportError.tlsPinMismatch(expected: wrong, actual: certificate.sha256)) {
            try await client.connect()
        }
        try await client.recorder.waitUntilFinished()
        let events = client.recorder.events
        #expect(events.count == 1)
        guard case .error(let message) = events.first else {
            Issue.record("expected one .error event, got \(events)")
            return
        }
        #expect(message.hasPrefix("pin mismatch: expected \(wrong), got \(certificate.sha256)"))
        // The server never saw an upgraded connection. The barrier: a client with the right pin,
        // after it; its connection is the server's first to open.
        let good = try ConnectedClient(.init(url: server.url(secure: true), tlsPinSHA256: certificate.sha256))
        try await good.connect()
        _ = try await server.opened(1)
        #expect(server.recorder.events.filter { if case .opened = $0 { true } else { false } }.count == 1)
        good.client.close()
        _ = try await good.closed()
    }

    @Test func noPinFailsBecauseTheSelfSignedCertificateIsUntrusted() async throws {
        let certificate = try SelfSignedCertificate()
        defer { certificate.remove() }
        let server = try LoopbackServer(tls: (certificate.certificatePath, certificate.keyPath))
        let client = try ConnectedClient(.init(url: "wss://localhost:\(server.port)/"))
        do {
            try await client.connect()
            Issue.record("connected to an untrusted self-signed server without a pin")
        } catch TransportError.connectFailed(let message) {
            #expect(message.contains("not trusted"), "\(message)")
        }
        // The fingerprint was seen, but only a system-trusted handshake may be stored (TOFU).
        #expect(client.client.observedCertificateSHA256 == certificate.sha256)
    }

    @Test func trustedCertificateConnectsByNameAndReportsItsFingerprint() async throws {
        // The CA file stands in for the system store: the TOFU path (trusted, then stored).
        let certificate = try SelfSignedCertificate()
        defer { certificate.remove() }
        let server = try LoopbackServer(echo: true, tls: (certificate.certificatePath, certificate.keyPath))
        let client = try ConnectedClient(
            .init(url: "wss://localhost:\(server.port)/", trustedRootsPath: certificate.certificatePath))
        try await client.connect()
        #expect(client.client.observedCertificateSHA256 == certificate.sha256)
        try client.client.send(text: "trusted")
        #expect(try await client.message().data == Data("trusted".utf8))
    }

    @Test func trustedCertificateForAnotherNameIsRejected() async throws {
        let certificate = try SelfSignedCertificate()  // CN=localhost, so 127.0.0.1 does not match
        defer { certificate.remove() }
        let server = try LoopbackServer(tls: (certificate.certificatePath, certificate.keyPath))
        let client = try WebSocketClient(
            configuration: .init(url: server.url(secure: true), trustedRootsPath: certificate.certificatePath))
        do {
            try await client.connect()
            Issue.record("connected although the certificate names another host")
        } catch TransportError.connectFailed(let message) {
            #expect(message.contains("not trusted"), "\(message)")
        }
    }

    @Test func concurrentTLSClientsAndNewContextsDoNotDisturbEachOther() async throws {
        // libwebsockets 4.1 re-allocates a global OpenSSL index whenever a TLS context is
        // created, which breaks its own TLS clients mid-handshake; ours run OpenSSL themselves.
        let certificate = try SelfSignedCertificate()
        defer { certificate.remove() }
        let server = try LoopbackServer(tls: (certificate.certificatePath, certificate.keyPath))
        let url = server.url(secure: true)
        let pin = certificate.sha256
        let tls = (certificate.certificatePath, certificate.keyPath)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    let client = try WebSocketClient(configuration: .init(url: url, tlsPinSHA256: pin))
                    try await client.connect(timeout: .seconds(30))
                    client.close()
                }
                group.addTask {
                    let extra = WebSocketServer()
                    try extra.start(port: 0, tls: tls)
                    extra.stop()
                }
            }
            try await group.waitForAll()
        }
    }
}
