import Testing

@testable import ClawTalkTalk

/// talk.md §5.5's `shouldInterrupt` rules, one by one.
@Suite("Barge-in decision")
struct BargeInDecisionTests {
    static let spoken = "Tomorrow will be cloudy, with rain in the afternoon. Take an umbrella!"

    static func verdict(_ text: String, since: Double = 0.1, confidence: Double? = nil) -> BargeInDecision.Verdict {
        BargeInDecision.verdict(
            transcript: text, spokenText: spoken, secondsSinceSpeech: since, confidence: confidence)
    }

    @Test func userSpeechInterrupts() {
        #expect(Self.verdict("stop the music") == .interrupt)
        #expect(Self.verdict("what about Friday?") == .interrupt)
    }

    @Test func aStopPhraseOnlyStopsTheReply() {
        #expect(Self.verdict("Stop.") == .stopPhrase)
        #expect(Self.verdict("Cancel!") == .stopPhrase)
        #expect(Self.verdict("Okay, stop talking please.") == .stopPhrase)
        #expect(Self.verdict("That's enough") == .stopPhrase)
        #expect(Self.verdict("never mind") == .stopPhrase)
        #expect(Self.verdict("please") == .interrupt, "polite words alone are not a phrase")
        #expect(Self.verdict("stop, what about Friday") == .interrupt)
        let spokenStop = BargeInDecision.verdict(
            transcript: "stop", spokenText: "Stop at the bakery on the way.", secondsSinceSpeech: 0.1, confidence: nil)
        #expect(spokenStop == .echo, "the reply's own 'stop' is echo")
        #expect(Self.verdict("stop", since: 0.5) == .noRecentSpeech)
    }

    @Test func fewerThanThreeCharactersDoNot() {
        #expect(Self.verdict("no") == .tooShort)
        #expect(Self.verdict("  ok \n") == .tooShort)
        #expect(Self.verdict("yes") == .interrupt)
    }

    @Test func theEchoOfTheSpokenTextDoesNotIgnoringCaseSpacingAndPunctuation() {
        #expect(Self.verdict("rain in the afternoon") == .echo)
        #expect(Self.verdict("RAIN   in the\tafternoon.") == .echo)
        #expect(Self.verdict("Cloudy with rain") == .echo)
        #expect(Self.verdict("take an umbrella") == .echo)
        #expect(Self.verdict("rain in the evening") == .interrupt, "not a substring")
    }

    @Test func speechEnergyMustBeRecent() {
        #expect(Self.verdict("hold on", since: 0.35) == .interrupt)
        #expect(Self.verdict("hold on", since: 0.36) == .noRecentSpeech)
    }

    @Test func aReportedConfidenceMustExceedPointSix() {
        #expect(Self.verdict("hold on", confidence: 0.61) == .interrupt)
        #expect(Self.verdict("hold on", confidence: 0.6) == .lowConfidence)
        #expect(Self.verdict("hold on", confidence: nil) == .interrupt)
    }

    @Test func normalization() {
        #expect(BargeInDecision.normalize("  Hello,   World! It's\nme ") == "hello world its me")
    }
}
