import Testing

@testable import ClawTalkTalk

@Suite struct TalkErrorTests {
    @Test func descriptionsAreOneLine() {
        for error in [TalkError.microphoneUnavailable("x"), .speechToTextUnavailable("y"), .startCancelled] {
            #expect(!"\(error)".contains("\n"))
        }
    }
}
