import ClawTalkProtocol
import ClawTalkTalk
import Testing

/// When entering Talk uses the realtime relay (talk.md §9.2 "When"), and the reason it does not.
struct RealtimeEligibilityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var optedIn = true
        var connected = true
        var realtime: WireJSON? = ["mode": "realtime", "transport": "gateway-relay"]
        var catalog: WireJSON? = ["realtime": ["ready": true, "transports": ["gateway-relay"]]]
        var scopes: [String]? = ["operator.read", "operator.write"]
        var methods = true
        var expected: RealtimeEligibility
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "everything holds", expected: .relay),
        Case(name: "a gateway that reports no scopes is taken at the requested ones", scopes: nil, expected: .relay),
        Case(name: "not opted in", optedIn: false, expected: .native(.notOptedIn)),
        Case(name: "no operator connection", connected: false, expected: .native(.noOperator)),
        Case(name: "no talk.realtime", realtime: nil, expected: .native(.notConfigured)),
        Case(
            name: "webrtc transport", realtime: ["mode": "realtime", "transport": "webrtc"],
            expected: .native(.notConfigured)),
        Case(
            name: "stt-tts mode", realtime: ["mode": "stt-tts", "transport": "gateway-relay"],
            expected: .native(.notConfigured)),
        Case(name: "no catalog", catalog: nil, expected: .native(.notInCatalog)),
        Case(
            name: "catalog without a ready provider", catalog: ["realtime": ["ready": false]],
            expected: .native(.notInCatalog)),
        Case(
            name: "catalog without the relay transport",
            catalog: ["realtime": ["ready": true, "transports": ["webrtc"]]], expected: .native(.notInCatalog)),
        Case(name: "read-only scopes", scopes: ["operator.read"], expected: .native(.missingScope)),
        Case(name: "methods missing", methods: false, expected: .native(.methodsMissing)),
    ]

    @Test(arguments: cases)
    func decides(_ test: Case) {
        let decision = RealtimeEligibility.decide(
            optedIn: test.optedIn, operatorConnected: test.connected, realtime: TalkRealtimeConfig(json: test.realtime),
            catalog: test.catalog.map { TalkCatalog(json: $0) }, grantedScopes: test.scopes,
            methodsOffered: test.methods)
        #expect(decision == test.expected)
    }
}
