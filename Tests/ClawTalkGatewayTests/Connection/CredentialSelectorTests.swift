import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import Testing

@Suite("Credential selection (protocol.md §7.4)")
struct CredentialSelectorTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var bootstrap: String?
        var device: String?
        var token: String?
        var password: String?
        var expected: CredentialKind
        var testDescription: String { "\(expected)" }
    }

    static let rows: [Row] = [
        Row(bootstrap: "boot", device: "dev", token: "tok", password: "pw", expected: .bootstrapToken),
        Row(bootstrap: nil, device: "dev", token: "tok", password: "pw", expected: .deviceToken),
        Row(bootstrap: nil, device: nil, token: "tok", password: "pw", expected: .sharedToken),
        Row(bootstrap: nil, device: nil, token: nil, password: "pw", expected: .password),
        Row(bootstrap: nil, device: nil, token: nil, password: nil, expected: .none),
        Row(bootstrap: "", device: "", token: "", password: "", expected: .none),
        Row(bootstrap: "boot", device: nil, token: nil, password: nil, expected: .bootstrapToken),
        Row(bootstrap: nil, device: "dev", token: nil, password: nil, expected: .deviceToken),
    ]

    @Test("first match wins and exactly one credential is sent", arguments: rows)
    func precedence(row: Row) throws {
        let available = AvailableCredentials(
            bootstrapToken: row.bootstrap, deviceToken: row.device, sharedToken: row.token, password: row.password)
        let selected = CredentialSelector.select(from: available)
        #expect(selected.kind == row.expected)
        switch row.expected {
        case .bootstrapToken: #expect(selected.auth == .bootstrapToken("boot"))
        case .deviceToken: #expect(selected.auth == .deviceToken("dev"))
        case .sharedToken: #expect(selected.auth == .token("tok"))
        case .password: #expect(selected.auth == .password("pw"))
        case .none: #expect(selected.auth == nil)
        }
        if let auth = selected.auth {
            let set = [auth.token, auth.bootstrapToken, auth.deviceToken, auth.password].compactMap { $0 }
            #expect(set.count == 1)
        }
    }

    @Test("the device-token retry prefers the stored device token, if any")
    func preferDeviceToken() {
        let both = AvailableCredentials(deviceToken: "dev", sharedToken: "tok")
        #expect(CredentialSelector.select(from: both, preferDeviceToken: true).auth == .deviceToken("dev"))
        let none = AvailableCredentials(sharedToken: "tok")
        #expect(CredentialSelector.select(from: none, preferDeviceToken: true).auth == .token("tok"))
        let boot = AvailableCredentials(bootstrapToken: "boot", deviceToken: "dev")
        #expect(CredentialSelector.select(from: boot, preferDeviceToken: true).kind == .deviceToken)
    }

    @Test("first(in:) follows the precedence")
    func firstKind() {
        #expect(CredentialSelector.first(in: [.password, .sharedToken]) == .sharedToken)
        #expect(CredentialSelector.first(in: []) == .none)
        #expect(CredentialSelector.first(in: [.password, .deviceToken, .bootstrapToken]) == .bootstrapToken)
    }
}

@Suite("Connection configuration from settings")
struct GatewayConnectionConfigurationTests {
    @Test("gateway.* settings map to credentials, pin, insecure flag and timeouts")
    func fromSettings() throws {
        var settings = GatewaySettings()
        settings.token = "tok"
        settings.password = "pw"
        settings.tlsFingerprint = "sha256:" + String(repeating: "AB:", count: 31) + "AB"
        settings.allowInsecureRemote = true
        settings.challengeTimeoutMs = 6_000
        settings.connectTimeoutMs = 20_000
        settings.requestTimeoutMs = 9_000
        let configuration = GatewayConnectionConfiguration(
            settings: settings, endpoint: try GatewayEndpoint.parse("wss://gw.example.com"), role: .operator,
            client: ClientMetadata(version: "1"))
        #expect(configuration.sharedToken == "tok")
        #expect(configuration.password == "pw")
        #expect(configuration.configuredPin?.hex == String(repeating: "ab", count: 32))
        #expect(configuration.allowInsecureRemote)
        #expect(
            configuration.timeouts
                == ConnectionTimeouts(challenge: .seconds(6), connect: .seconds(20), request: .seconds(9)))
    }
}
