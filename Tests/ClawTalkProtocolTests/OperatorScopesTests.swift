import ClawTalkProtocol
import Testing

/// The scope each operator method needs and what the scopes granted in `hello-ok` cover
/// (protocol.md §14, checklist 40).
struct OperatorScopesTests {
    @Test(arguments: [
        (["operator.read", "operator.write"], [OperatorMethod]()),
        (["operator.admin"], []),
        (
            ["operator.read"],
            [
                .chatSend, .agent, .talkSpeak, .talkMode, .talkSessionCreate, .talkSessionAppendAudio,
                .talkSessionClose, .talkSessionCancelOutput, .talkSessionAcknowledgeMark, .talkRealtimeRelayMark,
                .talkSessionSubmitToolResult, .ttsSpeak, .voiceWakeSet,
            ]
        ),
        (
            ["operator.read", "operator.talk"],
            [.chatSend, .agent, .ttsSpeak, .voiceWakeSet]
        ),
        ([], []),
    ])
    func notGranted(granted: [String], missing: [OperatorMethod]) {
        #expect(Set(OperatorScopes.notGranted(by: granted).keys) == Set(missing))
    }

    @Test func aGatewayThatReportsNoScopesIsNotGated() {
        #expect(OperatorScopes.notGranted(by: nil).isEmpty)
    }

    @Test func writeCoversReadAndTalk() {
        #expect(OperatorScopes.covers(["operator.write"], "operator.read"))
        #expect(OperatorScopes.covers(["operator.write"], "operator.talk"))
        #expect(!OperatorScopes.covers(["operator.talk"], "operator.write"))
        #expect(OperatorScopes.required(for: .talkConfig) == "operator.read")
        #expect(OperatorScopes.required(for: .chatSend) == "operator.write")
        #expect(OperatorScopes.required(for: .talkSessionCancelOutput) == "operator.talk")
    }
}
