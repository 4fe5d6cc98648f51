import ClawTalkGateway
import Testing

@Suite("WebSocket URL and pin parsing")
struct WebSocketEndpointTests {
    @Test(arguments: [
        ("ws://127.0.0.1:18789", false, "127.0.0.1", 18789, "/"),
        ("wss://GW.Example.com/openclaw-gw", true, "gw.example.com", 443, "/openclaw-gw"),
        ("ws://localhost", false, "localhost", 80, "/"),
        ("ws://host:1234/a/b/?x=1&y=2#frag", false, "host", 1234, "/a/b/?x=1&y=2"),
        ("ws://host:1234?x=1", false, "host", 1234, "/?x=1"),
        ("WSS://[::1]:8443/gw", true, "::1", 8443, "/gw"),
        ("  ws://10.0.0.2:18789/ctx/  ", false, "10.0.0.2", 18789, "/ctx/"),
    ])
    func parsesValidURLs(url: String, secure: Bool, host: String, port: Int, path: String) throws {
        let endpoint = try WebSocketEndpoint(parsing: url)
        #expect(endpoint.isSecure == secure)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
        #expect(endpoint.path == path)
    }

    @Test(arguments: [
        "http://host/", "127.0.0.1:18789", "ws://", "ws://:80/", "ws://host:0/", "ws://host:65536/",
        "ws://host:12ab/", "ws://user:pw@host/", "ws://::1/", "ws://[::1/", "ws://host/a b",
    ])
    func rejectsInvalidURLs(url: String) {
        #expect(throws: TransportError.self) { try WebSocketEndpoint(parsing: url) }
    }

    @Test func hostPortKeysIPv6InBrackets() throws {
        #expect(try WebSocketEndpoint(parsing: "wss://[::1]:9/").hostPort == "[::1]:9")
        #expect(try WebSocketEndpoint(parsing: "wss://gw.local/").hostPort == "gw.local:443")
        #expect(try WebSocketEndpoint(parsing: "ws://gw.local:1/x").description == "ws://gw.local:1/x")
    }

    @Test func normalizesPins() {
        let hex = String(repeating: "ab", count: 32)
        let colons = stride(from: 0, to: 64, by: 2).map { i -> String in
            let start = hex.index(hex.startIndex, offsetBy: i)
            return String(hex[start..<hex.index(start, offsetBy: 2)])
        }.joined(separator: ":")
        #expect(WebSocketConfiguration.normalizedPin(hex) == hex)
        #expect(WebSocketConfiguration.normalizedPin("sha256:" + hex.uppercased()) == hex)
        #expect(WebSocketConfiguration.normalizedPin("SHA-256:" + colons) == hex)
        #expect(WebSocketConfiguration.normalizedPin(" \(hex)\n") == hex)
        #expect(WebSocketConfiguration.normalizedPin(String(hex.dropLast())) == nil)
        #expect(WebSocketConfiguration.normalizedPin(String(hex.dropLast()) + "g") == nil)
    }

    @Test func clientRejectsABadPinForWSS() {
        #expect(throws: TransportError.invalidPin) {
            try WebSocketClient(
                configuration: WebSocketConfiguration(url: "wss://127.0.0.1:1/", tlsPinSHA256: "nope"))
        }
    }
}
