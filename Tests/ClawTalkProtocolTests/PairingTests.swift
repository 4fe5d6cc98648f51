import Foundation
import Testing

@testable import ClawTalkProtocol

@Suite("Pairing")
struct PairingTests {
    static let now = Date(timeIntervalSince1970: 1_754_640_000)  // 1754640000000 ms
    static let pin = "3a5f" + String(repeating: "0c", count: 30)  // 64 hex

    static func code(_ json: String) -> String { base64URL(json) }

    // MARK: - Accepted forms

    @Test("accepts raw code, oc-pair:// (any case), raw JSON and a pasted message")
    func acceptedForms() throws {
        let json =
            #"{"url":"wss://gw.example.ts.net:443","bootstrapToken":"Qm9vdHN0cmFw","expiresAtMs":1754640600000,"tlsFingerprint":"sha256:\#(Self.pin)"}"#
        let code = Self.code(json)
        let inputs = [
            code,
            "  \(code)\n",
            "oc-pair://\(code)",
            "OC-PAIR://\(code)",
            "Oc-Pair://\(code)/",
            json,
            "Pair your node:\nSetup code: \(code)\nIt expires in 10 minutes.",
            "Setup code:\n\n  `\(code)`\n",
            "Run this on the node: clawtalk pair oc-pair://\(code) now",
            "Here it is: \(code) (expires soon)",
        ]
        for input in inputs {
            let setup = try SetupCode.parse(input, now: Self.now)
            #expect(setup.endpoint.urlString == "wss://gw.example.ts.net:443/", "\(input)")
            #expect(setup.bootstrapToken == "Qm9vdHN0cmFw")
            #expect(setup.expiresAtMs == 1_754_640_600_000)
            #expect(setup.tlsFingerprint == Self.pin)
            #expect(setup.connectAuth == .bootstrapToken("Qm9vdHN0cmFw"))
        }
    }

    @Test("padded and standard-alphabet base64 are accepted too")
    func lenientBase64() throws {
        let json = #"{"url":"ws://192.168.1.5:18789","bootstrapToken":"t?>"}"#
        let standard = Data(json.utf8).base64EncodedString()
        #expect(standard.contains("=") || standard.contains("+") || standard.contains("/"))
        let setup = try SetupCode.parse(standard, now: Self.now)
        #expect(setup.endpoint.host == "192.168.1.5")
    }

    @Test("fallback urls: ordered, deduplicated, at most 8 endpoints in total")
    func fallbacks() throws {
        let urls = (1...10).map { "\"wss://gw\($0).example.com\"" }.joined(separator: ",")
        let json =
            #"{"url":"wss://gw1.example.com","urls":["wss://gw1.example.com",\#(urls),"wss://gw2.example.com"],"bootstrapToken":"t"}"#
        let setup = try SetupCode.parse(Self.code(json), now: Self.now)
        #expect(setup.endpoints.count == 8)
        #expect(setup.endpoints.map(\.host) == (1...8).map { "gw\($0).example.com" })
        #expect(setup.endpoint.port == 443)
    }

    @Test("legacy host/port/tls and token/password codes")
    func legacy() throws {
        let tlsDefault = try SetupCode.parse(Self.code(#"{"host":"gw.example.com","token":"shared"}"#), now: Self.now)
        #expect(tlsDefault.endpoint.urlString == "wss://gw.example.com:443/")
        #expect(tlsDefault.token == "shared")
        #expect(tlsDefault.connectAuth == .token("shared"))
        let plain = try SetupCode.parse(
            Self.code(#"{"host":"10.0.0.7","port":18789,"tls":false,"password":"pw"}"#), now: Self.now)
        #expect(plain.endpoint.urlString == "ws://10.0.0.7:18789/")
        #expect(plain.connectAuth == .password("pw"))
        let tlsPort = try SetupCode.parse(
            Self.code(#"{"host":"gw.example.com","port":8443,"tls":true,"bootstrapToken":"b"}"#), now: Self.now)
        #expect(tlsPort.endpoint.urlString == "wss://gw.example.com:8443/")
    }

    @Test("context path is preserved exactly")
    func contextPath() throws {
        let setup = try SetupCode.parse(
            Self.code(#"{"url":"ws://127.0.0.1:18789/openclaw-gw","bootstrapToken":"t"}"#), now: Self.now)
        #expect(setup.endpoint.path == "/openclaw-gw")
        #expect(setup.endpoint.gatewayKey == "127.0.0.1:18789/openclaw-gw")
    }

    // MARK: - Rejections

    struct RejectCase: Sendable, CustomTestStringConvertible {
        var name: String
        var input: String
        var error: SetupCodeError
        var testDescription: String { name }
    }

    static let bigJSON =
        #"{"url":"wss://a.example.com","bootstrapToken":"t","pad":"\#(String(repeating: "p", count: 4100))"}"#

    static let rejections: [RejectCase] = [
        RejectCase(name: "empty", input: "   ", error: .empty),
        RejectCase(
            name: "code > 2048 chars", input: String(repeating: "A", count: 2049), error: .codeTooLong(length: 2049)),
        RejectCase(
            name: "long JSON makes the code exceed 2048 chars first",
            input: code(
                #"{"url":"wss://a.example.com","bootstrapToken":"t","pad":"\#(String(repeating: "p", count: 4100))"}"#),
            error: .codeTooLong(
                length: code(
                    #"{"url":"wss://a.example.com","bootstrapToken":"t","pad":"\#(String(repeating: "p", count: 4100))"}"#
                ).count)),
        RejectCase(name: "raw JSON > 4 KiB", input: bigJSON, error: .payloadTooLarge(bytes: bigJSON.utf8.count)),
        RejectCase(
            name: "bootstrapToken > 512",
            input: code(#"{"url":"wss://a.example.com","bootstrapToken":"\#(String(repeating: "b", count: 513))"}"#),
            error: .bootstrapTokenTooLong(length: 513)),
        RejectCase(name: "not base64", input: "!!!not-a-code!!!", error: .undecodable("not base64url")),
        RejectCase(name: "base64 of non-JSON", input: code("hello world"), error: .undecodable("not JSON")),
        RejectCase(name: "JSON array", input: code("[1,2]"), error: .undecodable("not a JSON object")),
        RejectCase(
            name: "expired",
            input: code(#"{"url":"wss://a.example.com","bootstrapToken":"t","expiresAtMs":1754640000000}"#),
            error: .expired(expiresAtMs: 1_754_640_000_000)),
        RejectCase(
            name: "tlsFingerprint with ws://",
            input: code(#"{"url":"ws://192.168.1.2:18789","bootstrapToken":"t","tlsFingerprint":"\#(pin)"}"#),
            error: .fingerprintWithPlaintext),
        RejectCase(
            name: "invalid fingerprint",
            input: code(#"{"url":"wss://a.example.com","bootstrapToken":"t","tlsFingerprint":"sha256:abc"}"#),
            error: .invalidFingerprint),
        RejectCase(
            name: "ws:// to non-local host", input: code(#"{"url":"ws://gw.example.com:18789","bootstrapToken":"t"}"#),
            error: .insecureRemote(host: "gw.example.com")),
        RejectCase(
            name: "ws:// fallback to non-local host",
            input: code(#"{"url":"wss://gw.example.com","urls":["ws://8.8.8.8:18789"],"bootstrapToken":"t"}"#),
            error: .insecureRemote(host: "8.8.8.8")),
        RejectCase(
            name: "legacy tls:false to public host", input: code(#"{"host":"gw.example.com","tls":false,"token":"t"}"#),
            error: .insecureRemote(host: "gw.example.com")),
        RejectCase(
            name: "https join URL", input: "https://gw.example.com/j/AbC123", error: .invalidURL(.joinURLNotSupported)),
        RejectCase(
            name: "http URL", input: "http://gw.example.com:18789", error: .invalidURL(.unsupportedScheme("http"))),
        RejectCase(
            name: "https url field", input: code(#"{"url":"https://gw.example.com/j/x","bootstrapToken":"t"}"#),
            error: .invalidURL(.joinURLNotSupported)),
        RejectCase(name: "no url", input: code(#"{"bootstrapToken":"t"}"#), error: .missingURL),
        RejectCase(name: "no credential", input: code(#"{"url":"wss://a.example.com"}"#), error: .missingCredential),
        RejectCase(
            name: "url not a string", input: code(#"{"url":5,"bootstrapToken":"t"}"#), error: .invalidField("url")),
        RejectCase(
            name: "expiresAtMs not an integer",
            input: code(#"{"url":"wss://a.example.com","bootstrapToken":"t","expiresAtMs":"soon"}"#),
            error: .invalidField("expiresAtMs")),
        RejectCase(
            name: "message without a code", input: "hello there, no code here",
            error: .undecodable("no setup code found in the text")),
    ]

    @Test("every rejection rule", arguments: rejections)
    func rejects(testCase: RejectCase) {
        #expect(throws: testCase.error) { try SetupCode.parse(testCase.input, now: Self.now) }
    }

    @Test("raw JSON of exactly 4096 bytes is accepted, 4097 is not")
    func payloadBoundary() throws {
        let head = #"{"url":"wss://a.example.com","bootstrapToken":"t","pad":""#
        let exact = head + String(repeating: "p", count: 4096 - head.utf8.count - 2) + #""}"#
        #expect(exact.utf8.count == 4096)
        _ = try SetupCode.parse(exact, now: Self.now)
        let over = head + String(repeating: "p", count: 4097 - head.utf8.count - 2) + #""}"#
        #expect(throws: SetupCodeError.payloadTooLarge(bytes: 4097)) { try SetupCode.parse(over, now: Self.now) }
    }

    @Test("a code that expires one millisecond from now is accepted")
    func notYetExpired() throws {
        let setup = try SetupCode.parse(
            Self.code(#"{"url":"wss://a.example.com","bootstrapToken":"t","expiresAtMs":1754640000001}"#), now: Self.now
        )
        #expect(setup.expiresAtMs == 1_754_640_000_001)
    }

    @Test("a 2048-character code passes the length rule (then fails decoding for its content)")
    func codeLengthBoundary() {
        #expect(throws: SetupCodeError.undecodable("not JSON")) {
            try SetupCode.parse(String(repeating: "A", count: 2048), now: Self.now)
        }
    }

    @Test("error messages never contain the token")
    func noSecrets() {
        let token = "SECRET_BOOTSTRAP_TOKEN"
        let inputs = [
            Self.code(#"{"url":"ws://gw.example.com","bootstrapToken":"\#(token)"}"#),
            Self.code(#"{"url":"wss://a.example.com","bootstrapToken":"\#(token)","expiresAtMs":1}"#),
        ]
        for input in inputs {
            do {
                _ = try SetupCode.parse(input, now: Self.now)
                Issue.record("expected a throw")
            } catch {
                #expect(!error.description.contains(token))
            }
        }
    }

    // MARK: - Fingerprints

    @Test(
        "TLS fingerprint normalization",
        arguments: [
            (pin, pin),
            ("sha256:" + pin, pin),
            ("SHA256:" + pin.uppercased(), pin),
            ("sha-256:" + pin, pin),
            (stride(from: 0, to: 64, by: 2).map { i in String(Array(pin)[i..<i + 2]) }.joined(separator: ":"), pin),
            ("  " + pin.prefix(32) + " \n" + pin.suffix(32) + " ", pin),
            (String(pin.dropLast()), nil),
            (pin + "0", nil),
            (String(pin.dropLast()) + "g", nil),
            ("md5:" + pin, nil),
            ("", nil),
        ] as [(String, String?)])
    func fingerprints(input: String, expected: String?) {
        #expect(TLSFingerprint.normalize(input) == expected)
        #expect(TLSFingerprint(input)?.hex == expected)
    }

    // MARK: - Endpoints

    @Test(
        "endpoint parsing",
        arguments: [
            ("ws://127.0.0.1:18789", "ws://127.0.0.1:18789/", "127.0.0.1:18789"),
            ("ws://127.0.0.1", "ws://127.0.0.1:18789/", "127.0.0.1:18789"),
            ("wss://GW.Example.COM", "wss://gw.example.com:443/", "gw.example.com:443"),
            ("WSS://gw.example.com:8443/", "wss://gw.example.com:8443/", "gw.example.com:8443"),
            ("ws://host.local:18789/openclaw-gw", "ws://host.local:18789/openclaw-gw", "host.local:18789/openclaw-gw"),
            ("ws://host.local:18789/Open/Claw/", "ws://host.local:18789/Open/Claw/", "host.local:18789/Open/Claw/"),
            ("ws://[::1]:18789", "ws://[::1]:18789/", "[::1]:18789"),
            ("wss://[FD00::1]", "wss://[fd00::1]:443/", "[fd00::1]:443"),
        ])
    func endpoints(input: String, url: String, key: String) throws {
        let endpoint = try GatewayEndpoint.parse(input)
        #expect(endpoint.urlString == url)
        #expect(endpoint.gatewayKey == key)
    }

    @Test(
        "endpoint rejections",
        arguments: [
            "127.0.0.1:18789", "ftp://host", "ws://", "ws://:18789", "ws://host:0", "ws://host:65536", "ws://host:abc",
            "ws://user:pw@host", "ws://host/path?x=1", "ws://host/#frag", "ws://::1:18789", "ws://[::1", "ws://[zz::1]",
            "ws://ho st", "ws://host/pa th", "ws://a..b",
        ])
    func endpointRejections(input: String) {
        #expect(throws: GatewayEndpointError.self) { try GatewayEndpoint.parse(input) }
    }

    @Test("endpoints and pins persist as validated strings")
    func codable() throws {
        let endpoint = try GatewayEndpoint.parse("wss://[fd00::1]:8443/ctx")
        let data = try JSONEncoder().encode([endpoint])
        #expect(String(decoding: data, as: UTF8.self) == #"["wss:\/\/[fd00::1]:8443\/ctx"]"#)
        #expect(try JSONDecoder().decode([GatewayEndpoint].self, from: data) == [endpoint])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([GatewayEndpoint].self, from: Data(#"["ws://user@host"]"#.utf8))
        }
        let pin = try #require(TLSFingerprint("sha256:" + Self.pin.uppercased()))
        let pinData = try JSONEncoder().encode([pin])
        #expect(try JSONDecoder().decode([TLSFingerprint].self, from: pinData) == [pin])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([TLSFingerprint].self, from: Data(#"["abc"]"#.utf8))
        }
    }

    @Test("default endpoint")
    func defaultEndpoint() {
        #expect(GatewayEndpoint.localDefault.urlString == "ws://127.0.0.1:18789/")
        #expect(GatewayEndpoint.localDefault.isLoopback)
    }

    @Test(
        "local network and loopback classification (protocol.md §17.2)",
        arguments: [
            ("127.0.0.1", true, true), ("127.255.0.9", true, true), ("localhost", true, true),
            ("LOCALHOST.", true, true),
            ("::1", true, true), ("::ffff:127.0.0.1", true, true),
            ("10.0.2.2", false, true), ("10.255.255.255", false, true), ("172.16.0.1", false, true),
            ("172.31.255.1", false, true),
            ("172.32.0.1", false, false), ("172.15.0.1", false, false), ("192.168.0.10", false, true),
            ("192.169.0.1", false, false),
            ("169.254.10.20", false, true), ("100.64.0.1", false, true), ("100.127.255.254", false, true),
            ("100.128.0.1", false, false),
            ("100.63.255.255", false, false), ("fe80::1", false, true), ("febf::1", false, true),
            ("fec0::1", false, false),
            ("fc00::1", false, true), ("fdff::1", false, true), ("fe00::1", false, false),
            ("::ffff:192.168.1.1", false, true),
            ("2001:db8::1", false, false), ("8.8.8.8", false, false), ("kitchen.local", false, true),
            ("gw.tailnet.ts.net", false, true),
            ("local", false, false), ("evil-local.com", false, false), ("ts.net.example.com", false, false),
            ("gw.example.com", false, false),
            ("localhost.example.com", false, false), ("0127.0.0.1", false, false),
        ])
    func classification(host: String, loopback: Bool, local: Bool) throws {
        let endpoint = try GatewayEndpoint(scheme: .ws, host: host)
        #expect(endpoint.isLoopback == loopback)
        #expect(endpoint.isLocalNetwork == local)
        #expect(endpoint.isTransportAllowed == local)
        #expect(try GatewayEndpoint(scheme: .wss, host: host).isTransportAllowed)
    }

    @Test("trusted endpoint: loopback, or wss with a pin")
    func trusted() throws {
        #expect(try GatewayEndpoint.parse("ws://127.0.0.1:18789").isTrusted(pinned: false))
        #expect(!(try GatewayEndpoint.parse("wss://gw.example.com").isTrusted(pinned: false)))
        #expect(try GatewayEndpoint.parse("wss://gw.example.com").isTrusted(pinned: true))
        #expect(!(try GatewayEndpoint.parse("ws://192.168.1.2:18789").isTrusted(pinned: true)))
        #expect(try GatewayEndpoint.parse("wss://gw.example.com:8443/ctx").pinKey == "gw.example.com:8443")
    }
}
