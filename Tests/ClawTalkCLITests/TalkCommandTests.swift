import ClawTalkDesktop
import Testing

@testable import ClawTalkCLI

/// `clawtalk talk`'s output for the service's answers.
@Suite struct TalkCommandTests {
    @Test func onAndOffAreRenderedWithThePhase() {
        #expect(TalkCommand.render(.talk(enabled: true, phase: "listening")) == "on listening\n")
        #expect(TalkCommand.render(.talk(enabled: false, phase: "off")) == "off\n")
    }
}
