import Foundation
import Testing

@testable import ClawTalkProtocol

@Suite("Join URLs")
struct JoinURLTests {
    static let code = "AbCdEfGhIjKlMnOp-_StUv"  // 22 base64url characters, like upstream's 16 bytes

    @Test("accepts https, loopback http, a context path and IPv6 literals")
    func accepted() throws {
        let plain = try JoinURL.parse("  https://gw.example.ts.net/j/\(Self.code)\n")
        #expect(plain.isSecure && plain.host == "gw.example.ts.net" && plain.port == 443)
        #expect(plain.path == "/j/\(Self.code)" && plain.shortcode == Self.code)

        let context = try JoinURL.parse("HTTPS://GW.example.com:8443/openclaw/j/\(Self.code)")
        #expect(context.host == "gw.example.com" && context.port == 8443 && context.path == "/openclaw/j/\(Self.code)")

        let loopback = try JoinURL.parse("http://127.0.0.1:18789/j/\(Self.code)")
        #expect(!loopback.isSecure && loopback.port == 18789)
        #expect(try JoinURL.parse("http://localhost/j/\(Self.code)").port == 80)
        #expect(try JoinURL.parse("http://[::1]:9/j/\(Self.code)").host == "::1")
    }

    @Test("refuses every other shape with a reason, before any request")
    func refused() {
        let cases: [(String, JoinURLError)] = [
            ("http://gw.example.com/j/\(Self.code)", .plaintextToRemote(host: "gw.example.com")),
            ("http://192.168.1.5:18789/j/\(Self.code)", .plaintextToRemote(host: "192.168.1.5")),
            ("ftp://gw.example.com/j/\(Self.code)", .unsupportedScheme("ftp")),
            ("gw.example.com/j/\(Self.code)", .notJoinURL),
            ("https://gw.example.com/x/\(Self.code)", .notJoinPath),
            ("https://gw.example.com/j/\(Self.code)/", .notJoinPath),
            ("https://gw.example.com/", .notJoinPath),
            ("https://gw.example.com/j/short", .invalidShortcode),
            ("https://gw.example.com/j/\(Self.code)x", .invalidShortcode),
            ("https://gw.example.com/j/AbCdEfGhIjKlMnOpQrSt==", .invalidShortcode),
            ("https://gw.example.com/j/\(Self.code)?x=1", .invalidURL("query or fragment not allowed")),
            ("https://gw.example.com/j/\(Self.code)#frag", .invalidURL("query or fragment not allowed")),
            ("https://user:pw@gw.example.com/j/\(Self.code)", .invalidURL("credentials in the URL are not allowed")),
            ("https://gw.example.com:99999/j/\(Self.code)", .invalidURL("invalid host or port")),
        ]
        for (input, expected) in cases {
            #expect(throws: expected, "\(input)") { try JoinURL.parse(input) }
        }
        #expect(JoinURLError.plaintextToRemote(host: "gw.example.com").description.contains("https://"))
    }

    @Test("the shortcode stays out of the printable form and the errors")
    func redacted() throws {
        let url = try JoinURL.parse("https://gw.example.com/ctx/j/\(Self.code)")
        #expect(url.redactedString == "https://gw.example.com:443/ctx/j/…")
        #expect(!JoinURLError.invalidShortcode.description.contains(Self.code))
    }

    @Test("detects join-URL input, not setup codes")
    func detection() {
        #expect(JoinURL.looksLikeJoinURL(" HTTPS://gw/j/x"))
        #expect(JoinURL.looksLikeJoinURL("http://127.0.0.1/j/x"))
        #expect(!JoinURL.looksLikeJoinURL("oc-pair://abc"))
        #expect(!JoinURL.looksLikeJoinURL("eyJ1cmwiOiJ3c3M6Ly9ndyJ9"))
    }
}

@Suite("Join redemption")
struct JoinRedemptionTests {
    static let now = Date(timeIntervalSince1970: 1_754_640_000)
    static let json = Array(
        #"{"url":"wss://gw.example.ts.net:443","bootstrapToken":"Qm9vdA","expiresAtMs":1754640600000}"#.utf8)

    @Test("a 200 JSON setup payload is the setup code")
    func payload() throws {
        let code = try JoinRedemption.setupCode(
            status: 200, contentType: "application/json; charset=utf-8", body: Self.json, now: Self.now)
        #expect(code.endpoint.urlString == "wss://gw.example.ts.net:443/")
        #expect(code.bootstrapToken == "Qm9vdA" && code.expiresAtMs == 1_754_640_600_000)
    }

    @Test("status, type and body failures are told apart")
    func failures() {
        let cases: [(Int, String?, [UInt8], JoinRedemptionError)] = [
            (404, "application/json", Array(#"{"error":"not_found"}"#.utf8), .usedOrExpired),
            (410, nil, [], .usedOrExpired),
            (429, "application/json", Array(#"{"error":"rate_limited"}"#.utf8), .rateLimited),
            (302, "text/html", [], .redirected(status: 302)),
            (500, "application/json", [], .unexpectedStatus(500)),
            (200, "text/html", Array("<html></html>".utf8), .notJSON),
            (200, nil, Self.json, .notJSON),
            (200, "application/json", Array("not json".utf8), .notJSON),
            (200, "application/json", Array("[1]".utf8), .notJSON),
            (200, "application/json", [0xFF, 0xFE], .notJSON),
            (200, "application/json", Array(repeating: 0x20, count: JoinRedemption.maxBodyBytes + 1), .bodyTooLarge),
            (200, "application/json", Array(#"{"url":"wss://gw:443"}"#.utf8), .invalidPayload(.missingCredential)),
            (
                200, "application/json", Array(#"{"url":"wss://gw:443","bootstrapToken":"b","expiresAtMs":1}"#.utf8),
                .usedOrExpired
            ),
        ]
        for (status, type, body, expected) in cases {
            #expect(throws: expected, "\(status) \(type ?? "-")") {
                try JoinRedemption.setupCode(status: status, contentType: type, body: body, now: Self.now)
            }
        }
        #expect(
            JoinRedemptionError.usedOrExpired.description.contains("mint a new one with `openclaw devices join-code`"))
    }
}
