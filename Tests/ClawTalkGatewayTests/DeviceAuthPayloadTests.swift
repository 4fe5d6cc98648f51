import ClawTalkGateway
import Testing

@Suite("Device auth payload strings (protocol.md §6.2, §6.3)")
struct DeviceAuthPayloadTests {
    @Test func upstreamV2Vector() {
        let payload = DeviceAuthPayload(
            version: .v2, deviceId: "dev-1", clientId: "openclaw-macos", clientMode: "ui",
            role: "operator", scopes: ["operator.admin", "operator.read"],
            signedAtMs: 1_700_000_000_000, nonce: "nonce-abc")
        #expect(
            payload.string
                == "v2|dev-1|openclaw-macos|ui|operator|operator.admin,operator.read|1700000000000||nonce-abc")
    }

    @Test func upstreamV3VectorWithMetadata() {
        let payload = DeviceAuthPayload(
            version: .v3, deviceId: "dev-1", clientId: "openclaw-macos", clientMode: "ui",
            role: "operator", scopes: ["operator.admin", "operator.read"],
            signedAtMs: 1_700_000_000_000, token: "tok-123", nonce: "nonce-abc",
            platform: "  IOS  ", deviceFamily: "  iPhone  ")
        #expect(
            payload.string
                == "v3|dev-1|openclaw-macos|ui|operator|operator.admin,operator.read|1700000000000|tok-123|nonce-abc|ios|iphone"
        )
    }

    @Test func upstreamV3VectorWithoutTokenOrMetadata() {
        let payload = DeviceAuthPayload(
            version: .v3, deviceId: "dev-2", clientId: "openclaw-ios", clientMode: "ui",
            role: "operator", scopes: ["operator.read"], signedAtMs: 1_700_000_000_001,
            nonce: "nonce-def")
        #expect(payload.string == "v3|dev-2|openclaw-ios|ui|operator|operator.read|1700000000001||nonce-def||")
    }

    @Test func scopesKeepSentOrderAndDuplicates() {
        let payload = DeviceAuthPayload(
            version: .v2, deviceId: "d", clientId: "c", clientMode: "m", role: "r",
            scopes: ["b", "a", "b"], signedAtMs: 5, nonce: "n")
        #expect(payload.string == "v2|d|c|m|r|b,a,b|5||n")
    }

    struct TokenCase: Sendable, CustomTestStringConvertible {
        var token: String?
        var deviceToken: String?
        var bootstrapToken: String?
        var expected: String
        var testDescription: String {
            func show(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "nil" }
            return "\(show(token)) ?? \(show(deviceToken)) ?? \(show(bootstrapToken)) -> \"\(expected)\""
        }
    }

    static let tokenCases: [TokenCase] = [
        TokenCase(token: "tok", deviceToken: "dev", bootstrapToken: "boot", expected: "tok"),
        TokenCase(token: "", deviceToken: "dev", bootstrapToken: "boot", expected: ""),
        TokenCase(token: nil, deviceToken: "dev", bootstrapToken: "boot", expected: "dev"),
        TokenCase(token: nil, deviceToken: "", bootstrapToken: "boot", expected: ""),
        TokenCase(token: nil, deviceToken: nil, bootstrapToken: "boot", expected: "boot"),
        TokenCase(token: nil, deviceToken: nil, bootstrapToken: "", expected: ""),
        TokenCase(token: nil, deviceToken: nil, bootstrapToken: nil, expected: ""),
        TokenCase(token: "tok", deviceToken: nil, bootstrapToken: nil, expected: "tok"),
    ]

    @Test(arguments: tokenCases)
    func tokenSelectionUsesJavaScriptNullishCoalescing(_ testCase: TokenCase) {
        #expect(
            DeviceAuthPayload.signedToken(
                token: testCase.token, deviceToken: testCase.deviceToken,
                bootstrapToken: testCase.bootstrapToken) == testCase.expected)
        let payload = DeviceAuthPayload(
            version: .v2, deviceId: "d", clientId: "c", clientMode: "m", role: "r", scopes: [],
            signedAtMs: 1, token: testCase.token, deviceToken: testCase.deviceToken,
            bootstrapToken: testCase.bootstrapToken, nonce: "n")
        #expect(
            payload.string.split(separator: "|", omittingEmptySubsequences: false)[7] == Substring(testCase.expected))
    }

    static let normalizationCases: [(String?, String)] = [
        ("  Linux ", "linux"),
        ("  IOS  ", "ios"),
        ("  iPhone  ", "iphone"),
        (nil, ""),
        ("", ""),
        ("   \t\n", ""),
        ("\u{00A0}Linux\u{FEFF}\u{3000}", "linux"),  // JS trim() whitespace beyond ASCII
        ("\u{0085}Linux", "\u{0085}linux"),  // NEL is not JS whitespace
        ("İSTANBUL", "İstanbul"),  // ASCII-only: U+0130 is not folded
        ("ÄRGER", "Ärger"),
        ("\u{212A}ELVIN", "\u{212A}elvin"),  // Kelvin sign stays
        ("Mac OS X", "mac os x"),  // inner spaces kept
    ]

    @Test(arguments: normalizationCases)
    func metadataNormalization(_ input: String?, _ expected: String) {
        #expect(DeviceAuthPayload.normalizeMetadata(input) == expected)
    }

    @Test func v2IgnoresMetadata() {
        let payload = DeviceAuthPayload(
            version: .v2, deviceId: "d", clientId: "c", clientMode: "m", role: "r", scopes: [],
            signedAtMs: 1, nonce: "n", platform: "linux", deviceFamily: "Linux")
        #expect(payload.string == "v2|d|c|m|r||1||n")
    }
}
