import ClawTalkGateway
import ClawTalkProtocol
import Testing

@Suite("Credential selection (§7.4)")
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
